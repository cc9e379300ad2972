"""Issue 29, speed: plain lines of a PDF page are read from PDFium's text in one call, per-character
questions only where a line is unusual (pdfruns.py). The text must be exactly what the careful
path (every character asked about: pdflines.page_glyphs) writes, on every page of every fixture."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest

from astro_cli.research.text.pdflines import page_glyphs
from astro_cli.research.text.pdfruns import PlainLine, page_lines
from astro_cli.research.text.pdfscript import render_line
from tests.paths import FIXTURES_DIR

PAPERS = FIXTURES_DIR / "papers"
PDFS = sorted(p.name for p in PAPERS.glob("*.pdf"))


def _written(found) -> list[tuple[str, float, float]]:
    out = []
    known = getattr(found, "references", {})  # the fast path's (size, baseline) of one-piece lines
    for number, line in enumerate(found.lines):
        if isinstance(line, PlainLine):
            out.append((line.text, line.size, line.first))
        else:
            out.append(render_line(line, known.get(number)))
    return out


@pytest.mark.parametrize("name", PDFS)
def test_the_fast_path_writes_what_the_careful_path_writes(name):
    document = pdfium.PdfDocument(str(PAPERS / name))
    try:
        for number in range(len(document)):
            page = document[number]
            fast_page, careful_page = page.get_textpage(), page.get_textpage()
            fast, careful = page_lines(fast_page.raw), page_glyphs(careful_page.raw)
            assert _written(fast) == _written(careful), f"{name} page {number + 1}"
            assert (fast.chars, fast.rotated) == (careful.chars, careful.rotated)
            fast_page.close()
            careful_page.close()
            page.close()
    finally:
        document.close()


def test_plain_prose_lines_skip_the_per_character_questions():
    """Most lines of an A&A paper are prose in one font and size: they come as PDFium's text."""
    document = pdfium.PdfDocument(str(PAPERS / "feiden_2016AA_ms.pdf"))
    try:
        page = document[1]
        textpage = page.get_textpage()
        lines = page_lines(textpage.raw).lines
        plain = [line for line in lines if isinstance(line, PlainLine)]
        assert len(plain) * 2 > len(lines), f"{len(plain)} of {len(lines)} lines read plainly"
        assert any("stellar" in line.text for line in plain)
        textpage.close()
        page.close()
    finally:
        document.close()


def _plain_lines(name: str, number: int) -> list[str]:
    return [line.text for line in _plain(name, number)]


def _plain(name: str, number: int) -> list[PlainLine]:
    document = pdfium.PdfDocument(str(PAPERS / name))
    try:
        page = document[number - 1]
        textpage = page.get_textpage()
        lines = [line for line in page_lines(textpage.raw).lines if isinstance(line, PlainLine)]
        textpage.close()
        page.close()
        return lines
    finally:
        document.close()


def test_inline_symbols_values_small_capitals_and_scripts_are_read_from_their_runs():
    """Issue 29, third round: a line with a math-font symbol on its text's baseline, a reference
    whose words are mostly numbers, a heading in small capitals and prose with scripts and marks are
    written from their runs without asking about each character (the comparison above checks that the
    careful path writes the same)."""
    assert "orbit ∼ 100× closer to their host stars than Jupiter does" in _plain_lines(
        "arXiv_1001.0012v2_astro-ph.EP.pdf", 1)
    assert "spacetime dimension d + 1 ≥ 1:" in _plain_lines("arXiv_1111.2011v2_cond-mat.pdf", 2)
    assert "Basu, S. 1998, MNRAS, 298, 719" in _plain_lines("feiden_2016AA_ms.pdf", 11)
    assert "New J. Phys. 13, 075013 (2011)." in _plain_lines("arXiv_1111.2011v2_cond-mat.pdf", 8)
    heading = next(line for line in _plain("arXiv_1001.0012v2_astro-ph.EP.pdf", 4) if line.text == "3. ANALYSIS")
    assert (round(heading.size, 1), round(heading.first, 1)) == (8.0, 9.0)  # small capitals after a 9 pt number
    assert "Figure 3. The same as Figure 2 but using the lapack solver with the MKL BLAS library." in _plain_lines(
        "celerite_2017AJ_ms.pdf", 11)
    # subscripts in running text, written from the runs as pdfscript writes them
    assert "ture, which is T_{eff} = 1927 K for the current example." in _plain_lines(
        "arXiv_1001.0012v2_astro-ph.EP.pdf", 5)
    assert "gle wavelength can indeed be extrapolated to obtain A_B." in _plain_lines(
        "arXiv_1001.0012v2_astro-ph.EP.pdf", 2)
    # an exponent, and a footnote opening with its smaller mark (its first character's size kept apart)
    first_page = _plain("arXiv_1001.0012v2_astro-ph.EP.pdf", 1)
    assert "from the Sun. As a result, they receive ∼ 10^4× more flux" in [line.text for line in first_page]
    note = next(line for line in first_page if line.text.startswith("1 CIERA Fellow"))
    assert (note.text, round(note.size, 1), round(note.first, 1)) == (
        "1 CIERA Fellow, Northwestern University, 2131 Tech Dr,", 8.0, 6.0)
