"""Issue 44, second round: values kept on pages of papers the reader was never tuned on (the authors'
own PDFs, cut to the labelled pages: tests/fixtures/papertext/unseen/PROVENANCE.md). Each test is a
case where the text read before this round changed a value as a reader takes it."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from astro_cli.research.text.pdfread import read_pages

UNSEEN = Path(__file__).parent / "fixtures" / "papertext" / "unseen"


@cache
def _page(name: str, number: int) -> str:
    """The written lines of page `number` (1-based) of a cut fixture PDF."""
    return "\n".join(read_pages(UNSEEN / name, max_pages=number)[number - 1].lines)


def test_scripts_inside_a_fraction_stay_scripts():
    # Gullikson et al.'s gyrochronology relation (their eq. 6): the parts of a stacked fraction lost
    # their own scripts, `P/(P0)` and `(kIkC)/(2τ2)`, which read τ² as 2τ2
    dsd = _page("dsd2015_p4-5-17.pdf", 2)
    assert "ln (P/P_0) (k_Ik_C)/(2τ^2)(P^2 − P_0^2) (6)" in dsd
    assert "(2τ2)" not in dsd and "(P0)" not in dsd


def test_a_display_line_of_symbols_with_long_subscripts_keeps_them():
    # stardate's eq. 11: the subscripts outnumber their symbols, so the line's size was taken from
    # them and `L_{full}` read `Lfull`
    assert "L_{full} = L_{iso} × L_{gyro}. (11)" in _page("stardate2019_p8-14.pdf", 2)
