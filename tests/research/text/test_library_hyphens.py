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


def test_a_surname_broken_at_a_line_end_in_a_citation_is_one_name():
    # Issue 44, stop 53 (atlas2025, AASTeX): "(Jordi et al. 2006; Holm-" / "berg et al. 2006)" read
    # `Holm-berg`: both halves are English words, so the word list took it for a compound. A capital,
    # then a lower-case half, then `et al.`, `& B` or a year: TeX broke one name.
    from astro_cli.research.text.hyphens import HyphenResolver
    from astro_cli.research.text.pdfread import read_pages
    from astro_cli.research.text.pdftext import pdf_layout
    from tests.paths import FIXTURES_DIR

    layout = pdf_layout(read_pages(FIXTURES_DIR / "papertext" / "unseen3" / "atlas2025_p2-4-5.pdf"))
    assert any(line.text.endswith("(Jordi et al. 2006; Holmberg") for line in layout.lines)
    resolver = HyphenResolver("", words=lambda word: word in {"holm", "berg", "based", "kepler", "analysis"})
    assert resolver.resolve("Smith & Holm\ufffeberg", after="2006") == "Smith & Holmberg"
    assert resolver.resolve("the Kepler\ufffebased", after="analysis of 2006 data") == "the Kepler-based"
    assert resolver.resolve("Almeida\ufffeFernandes", after="& Rocha-Pinto 2018") == "Almeida-Fernandes"
