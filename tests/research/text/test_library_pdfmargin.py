"""Issue 44: a manuscript's margin line numbers (AASTeX `linenumbers`) never enter its text, on the
authors' own PDF of Bouma et al. 2022 (rudolf, tests/fixtures/papertext/unseen/PROVENANCE.md); a
reference list's numbers, a column of small increasing integers too, stay."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pypdfium2 as pdfium

from astro_cli.research.text.pdflines import page_glyphs
from astro_cli.research.text.pdfread import read_pages
from astro_cli.research.text.pdfruns import PlainLine, page_lines
from astro_cli.research.text.pdfscript import render_line
from tests.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR
RUDOLF = FIXTURES / "papertext" / "unseen" / "rudolf2022_p7-8-12.pdf"


@cache
def _lines(path: Path, number: int) -> tuple[str, ...]:
    return tuple(read_pages(path, max_pages=number)[number - 1].lines)


def test_margin_line_numbers_stay_out_of_values_and_sentences():
    page = "\n".join(_lines(RUDOLF, 2))
    # the number of the line that holds the lower error stood between it and its value:
    # `130^{+6} 438 _{−5}` (a value 438 beside 130, the lower error cut loose)
    assert "EW_{Li} = 130_{−5}^{+6} mÅ," in page
    assert "usual techniques of the California Planet Survey (Howard" in page  # was '420 usual techniques'
    numbered = [line for n in (1, 2, 3) for line in _lines(RUDOLF, n) if re.match(r"\d{3} \S", line)]
    assert numbered == []  # 365-744 opened every line of both columns
    assert "For CH-2, 13/19 stars have rotation periods that are obvi" in "\n".join(_lines(RUDOLF, 1))


def test_a_reference_lists_numbers_stay():
    # RevTeX's numbered references: small, increasing, one left edge, but raised against their text
    page = _lines(FIXTURES / "papers" / "arXiv_1111.2011v2_cond-mat.pdf", 8)
    assert "7 J. M. Murray and Z. Tešanović, Phys. Rev. Lett. 105," in page
    assert "8 E. Arrigoni, Phys. Rev. Lett. 83, 128 (1999); E. Arrigoni," in page


def test_the_careful_path_drops_the_same_numbers():
    document = pdfium.PdfDocument(str(RUDOLF))
    try:
        for number in range(len(document)):
            page = document[number]
            fast_page, careful_page = page.get_textpage(), page.get_textpage()
            fast, careful = page_lines(fast_page.raw), page_glyphs(careful_page.raw)
            known = fast.references
            written = [(line.text, line.size, line.first) if isinstance(line, PlainLine)
                       else render_line(line, known.get(n)) for n, line in enumerate(fast.lines)]
            assert written == [render_line(line) for line in careful.lines], f"page {number + 1}"
            fast_page.close()
            careful_page.close()
            page.close()
    finally:
        document.close()


ATLAS = FIXTURES / "papertext" / "unseen3" / "atlas2025_p2-4-5.pdf"


def test_a_margin_number_that_closes_a_line_takes_its_space_along():
    # AASTeX 7 (Seligman et al. 2025, unseen3/PROVENANCE.md): PDFium gives `∼ 10`, a space, the margin's
    # `91`, a line end and then the raised `3`. The number went, its space stayed, and the power
    # after a space was read as a note mark: `∼ 10 [3] Myr`, an age of 10 Myr, not 10^3 Myr.
    lines = _lines(ATLAS, 1)
    assert "∼ 10^2 and ∼ 10^3 Myr (Mamajek 2017; Gaidos et al." in lines
    assert not any("[3]" in line for line in lines)
