"""Issue 44, stop 53: a raised 2 or 3 after a unit of length or angle that follows a number is the
unit's power, not a note mark (pdfpowers.superscript). Real pages of tests/fixtures/papertext."""

from __future__ import annotations

from astro_cli.research.library.parse import pdf_chunks
from astro_cli.research.text.pdfpowers import superscript
from astro_cli.research.text.pdfread import read_pages
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
