"""Issue 44: a hyphen at a line end is taken out only when the word list (or the paper) knows the
joined word, on the authors' own PDF of Davenport & Covey 2018 (tests/fixtures/papertext/unseen2,
PROVENANCE.md)."""

from __future__ import annotations

from astro_cli.research.library.parse import pdf_chunks
from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

GAIA2ROT = FIXTURES_DIR / "papertext" / "unseen2" / "gaia2rot2018_p4.pdf"


def test_a_compound_of_two_short_words_keeps_its_hyphen_at_a_line_end():
    chunks, _ = pdf_chunks(read_pages(GAIA2ROT), 1200)
    text = " ".join(" ".join(chunk.text for chunk in chunks).split())
    # `by-` ends a line and `hand.` opens the next: `byhand` is no word, so the hyphen is the author's
    assert "and was chosen by-hand. Single, main sequence stars" in text
    assert "byhand" not in text
