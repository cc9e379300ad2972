"""Issue 44: a display fraction's parts on pages of the authors' own PDFs the reader was not tuned on
before stop 50 (tests/fixtures/papertext/unseen/PROVENANCE.md): each part joins its line and is
written as the conventions say (docs/library.md), so the ratio is read as a ratio."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

UNSEEN = FIXTURES_DIR / "papertext" / "unseen"


@cache
def _page(path: Path, number: int) -> str:
    return "\n".join(read_pages(path, max_pages=number)[number - 1].lines)


def test_a_fractions_denominator_whose_subscript_outnumbers_its_symbol_stays_under_it():
    # timmy's eq. 1: `F_{total}` (one large glyph, five small) was placed by its subscript's baseline,
    # too far below the line to join it: `δ_{true} ^{Fcomp}` then a line `Ftotal` (a power, not a ratio)
    timmy = _page(UNSEEN / "timmy2020_p9-17-20.pdf", 1)
    assert "δ_{obs} = δ_{true} F_{comp}/F_{total}, (1)" in timmy
    # eq. 2: a decimal number is a bare part, as an integer is (was `(^{0.5}` and `δobs )` apart)
    assert "log_{10} (0.5/δ_{obs} ). (2)" in timmy


def test_a_text_fraction_that_opens_a_line_is_one_fraction():
    # unseen4 (development since the lead scored it once): escapetemp2018's "the semi-period $\frac{1}{2}T$"
    # wraps so the fraction opens a line; PDFium gives the numerator `1` as a line of its own, and
    # `1` over `2 T. The integrals` read as the number 2 (a changed value)
    escape = _page(FIXTURES_DIR / "papertext" / "unseen4" / "escapetemp2018_p1-2-4.pdf", 3)
    assert "\n1/2 T. The integrals were solved" in escape
    assert "\n1\n" not in escape
    # a superscript over a subscript (dropimpact2024's `V_0^3` in eq. 8), set flush left, is no fraction
    drop = _page(FIXTURES_DIR / "papertext" / "unseen4" / "dropimpact2024_p1-6-7.pdf", 3)
    assert "30/D0" not in drop and "\n2_0" not in drop
