"""Issue 44, stop 53: a raised 2 or 3 after a unit of length or angle that follows a number is the
unit's power, not a note mark (pdfpowers.superscript). Real pages of tests/fixtures/papertext."""

from __future__ import annotations

from astro_cli.research.library.parse import pdf_chunks
from astro_cli.research.text.pdfpowers import superscript
from astro_cli.research.text.pdfread import read_pages
from astro_cli.research.text.pdftext import pdf_layout
from tests.paths import FIXTURES_DIR


def test_an_area_after_a_number_is_a_power_not_a_note():
    # lensingssc2024 (MNRAS): "The opening angle of the light cone is 5 × 5 deg²." read `deg[2]`,
    # a note 2 that the paper does not have, and the value lost its unit's power
    chunks, _ = pdf_chunks(read_pages(FIXTURES_DIR / "papertext" / "unseen3" / "lensingssc2024_p1-2.pdf"), 1200)
    text = " ".join("\n".join(chunk.text for chunk in chunks).split())
    assert "The opening angle of the light cone is 5 × 5 deg^2." in text
    assert "deg[2]" not in text


def test_a_note_after_a_word_or_a_unit_without_a_number_stays_a_note():
    assert superscript("2", list("the planets"), None) == "[2]"
    assert superscript("3", list("in units of deg"), None) == "[3]"  # no number before the unit
    assert superscript("2", list("an area of 25 deg"), None) == "^2"


def test_an_operator_names_raised_number_is_its_power():
    # celerite's `\sin^2` in eq. (62) and `N \log^2 N` in its prose read `sin[2]`, `log[2]`: note marks
    pages = read_pages(FIXTURES_DIR / "papers" / "celerite_2017AJ_ms.pdf", max_pages=25)
    assert any("Γ sin^2((π τ)/P)" in line for line in pages[18].lines)
    assert any("scaling O(N log^2 N)" in line for line in pages[24].lines)
    assert not any("log[2]" in line or "sin[2]" in line for page in pages for line in page.lines)
    assert superscript("2", list("as sin"), None) == "^2"
    assert superscript("2", list("5 × 5 deg"), None) == "^2" and superscript("3", list("in units of deg"), None) == "[3]"


def test_the_star_marks_by_an_authors_name_are_note_marks():
    # escapetemp2018 (MNRAS): `Abel Méndez,^{1⋆}` (cmmi's ⋆, U+22C6, for `\thanks`) read as a power,
    # and its note `⋆ E-mail: ...` was no note: it stood in section 1 as a block of its own
    escape = _layout_lines("unseen4/escapetemp2018_p1-2-4.pdf")
    assert any("Abel Méndez,[1⋆] Jorge Zuluaga,[2]" in text for _, text in escape)
    assert ("Front matter", "⋆ E-mail: abel.mendez@upr.edu") in escape
    # the same for RevTeX's ∗ and MNRAS's ★ after a list of affiliations
    drop = _layout_lines("unseen4/dropimpact2024_p1-6-7.pdf")
    assert any("Vatsal Sanjay[1, ∗] and Detlef Lohse[1, 2, †]" in text for _, text in drop)


def _layout_lines(name: str) -> list[tuple[str, str]]:
    layout = pdf_layout(read_pages(FIXTURES_DIR / "papertext" / name))
    return [(line.section, line.text) for line in layout.lines]
