"""Issue 44, stop 53 follow-up (unseen4, development since the lead scored it once): a block of
smaller print at a column's foot that cuts a sentence of the body is a note (pdffoot.py)."""

from __future__ import annotations

from astro_cli.research.text.pdfread import read_pages
from astro_cli.research.text.pdftext import pdf_layout
from tests.paths import FIXTURES_DIR

PAPERTEXT = FIXTURES_DIR / "papertext"


def _text(path: str) -> str:
    return " ".join(line.text for line in pdf_layout(read_pages(PAPERTEXT / path, max_pages=1)).lines)


def test_a_corresponding_author_block_at_a_column_foot_leaves_the_sentence_it_cut():
    # AASTeX's \correspondingauthor sits under the left column's last line, "... the
    # metallicity-dependent cosmic", and PDFium reads it before the right column's "star formation history"
    text = _text("unseen4/sfrd2023_p1-3-7.pdf")
    assert "the metallicity-dependent cosmic star formation history (S(Z, z), see also" in text
    assert "cosmic Corresponding author" not in text
    # kept, as a note of its section: nothing read is lost
    assert "Footnote: Corresponding author: L. van Son lieke.van.son@cfa.harvard.edu" in text


def test_smaller_print_that_does_not_cut_a_sentence_stays_where_it_is():
    # a figure's caption continued in the next column is no note, nor is a front-matter line
    lines = [line.text for line in pdf_layout(read_pages(PAPERTEXT / "unseen3" / "cmbdelens2017_p1-3-6.pdf")).lines]
    assert not any(line.startswith("Footnote: FIG.") for line in lines)
