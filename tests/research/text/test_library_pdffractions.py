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
