"""Issue 44, stop 54 second follow-up: pages of unseen6, the set scored once held out and development
material since (tests/fixtures/papertext/unseen6/PROVENANCE.md). Each test is a case the reader of
s54-lead wrote wrong, and unmarked, on the real page."""

from __future__ import annotations

from functools import cache

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

UNSEEN6 = FIXTURES_DIR / "papertext" / "unseen6"


@cache
def _page(name: str, number: int) -> str:
    """The written lines of page `number` (1-based) of a cut fixture PDF."""
    return "\n".join(read_pages(UNSEEN6 / name, max_pages=number)[number - 1].lines)


def test_a_display_with_an_integral_is_no_table_row():
    # ceaccretors2022's eq. (1): the integral's side limits and the space before the comma are wide
    # gaps, and the relation was written as three table cells, `∫_m^M | dm′(...) | ,` (bars a reader
    # takes for an absolute value); a prime in the fraction's numerator was a power, `Gm^′`
    page = _page("ceaccretors2022_p1-4-5.pdf", 2)
    assert "BE(m, α_{th}) = − ∫_m^M dm′(−(Gm′)/(r(m′))+ α_{th}u(m′)) ," in page
    assert " | " not in next(line for line in page.splitlines() if "BE(m, α_{th})" in line)


def test_a_relation_under_a_slash_is_its_negation():
    # galdtd2024's selection table: plain TeX's \notin is `∈` with cmmi's `/` set over it, read `∈ /`
    page = _page("galdtd2024_p1-5-10.pdf", 3)
    assert "ASPCAPFLAG Bits | ∉ 23 | Remove stars flagged as bad" in page
    assert "EXTRATARG Bits | ∉ 0, 1, 2, 3, or 4 | Select main red star sample only" in page
    assert "∈/" not in page
