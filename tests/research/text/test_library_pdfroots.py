"""Issue 44: a root sign set as a piece of its own hangs from its top and joins its line, so its
rule closes the radicand (`√(1 − b^2)`); a root whose rule was not found is read with confidence
only over one symbol, and otherwise its word is marked ⟦ ⟧ rather than written as a value it may
not be. On the authors' own PDFs of Bouma et al. 2020 (timmy, tests/fixtures/papertext/unseen) and
on celerite."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

TIMMY = FIXTURES_DIR / "papertext" / "unseen" / "timmy2020_p9-17-20.pdf"
CELERITE = FIXTURES_DIR / "papers" / "celerite_2017AJ_ms.pdf"


@cache
def _lines(path: Path, number: int) -> list[str]:
    return read_pages(path, max_pages=number)[number - 1].lines


def test_a_root_sign_given_apart_joins_its_line_and_covers_its_radicand():
    lines = _lines(TIMMY, 2)
    # read `·`, `⟦√⟧` and `1 − b^2 ≈ 14 m s^{−1}, (9)` on three lines: the value read as √1 − b²
    assert "∆V_{RM} ≈ f_{LD} · δ · v sin i·√(1 − b^2) ≈ 14 m s^{−1}, (9)" in lines
    assert "√" not in lines and "⟦√⟧" not in lines


def test_a_root_over_one_symbol_in_prose_stays_on_its_line():
    assert any("• For Q = 1/√2, Equation (42) simplifies to" in line for line in _lines(CELERITE, 13))
    assert any("and Q = 1/√2 and the other has ω_0 = 2 π/P." in line for line in _lines(CELERITE, 16))


def test_a_root_whose_reach_is_unknown_marks_its_word_not_its_prose():
    # the extension font's big root has no rule PDFium reports: `√2/π` may be √(2/π) (it is)
    line = next(line for line in _lines(CELERITE, 12) if "proportional to the power at" in line)
    assert line == "where S_0 is proportional to the power at ω = ω_0, S(ω_0) = ⟦√2/π⟧ S_0 Q^2. The power"
    # a root over one symbol needs no rule to be read: `T_{eff}/√a_∗` stays unmarked
    cowan = _lines(FIXTURES_DIR / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf", 2)
    assert "the uncertainty in T_0 = T_{eff}/√a_∗ is related —to first" in cowan


def test_a_root_inside_a_fractions_part_stays_in_it():
    # escapetemp2018's eq. (1), `\frac{\pi^{1/4}}{5\sqrt{2}}`: the root sign hangs from the part's top,
    # near the line's baseline, and cut the denominator: `π^{1/4}/5√2`, which is (π^{1/4}/5)·√2
    escape = read_pages(FIXTURES_DIR / "papertext" / "unseen4" / "escapetemp2018_p1-2-4.pdf", max_pages=1)[0].lines
    assert any(line.startswith("⟨T_s⟩ = π^{1/4}/(5√2) (Γ(1/8))/(Γ(5/8))") for line in escape)
