"""Issue 44: the reader says when it is unsure. A glyph of the line's own size set above or below
its baseline is no script: a part of a display fraction, a matrix row, a limit not resolved. When
the reader would write such glyphs as scripts, the line is marked ⟦ ⟧ instead of written wrong;
prose, table notes and resolved fractions are not marked. A display fraction whose parts are of the
line's size is resolved: numerator over denominator around the line's baseline. On the authors' own
PDFs of Angus et al. 2021 (aviary, tests/fixtures/papertext/unseen2) and Bouma et al. 2020 (timmy),
and on 1001.0012 and celerite."""

from __future__ import annotations

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

AVIARY = FIXTURES_DIR / "papertext" / "unseen2" / "aviary2021_p11.pdf"
TIMMY = FIXTURES_DIR / "papertext" / "unseen" / "timmy2020_p9-17-20.pdf"
COWAN = FIXTURES_DIR / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf"
CELERITE = FIXTURES_DIR / "papers" / "celerite_2017AJ_ms.pdf"


def test_a_display_fraction_the_reader_cannot_place_is_marked():
    # exp(−τ^2/(2λ^2)) and Planck's 1/(e^{hc/λkT} − 1): a part of the line's size written as a
    # script (`exp (−^τ`, `(1 +^e`) read as a value it is not, unmarked
    celerite = read_pages(CELERITE, max_pages=16)[15].lines
    assert "⟦k_{true}(τ ) = α exp (−^τ⟧" in celerite
    # 1001.0012's eq. (6) (stop 54: `log` is no word, so the display's pieces join one line): the
    # fraction is read, and the line stays marked for the script of a script in its exponent
    cowan = read_pages(COWAN, max_pages=4)[3].lines
    assert "⟦T_b(λ) = (hc)/(λk) [log (1 + (e^{hc/λkT ∗b(λ)} − 1)/(ψ(λ)))]^{−1}. (6)⟧" in cowan


def test_a_display_fraction_of_full_size_parts_is_read_as_one():
    # k_{ij} = A exp[(−(x_i − x_j)^2)/(2l^2)]: the denominator, set left of the numerator's end, was a
    # line of its own (`2l^2 ]`), and the numerator, with more glyphs than the line, took its baseline
    # (`kij`, the symbol read as a script)
    lines = read_pages(AVIARY)[0].lines
    assert "k_{ij} = A exp [(−(x_i − x_j )^2)/(2l^2)]" in lines  # (stop 54: its big `]` joins it)
    # was `( ^{m1}_{1 + esδ} )`; a whole relation whose parts were all placed is no longer marked (stop 54)
    assert "g(C) = [( m_1/(1 + e^{sδ}) )+(m_2/(1 + e^{−sδ}) )]^δ, (4)" in lines
    # the denominators of celerite's eqs. 45 and 58 (`c_j =^{ω0}` and a line `2 Q`)
    celerite12 = read_pages(CELERITE, max_pages=12)[11].lines
    assert "c_j = ω_0/(2 Q)" in celerite12 and "2 Q" not in celerite12
    celerite16 = read_pages(CELERITE, max_pages=16)[15].lines
    # (stop 54: cmex's largest `)]`, read `!#` before; the pieces `2` of λ^2/2 join the line)
    assert "+ exp −λ^2/2(ω + (2 π)/P_{true})^2)] (58)" in celerite16  # (marked whole by pdfpieces)


def test_prose_table_notes_and_resolved_fractions_are_not_marked():
    timmy = read_pages(TIMMY, max_pages=1)[0].lines
    assert "δ_{obs} = δ_{true} F_{comp}/F_{total}, (1)" in timmy  # a fraction the reader placed
    notes = read_pages(COWAN, max_pages=12)[11].lines
    assert any(line.startswith("a The planet’s expected day-side effective temperature") for line in notes)
    assert not any("⟦" in line for line in notes)


CMB = FIXTURES_DIR / "papertext" / "unseen3" / "cmbdelens2017_p1-3-6.pdf"


def test_a_fraction_part_writes_stacked_scripts_subscript_first():
    # Pan, Anderes & Knox's eq. (5): the weight C_{l′}^{EE}/(C_{l′}^{EE} + N_{l′}^{EE}). Inside a display
    # fraction's part the scripts were written in PDFium's order, `(C^{EE}_{l′})/(C^{EE}_{l′} + ...)`,
    # unlike everywhere else, and the numerator, no longer one symbol with its scripts, got parentheses.
    lines = read_pages(CMB, max_pages=2)[1].lines
    assert any("f_{ℓ,ℓ′} = C_{l′}^{EE}/(C_{l′}^{EE} + N" in line for line in lines)  # stop 53: ℓ′ in its script
    assert not any("^{EE}_{" in line for line in lines)


SOLAR = FIXTURES_DIR / "papertext" / "unseen3" / "solar2026_p2-3.pdf"


def test_a_symbol_with_a_sign_for_its_script_is_a_bare_fraction_part():
    # Laughlin 2026's eq. (1): `M_⋆` and `R_⋆` (a star, a sun) are one symbol with its script like
    # `P_0`, so they are written without parentheses: `(R_⋆/a)^8` read `((R_⋆)/a)^8`.
    lines = read_pages(SOLAR, max_pages=1)[0].lines
    assert any(line.endswith("f M_{env}/M_⋆ (q (1 + q))/τ_{conv} (R_⋆/a)^8, (1)") for line in lines)
