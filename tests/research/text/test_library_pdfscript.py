"""Issue 44, stop 53: a script's own script is kept (`∇_{β^k}`), and two scripts set from one x over
each other belong to their symbol, subscript first, whatever their widths (pdfscript.py). Real pages."""

from __future__ import annotations

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

LENSING = FIXTURES_DIR / "papertext" / "unseen3" / "lensingssc2024_p1-2.pdf"
COND = FIXTURES_DIR / "papers" / "arXiv_1111.2011v2_cond-mat.pdf"
CMB = FIXTURES_DIR / "papertext" / "unseen3" / "cmbdelens2017_p1-3-6.pdf"


def test_a_script_of_a_script_is_kept():
    # MNRAS in newtx: the `k` of ∇_{β^k} is set in scriptscript size just above the subscript's
    # baseline, below the line's: it read as a glyph of the line, `∇_βkψ^k`
    lines = read_pages(LENSING, max_pages=1)[0].lines
    assert "α^k(β^k) = ∇_{β^k} ψ^k(β^k) (3)" in lines
    assert "∇_{β^k}^2ψ^k(β^k) = 2σ^k(β^k), (4)" in lines  # was ∇^2_{βk}


def test_stacked_scripts_of_different_widths_are_their_symbols_not_a_fraction():
    # 1111.2011: `−∂_μ^2 + r_0` read `−∂ 2/μ + r_0`, a fraction and a value it is not; cmbdelens2017's
    # ρ_{|ℓ−ℓ′|}^2 read `ρ^2_{|ℓ−ℓ}′_|`, and its primes stay with their symbol (`f_{ℓ,ℓ′}`)
    page = read_pages(COND, max_pages=2)[1].lines
    assert any("(p) = −∂_μ^2 + r_0, with r_0 ≥ 0." in line for line in page)
    assert not any("∂ 2/μ" in line for line in page)
    cmb = read_pages(CMB, max_pages=2)[1].lines
    assert any(line.startswith("′ ρ_{|ℓ−ℓ′|}^2,") for line in cmb)
    assert any(line.startswith("f_{ℓ,ℓ′} = ") for line in cmb)


# Stop 54: a display line joined from pieces is marked only where its layout was guessed.
STARDATE = FIXTURES_DIR / "papertext" / "unseen" / "stardate2019_p8-14.pdf"
COWAN = FIXTURES_DIR / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf"
CELERITE = FIXTURES_DIR / "papers" / "celerite_2017AJ_ms.pdf"
AVIARY = FIXTURES_DIR / "papertext" / "unseen2" / "aviary2021_p11.pdf"
CONVPEN = FIXTURES_DIR / "papertext" / "unseen4" / "convpen2022_p1-4-16.pdf"
SFRD = FIXTURES_DIR / "papertext" / "unseen4" / "sfrd2023_p1-3-7.pdf"


def test_a_fraction_whose_denominator_is_a_root_is_read():
    # stardate2019's `= \frac{1}{\sqrt{(2\pi)^n \det(\Sigma)}} \exp(...)`: the numerator, centred over
    # the root sign and its radicand together, read as a note mark and the radicand as a subscript
    stardate = read_pages(STARDATE, max_pages=2)[1].lines
    assert any("= 1/√((2π)^n det(Σ)) exp (−1/2(O_I − I)^TΣ^{−1}(O_I − I))," in line for line in stardate)
    assert not any("√[1]" in line for line in stardate)
    # 1001.0012's eq. (8): `PDF(i, j) = 1/√(2πσ_d^2) ...` (was `√[1]_{2πσ^2}`; its `d`, under the
    # square, a line of its own before the follow-up of stop 54)
    cowan = read_pages(COWAN, max_pages=7)[6].lines
    assert any("PDF(i, j) = 1/√(2πσ_d^2)" in line for line in cowan)


def test_a_display_whose_parts_were_placed_is_not_marked_and_a_guess_still_is():
    # a whole relation joined from pieces, every part placed: read right, and no longer marked
    aviary = read_pages(AVIARY)[0].lines
    assert "g(C) = [( m_1/(1 + e^{sδ}) )+(m_2/(1 + e^{−sδ}) )]^δ, (4)" in aviary
    # a factor after a display fraction is spaced (`1/ρ_0∇p` read as one word)
    convpen = read_pages(CONVPEN, max_pages=2)[1].lines
    assert "∂_tu + u · ∇u = −1/ρ_0 ∇p + ρ_1/ρ_0 g + ν∇^2u (2)" in convpen
    # still marked: a big root whose rule was not found (√(4Q^2 − 1) read `√4 Q^2 − 1`) and a script
    # of a script flattened (`10^{μ_z·z}` read `10^{μz·z}`)
    celerite = read_pages(CELERITE, max_pages=12)[11].lines
    assert "⟦d_j = ω_0/(2 Q)√4 Q^2 − 1 , (46)⟧" in celerite
    sfrd = read_pages(SFRD, max_pages=2)[1].lines
    assert "⟦⟨Z⟩ ≡ μ(z) = μ_0 · 10^{μz·z}, (7)⟧" in sfrd


def test_the_largest_delimiters_of_the_extension_font_are_read():
    # celerite's eq. (37): cmex codes 0x22 and 0x23 (the largest `[` and `]`) read `"` and `#`
    celerite = read_pages(CELERITE, max_pages=8)[7].lines
    assert any("+ [σ_n^2 + ∑_{j=1}^J a_j]+ ∑_{j=1}^J" in line for line in celerite)
    assert not any('"σ_n^2' in line for line in celerite)


def test_a_subscript_kerned_under_an_italic_symbol_joins_its_superscript():
    # dropimpact2024's prose `K_{int}(t) \sim mV_f^2/2`: PDFium gave the subscript `f` as a piece of its
    # own, starting under the italic V's overhang, left of the `2` over it by a hair; it began a line,
    # `mV [2]` (a note mark) then `f /2,`
    drop = read_pages(FIXTURES_DIR / "papertext" / "unseen4" / "dropimpact2024_p1-6-7.pdf", max_pages=3)[2].lines
    assert any(line.endswith("as K_{int}(t) ∼ mV_f^2/2,") for line in drop)
    assert not any("mV [2]" in line for line in drop)


def test_a_numerator_over_a_root_of_the_lines_size_is_read():
    # sfrd2023's eq. (6), `\beta = \frac{\alpha}{\sqrt{1+\alpha^2}}`: the root sign, hanging from its top,
    # sits on the line's baseline between the raised numerator and the lowered radicand; the numerator
    # read as a power, `⟦β =^α√(1 + α^2). (6)⟧`. celerite's `1 ± 1/√(1 − 4 Q^2)` read `1 ±[1]√_{1 − 4 Q^2}`
    sfrd = read_pages(SFRD, max_pages=2)[1].lines
    assert "β = α/√(1 + α^2). (6)" in sfrd
    celerite = read_pages(CELERITE, max_pages=13)[12].lines
    assert any("1 ± 1/√(1 − 4 Q^2)]" in line for line in celerite)
