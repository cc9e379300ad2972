"""Issue 44, stop 54 follow-up: values kept on pages of unseen5, the set scored once held out and
development material since (tests/fixtures/papertext/unseen5/PROVENANCE.md). Each test is a case
the reader of s54-lead wrote wrong on the real page."""

from __future__ import annotations

from functools import cache

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

UNSEEN5 = FIXTURES_DIR / "papertext" / "unseen5"


@cache
def _page(name: str, number: int) -> str:
    """The written lines of page `number` (1-based) of a cut fixture PDF."""
    return "\n".join(read_pages(UNSEEN5 / name, max_pages=number)[number - 1].lines)


def test_a_subscript_inside_a_subscript_stays_one():
    # the water mass fraction x_{H_2O}: the 2 is set a size smaller than H and O (6 pt and 5 pt at
    # 9 pt), and read `x_{H2O}`, H2O as a molecule with a subscript of 2O
    table = _page("hzedge2023_p1-5-8.pdf", 2)
    assert "x_{H_2O} | 10^{−5}–0.1 | Bulk water mass fraction" in table
    assert "Π(x_{H_2O}) | [10^{−5}, 0.1] | log-uniform" in table
    assert "mass fraction x_{H_2O}, and the dilution" in _page("hzedge2023_p1-5-8.pdf", 3)
    assert "H2O" not in table + _page("hzedge2023_p1-5-8.pdf", 3)


def test_a_forbidden_line_closed_before_its_numeral_is_upper_case():
    # the comet's atomic lines: `[O] I` sets its bracket around the element only, and the small
    # capital i read `[O] i` beside `Na I, K I` set upright
    assert "([O] I, Na I, K I, Ca II," in _page("betapiccn2025_p1-2-6.pdf", 2)


def test_a_name_broken_after_a_prefix_with_no_vowel_is_one_name():
    # `C/2006 P1 Mc-` / `Naught`: TeX broke the comet's name; a capital after the break was taken for a
    # second name (`Almeida-Fernandes`), but `Mc` can stand as no name of its own
    from astro_cli.research.library.parse import pdf_chunks

    chunks, _ = pdf_chunks(read_pages(UNSEEN5 / "betapiccn2025_p1-2-6.pdf"), 1200)
    text = " ".join(" ".join(chunk.text for chunk in chunks).split())
    assert "sungrazing comet C/2016 P1 McNaught 2006P1 (Fulle et al. 2007)" in text
    assert "Mc-Naught" not in text


def test_a_display_fraction_that_opens_its_formula_is_one():
    # the occurrence rate density (hzedge2023's eq. 1): the numerator d^2n was a line of its own and
    # the denominator opened the next, read `d^2n` / `dR ∂P = F_0C_ng(...)`, a product
    page = _page("hzedge2023_p1-5-8.pdf", 2)
    assert "(d^2n)/(dR ∂P) = F_0C_ng(R, P, M_⋆), (1)" in page


def test_a_fraction_under_a_root_is_read_inside_it():
    # vspec2024's eq. 1: a fraction under the root's rule was marked and read `√ F_{∗, VSPEC}/F_{∗, PSG}`,
    # the root over the numerator only
    page = _page("vspec2024_p1-4-7-8.pdf", 2)
    assert "N_{photon} = N_{photon, PSG}√(F_{∗, VSPEC}/F_{∗, PSG})" in page


def test_a_big_closing_delimiter_and_its_power_stay_on_their_line():
    # vspec2024's eq. 3: the big `)` hangs from its top, so it and its square were a line of their own,
    # `F_λ = ... (R_∗/R_p` then `⟦)_2⟧`: the square read as a subscript of nothing
    page = _page("vspec2024_p1-4-7-8.pdf", 2)
    assert "F_λ = F_{rock,λ} F_{PSG,λ} (R_∗/R_p)^2" in page and ")_2" not in page


def test_an_integrals_limits_beside_it_are_its_limits():
    # vspec2024's eq. 11: TeX sets ∫'s limits beside it, the lower one tucked under its slant; read as
    # a line `⟦∫ _∞⟧` and then `−∞ A dt = ...`, the integral lost its bounds
    page = _page("vspec2024_p1-4-7-8.pdf", 4)
    assert "∫_{−∞}^∞ A dt = E/(σT^4)" in page and "∫ _∞" not in page


def test_a_subscript_under_its_symbols_superscript_stays_with_it():
    # the column density towards β Pic: in the denominator πR_∗^2 the ∗ was a piece of its own, below
    # the line's (the numerator's) baseline, so it read `N_{CN}/(πR^2)` and a line `∗`
    page = _page("betapiccn2025_p1-2-6.pdf", 3)
    assert "n ∼ N_{CN}/(πR_∗^2)" in page and "\n∗\n" not in page


def test_a_symbols_two_scripts_under_a_root_are_no_fraction():
    # vspec2024's eq. 2: `N_{photon}^2` under the root's rule has its 2 set over `photon`, which was
    # taken for a fraction under the root, so the formula was marked and read `=√N_{photon}^2 + ...`,
    # the root over the first term only
    page = _page("vspec2024_p1-4-7-8.pdf", 2)
    assert "N_{tot} = √(N_{photon}^2 + N_{detector}^2 + N_{telescope}^2 + N_{background})" in page
