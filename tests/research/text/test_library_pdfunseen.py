"""Issue 44, second round: values kept on pages of papers the reader was never tuned on (the authors'
own PDFs, cut to the labelled pages: tests/fixtures/papertext/unseen/PROVENANCE.md). Each test is a
case where the text read before this round changed a value as a reader takes it."""

from __future__ import annotations

from functools import cache

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

UNSEEN = FIXTURES_DIR / "papertext" / "unseen"


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


def test_a_root_covers_what_its_rule_covers():
    # the root sign hangs from its top, so it read as raised (`^√r − r_c`); and where a root ends is
    # only in the rule TeX draws over the radicand, which PDFium's text does not give
    murray = _page_arxiv("arXiv_1111.2011v2_cond-mat.pdf", 5)
    assert "with the energy gap ∆ = √(r − r_c). This" in murray  # was '∆ = ^√r − r_c': √r minus r_c
    assert "Taking the energy gap ∆ = √δ, where δ = r−r_c" in murray
    assert "q/√(2t). Numerical factors" in _page_arxiv("arXiv_1111.2011v2_cond-mat.pdf", 7)
    assert "Q = 1/√2" in _page_arxiv("celerite_2017AJ_ms.pdf", 14)  # was 'Q = 1/^√2'


def test_a_short_row_of_values_keeps_its_cell():
    # stardate's Table 1: `29 ± 2` is narrower than the other values, the row too short to be a row
    page = _page("stardate2019_p8-14.pdf", 1)
    assert "c_3 | 29 ± 2" in page and "c_4 | -38 ± 4" in page and "c_A | 0.65 ± 0.05" in page


@cache
def _page_arxiv(name: str, number: int) -> str:
    return "\n".join(read_pages(UNSEEN.parent.parent / "papers" / name, max_pages=number)[number - 1].lines)


def test_a_numbered_equation_is_not_cut_into_cells_nor_a_guess_left_unmarked():
    # celerite's eq. 46 has as many digits as a row of values: its wide gaps were read as cells
    # (stop 52: its fraction ω_0/(2 Q) is now read whole; the big root's reach is not known, so marked)
    page12 = _page_arxiv("celerite_2017AJ_ms.pdf", 12)
    assert "⟦d_j = ω_0/(2 Q)√4 Q^2 − 1 , (46)⟧" in page12 and "| , |" not in page12
    # a formula with big delimiters whose layout is guessed is marked even where its gaps look like
    # cells: eq. 49 read wrong (`^{S0}_{(ω/ω0)4 + 1}`; stop 52: its fraction is read), and says so
    assert "⟦S(ω) = √ 2/π S_0/((ω/ω_0)^4 + 1). (49)⟧" in _page_arxiv("celerite_2017AJ_ms.pdf", 13)


def test_the_space_after_a_script_is_kept_where_tex_set_one():
    # PDFium puts no space after a subscript or a raised mark; the glyphs show one (a sixth of an em)
    assert "∑_i C_iT_i/∑_i C_i (3)" in _page("dsd2015_p4-5-17.pdf", 1)  # was '∑_iC_iT_i/∑_iC_i'
    celerite5 = _page_arxiv("celerite_2017AJ_ms.pdf", 5)
    assert "the imaginary amplitude b_j for some component j" in celerite5  # was 'b_jfor'
    assert "a LU-decomposition[4] routine optimized" in _page_arxiv("celerite_2017AJ_ms.pdf", 9)
