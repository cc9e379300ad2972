"""Issue 44: exact text on papers the labelled set never saw, by general rules, each checked on a real
fixture page: math fonts of any TeX package named by their role, ionisation states kept upper case,
line-end hyphens decided by the word list, asymmetric errors kept with their value."""

from __future__ import annotations

from functools import cache

from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

PAPERS = FIXTURES_DIR / "papers"


@cache
def _page(name: str, number: int) -> str:
    """The written lines of page `number` (1-based) of a fixture PDF."""
    return "\n".join(read_pages(PAPERS / name, max_pages=number)[number - 1].lines)


def test_angle_brackets_of_txfonts_symbols_are_brackets_not_letters():
    # smear (AASTeX with txfonts): `txsys` has no Unicode map for ⟨ ⟩, PDFium gave its codes as 'h' 'i'
    page8, page9 = _page("smear_2019ApJS_ms.pdf", 8), _page("smear_2019ApJS_ms.pdf", 9)
    assert "asteroseismic parameters ν_{max} and ⟨∆ν⟩ (Kjeldsen & Bedding" in page8
    assert "but mean ⟨∆ν⟩ is typically well-constrained" in page9
    assert "h∆νi" not in page8 + page9
    # the same font's mapped characters stay as printed: '(' and '/' are not cmsy's ⇐ and ∝
    assert "[Fe/H]" in _page("smear_2019ApJS_ms.pdf", 13)


def test_star_of_a_math_italic_font_is_a_star_not_a_question_mark():
    feiden = _page("feiden_2016AA_ms.pdf", 7)  # rtxmi, no Unicode map: ⋆ is its code 0x3f, '?'
    assert "magnetic models predict a star with M_⋆ =" in feiden
    assert "M_?" not in feiden
    assert "R_P /R_⋆, and several parameters" in _page("celerite_2017AJ_ms.pdf", 22)  # CM-Bright's HFBRMI10


def test_lunate_epsilon_stays_apart_from_the_plain_one():
    # 1001.0012 distinguishes its own ε from Cowan & Agol's ϵ; cmmi's `epsilon1` came out as U+01EB
    cowan = _page("arXiv_1001.0012v2_astro-ph.EP.pdf", 3)
    assert "the ϵ used in (Cowan & Agol 2010)" in cowan
    assert "The ϵ = 0 case is\nprecisely equal to the ε = 0 case, while the ϵ → ∞ limit" in cowan
    assert "ǫ" not in cowan


def test_line_end_hyphen_of_an_astronomy_word_is_taken_out_and_the_paper_decides_first():
    # 1001.0012's own pages are the witness (as pdftext.join_hyphens uses them): it never writes
    # 'supermassive' or 'protoplanetary', so the word list decides (pyspellchecker lacks both); it
    # writes 'sub-stellar' and 'semi-major' itself, so those stay compounds.
    from astro_cli.research.text.hyphens import SOFT_HYPHEN, HyphenResolver

    pages = read_pages(PAPERS / "arXiv_1001.0012v2_astro-ph.EP.pdf")
    resolver = HyphenResolver("\n".join(line for page in pages for line in page.lines))
    assert resolver.resolve(f"a super{SOFT_HYPHEN}massive black hole") == "a supermassive black hole"
    assert resolver.resolve(f"the proto{SOFT_HYPHEN}planetary disk") == "the protoplanetary disk"
    assert resolver.resolve(f"the metal{SOFT_HYPHEN}licity of") == "the metallicity of"
    assert resolver.resolve(f"and sub{SOFT_HYPHEN}stellar companions") == "and sub-stellar companions"
    assert resolver.resolve(f"its semi{SOFT_HYPHEN}major axis") == "its semi-major axis"


def test_ionisation_states_after_an_element_are_upper_case_and_nothing_else_is():
    # No fixture paper names an ionisation state, so the rule is checked on lines as PDFium gives a
    # small-capital numeral (`H~{\sc ii}` -> 'H ii'), and on real pages for what it must not touch.
    from astro_cli.research.text.pdfwords import ionisation_states

    assert ionisation_states("from the H ii region and [O iii]λ5007/[N ii]") == \
        "from the H II region and [O III]λ5007/[N II]"
    assert ionisation_states("Fe i lines, the Ca ii K line and He ii.") == "Fe I lines, the Ca II K line and He II."
    for prose in ("Section V i.e. the", "a B i-band image", "Hii"):
        assert ionisation_states(prose) == prose
    smear15 = _page("smear_2019ApJS_ms.pdf", 15)  # element lists stay as printed
    assert "for the elements Mg, Ti, Si, Ca, Al, V, and Ni. Dashes" in smear15


def test_every_value_of_a_fit_table_keeps_its_lower_error_and_its_cell():
    # V1298 Tau's Table 1 (never labelled): the lower error used to fall to a line of its own, or be
    # glued to the next cell ('242.6^{+3.6}−3.5 242.6' in the issue), and the rows lost their cells
    table = _page("v1298tau_2022AJ_ms_page9.pdf", 1)
    assert "P_{rot} [days] | 2.97_{−0.04}^{+0.03} | G(ln2.87, 2)" in table
    assert ("T_0 [BKJD - 2454833] | 4648.16636_{−0.00339}^{+0.00269} | 4645.41494_{−0.00157}^{+0.00172}"
            " | 4648.09023_{−0.00132}^{+0.00129} | 4648.79668_{−0.00114}^{+0.00121}") in table
    assert ("Impact parameter, b | 0.14_{−0.10}^{+0.14} | 0.19_{−0.13}^{+0.12} | 0.45_{−0.04}^{+0.05}"
            " | 0.48_{−0.07}^{+0.06}") in table
    assert "R_p/R_⋆ | 0.0337 ± 0.0009 | 0.0409_{−0.0015}^{+0.0014} | 0.0636 ± 0.0018 | 0.0664_{−0.0021}^{+0.0025}" in table
    assert not any(line.startswith(("−", "-")) for line in table.splitlines())  # no lower error left alone


def test_stacked_signed_errors_are_the_value_errors_not_a_fraction():
    # smear's Table 3: '0.91 (+0.10)/(−0.06)' read as a ratio; in prose a lower error under an upper
    # one that ends a line is joined to it
    smear14 = _page("smear_2019ApJS_ms.pdf", 14)
    assert "| 5.54 ± 0.50 | 0.91_{−0.06}^{+0.10} | 25.61_{−0.83}^{+1.25} | 12.40_{−3.90}^{+3.60}" in smear14
    assert "(+0.10)/(−0.06)" not in smear14
    assert "precise Gaia radius of 9.14_{−0.13}^{+0.25} R_⊙, but 24.78_{−0.72}^{+0.88} R_⊙ from modelling" in \
        _page("smear_2019ApJS_ms.pdf", 17)
