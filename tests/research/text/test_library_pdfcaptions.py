"""Issue 29, accuracy on the AASTeX 6.2 (Kepler smear) and A&A (Feiden) fixture PDFs: a figure's
caption and labels that PDFium reads in the middle of a sentence go after that sentence, and table
rows keep their cells when the cells are set closer than a fixed threshold."""

from __future__ import annotations

import pytest

from astro_cli.research.library.parse import pdf_chunks
from astro_cli.research.text.pdfread import read_pages
from tests.paths import FIXTURES_DIR

PAPERS = FIXTURES_DIR / "papers"


@pytest.fixture(scope="module")
def smear() -> str:
    chunks, _ = pdf_chunks(read_pages(PAPERS / "smear_2019ApJS_ms.pdf"), 1200)
    return "\n".join(chunk.text for chunk in chunks)


@pytest.fixture(scope="module")
def feiden() -> str:
    chunks, _ = pdf_chunks(read_pages(PAPERS / "feiden_2016AA_ms.pdf"), 1200)
    return "\n".join(chunk.text for chunk in chunks)


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_caption_at_the_top_of_a_page_does_not_cut_the_sentence_it_interrupts(smear):
    text = _flat(smear)
    assert ("Operating with spectral resolving power R = 44000, we have obtained spectra with a mean "
            "signal-to-noise ratio") in text
    caption = text.index("Figure 4. Histogram over overlap integrals")
    # the caption (and its figure's axis label) follow the sentence, whole
    assert caption > text.index("a number comparable to the 36 of the Gaia benchmark")
    assert "for which there is a significant possibility of contamination." in text[caption:caption + 400]


def test_a_row_of_values_keeps_its_cells_when_they_are_set_close(smear):
    # cells 1.05 to 1.2 em apart, the spaces around ± 0.3 em: the row's own spaces decide
    assert "HD 175740 | 5.93 ± 0.01 | 64.33 ± 0.78 | 1.00 ± 0.02" in smear
    assert "BD+39 3577 | 1.68 ± 0.01 | 13.27 ± 0.32 | 0.74 ± 0.06" in smear
    assert "HD 175740 5.93" not in smear


def test_a_header_row_whose_gaps_are_all_wide_is_a_row_of_cells(feiden):
    assert "Parameter | Adopted | Model | Ref" in feiden
    assert "Age (Gyr) | 4.567 | · · · | 1" in feiden
    assert "M_⊙ (g) | 1.9891 × 10^{33}" in feiden
    assert "(Z/X)_{surf} | 0.0231 | 0.0231 | 6" in feiden


def test_numbered_equations_and_prose_gain_no_cells():
    chunks, _ = pdf_chunks(read_pages(PAPERS / "celerite_2017AJ_ms.pdf"), 1200)
    text = "\n".join(chunk.text for chunk in chunks)
    assert "k(τ_{nm}) = σ_n^2δ_{nm} + a exp(−c τ_{nm}) . (19)" in text  # the '.' and '(19)' set apart
    assert "| (19)" not in text and "| . |" not in text


def test_a_table_under_its_caption_does_not_cut_the_sentence_it_interrupts():
    # Issue 44, stop 53 (rudolf2022, tests/fixtures/papertext/unseen): AASTeX sets Table 1 mid-column,
    # after "The acquisition and analysis followed the"; its caption, 7 pt rows and notes filled the
    # page and the sentence went on at the top of the next ("usual techniques of the California
    # Planet Survey"). The block was the caption alone, so the rows stayed inside the sentence.
    chunks, _ = pdf_chunks(read_pages(FIXTURES_DIR / "papertext" / "unseen" / "rudolf2022_p7-8-12.pdf"), 1200)
    text = _flat("\n".join(chunk.text for chunk in chunks))
    assert "The acquisition and analysis followed the usual techniques of the California Planet Survey" in text
    table = text.index("Table 1. Selected system parameters of Kepler-1643")
    assert table > text.index("This approach also yielded [Fe/H] = 0.13 ± 0.09.")
    assert "Parameter | Value | Uncertainty | Comment" in text[table:table + 200]  # the rows go with it


def test_a_numbered_heading_after_a_table_is_no_rest_of_a_sentence():
    # a table closing a page before `3. ASSESSMENT OF ...` (timmy2020) stays before the heading
    chunks, _ = pdf_chunks(read_pages(FIXTURES_DIR / "papertext" / "unseen" / "timmy2020_p9-17-20.pdf"), 1200)
    text = _flat("\n".join(chunk.text for chunk in chunks))
    assert text.index("Table 2 (continued)") < text.index("3. ASSESSMENT OF FALSE POSITIVE SCENARIOS")


def test_a_moved_float_is_a_chunk_of_its_own_from_its_caption():
    # smear (AASTeX): Figure 3's axis labels and caption stood between two paragraphs; moved after the
    # section's prose, the float opens with its caption (its labels after it) and is a chunk of its own.
    # Its caption's second line opens `Figure 2 showed that ...`: no new caption (no stop after the 2).
    chunks, _ = pdf_chunks(read_pages(PAPERS / "smear_2019ApJS_ms.pdf"), 1500)
    [figure] = [c for c in chunks if "Time series of Quarters 12-13" in c.text]
    text = _flat(figure.text)
    assert text.startswith("Figure 3. Time series of Quarters 12-13 of HD 181778 and HD 183383")
    assert "but Figure 2 showed that in its power spectrum" in text
    assert "Relative Flux HD 181778" in text  # its labels follow it
