"""Issue 44, stop 54: the upright operator names of a display formula (`\\exp`, `\\ln`, `\\min`) are
set in the text's roman font, and three roman letters in a row were taken for a word of prose. A line
holding one was then no display mathematics, so the pieces PDFium gives of its fractions and big
delimiters stayed lines of their own, and the formula was read in pieces (or marked whole). On the
authors' own pages (tests/fixtures/papertext, development material since each set was scored once)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from astro_cli.research.text.pdfglyphs import Glyph, math_only
from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

PAPERTEXT = FIXTURES_DIR / "papertext"


@cache
def _lines(path: Path, number: int) -> tuple[str, ...]:
    return tuple(read_pages(path, max_pages=number)[number - 1].lines)


def test_a_display_with_an_operator_name_is_one_line_with_its_fractions():
    # solar2026's eq. (2), `f = \min[1, (P_{orb}/2\tau_{conv})^2]`: the fraction's parts read on lines
    # of their own (`(Porb`, `2 τ_{conv} )^2`) and the display was marked whole
    solar = _lines(PAPERTEXT / "unseen3" / "solar2026_p2-3.pdf", 1)
    assert "f = min[1,(P_{orb}/(2 τ_{conv}) )^2]" in solar  # (its big `]` on the line: stop 54 follow-up)
    # dropimpact2024's eq. (5): `F_{max} = \frac{1}{V_0}(\dot K_{int} + ...)`, its big parentheses apart
    drop = _lines(PAPERTEXT / "unseen4" / "dropimpact2024_p1-6-7.pdf", 3)
    assert "F_{max} = 1/V_0(K̇_{int}(t = τ_ρ) + Ṡ(t = τ_ρ) + mε(t = τ_ρ)" in drop
    # sfrd2023's eq. (3): `\exp(-\frac{1}{2}(\frac{\ln Z - \xi}{\omega})^2)` read as four lines
    sfrd = _lines(PAPERTEXT / "unseen4" / "sfrd2023_p1-3-7.pdf", 2)
    assert any(line.startswith("⟦2π exp (−1/2((lnZ − ξ)/ω)^2)(3)") for line in sfrd)


def _glyphs(text: str, family: str) -> list[Glyph]:
    return [Glyph(char, 10.0 * i, 10.0 * i + 5.0, 0.0, 10.0, family, family) for i, char in enumerate(text)]


def test_an_operator_name_is_no_word_and_a_word_still_is():
    math = _glyphs("x", "CMMI")
    assert math_only(math + _glyphs("exp", "CMR"))
    assert math_only(math + _glyphs("det", "CMR") + math + _glyphs("ln", "CMR"))
    # a word that begins like one (`exponential`, `determinant`, `length`) is prose
    assert not math_only(math + _glyphs("exponential", "CMR"))
    assert not math_only(math + _glyphs("determinant", "CMR"))
    assert not math_only(math + _glyphs("where", "CMR"))


def test_a_piece_of_digits_joins_the_display_it_is_set_in():
    # sfrd2023's eqs. (5) and (10): the exponent `2` of ω and the denominator `2`, each a piece of the
    # roman font (no math font, so no part of the formula), stayed lines of their own and the
    # fractions were marked, unread: `exp (ξ +^ω` / `2` / `2`
    sfrd = _lines(PAPERTEXT / "unseen4" / "sfrd2023_p1-3-7.pdf", 2)
    assert "⟨Z⟩ = 2 exp (ξ + ω^2/2)Φ (β ω) (5)" in sfrd
    assert "σ^2(z) = ω^2(z)(1 −(2β^2)/π)" in sfrd
    # an equation number is no such piece: it stays at the line's end, not a script
    assert not any(f"^{{({n})" in line or f"_{{({n})" in line for line in sfrd for n in range(1, 13))
