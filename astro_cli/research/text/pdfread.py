"""PDF pages to lines of text with their font sizes, through PDFium (pypdfium2).

PDFium reads the emulateapj, AASTeX, MNRAS and RevTeX layouts of arXiv PDFs in reading order,
two columns included, about ten times faster than pypdf; it decodes ligatures and marks a hyphen
at a line end (the mark is kept here, hyphens.py decides it). Each line also carries the font size
of its text and of its first character: footnotes and RevTeX's reference list are set smaller
than the body and open with a smaller (superscript) mark, which is how pdftext.py tells them from
the running text.

Lines are not PDFium's own (it breaks a line wherever the baseline moves): pdfglyphs.py rebuilds
the visual lines from each character's box, baseline, size and font, and pdfscript.py writes them
so numbers keep their value (10^4, 1/2, `[3]` marks, table cells, math fonts named). What cannot
be read is said once per paper (`reading_notes`): pages without a text layer (scans), fonts
without a Unicode map, rotated text.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from astro_cli.research.text.pdfchars import normalize_line
from astro_cli.research.text.pdfwords import ionisation_states

_PDFIUM_LOCK = threading.Lock()
_LINE = re.compile(r"[^\r\n]+")
# TeX's \fnsymbol marks: ∗ (U+2217, not the ASCII *), †, ‡, §, ¶, ‖ and their doubles; MNRAS's \thanks: ★
# and ⋆ (U+22C6, cmmi's star, `$^{\star}$`)
MARK = re.compile(r"^(\d{1,3}(?:,\d{1,3})*|[*∗†‡§¶‖★⋆]+)(?=\s*\S|$)\s*")


class PdfError(Exception):
    """The file cannot be read as a PDF; one sentence for the model and the user."""


@dataclass
class PageText:
    lines: list[str] = field(default_factory=list)
    sizes: list[float] = field(default_factory=list)  # font size of the line's text (after a leading mark)
    marks: list[float] = field(default_factory=list)  # font size of its first character
    chars: int = 0  # characters PDFium found on the page (0: no text layer, a scan)
    unmapped: int = 0  # characters of fonts without a usable Unicode map
    rotated: int = 0  # characters set at an angle (a rotated table)
    scanned: bool = False  # no text but an image: a scan without a text layer


def read_pages(path: Path, max_pages: int | None = None) -> list[PageText]:
    """The lines of every page (or of the first `max_pages`), in order. Any failure of PDFium becomes
    one PdfError sentence. Untrusted input: astro calls this in a bounded child (pdf_limits.py)."""
    import pypdfium2 as pdfium

    if not path.exists():
        raise PdfError(f"the PDF {path.name} is missing from papers/")
    with path.open("rb") as handle:
        head = handle.read(1024)
    if b"%PDF-" not in head:
        raise PdfError(f"{path.name} is not a PDF (it does not start with %PDF-)")
    with _PDFIUM_LOCK:  # PDFium is not thread-safe, and tools may run in threads
        try:
            document = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError as exc:
            raise PdfError(f"{path.name} could not be read as a PDF ({exc})") from None
        try:
            pages = []
            count = len(document) if max_pages is None else min(len(document), max_pages)
            for index in range(count):
                page = document[index]
                textpage = page.get_textpage()
                try:
                    text = _page_text(textpage.raw, page)
                    text.scanned = text.chars == 0 and _has_image(page)
                    pages.append(text)
                finally:
                    textpage.close()
                    page.close()
            return pages
        except pdfium.PdfiumError as exc:
            raise PdfError(f"{path.name} is damaged ({exc})") from None
        finally:
            document.close()


def _page_text(textpage: Any, pdfpage: Any) -> PageText:
    """The page's visual lines (pdfglyphs.py), each written by pdfscript.py and normalised."""
    from astro_cli.research.text.pdfroots import set_reach
    from astro_cli.research.text.pdfruns import PlainLine, page_lines
    from astro_cli.research.text.pdfscript import render_line

    found = page_lines(textpage)
    set_reach(pdfpage, found.lines)
    page = PageText(chars=found.chars, unmapped=found.unmapped, rotated=found.rotated)
    for number, glyphs in enumerate(found.lines):
        if isinstance(glyphs, PlainLine):
            text, size, first = glyphs.text, glyphs.size, glyphs.first
        else:
            text, size, first = render_line(glyphs, found.references.get(number))
        line = ionisation_states(normalize_line(_utf16(text)).strip())
        if not line:
            continue
        page.lines.append(line)
        page.sizes.append(round(size, 1))
        page.marks.append(round(first, 1))
    return page


def _has_image(page: Any) -> bool:
    import pypdfium2.raw as raw

    return any(True for _ in page.get_objects(filter=(raw.FPDF_PAGEOBJ_IMAGE,), max_depth=2))


def _ranges(numbers: list[int]) -> str:
    """[1, 2, 3, 7] -> '1-3, 7'."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in spans)


def _pages(numbers: list[int]) -> str:
    """'page 3', 'pages 1-3, 7'."""
    return f"page {numbers[0]}" if len(numbers) == 1 else f"pages {_ranges(numbers)}"


def reading_notes(pages: list[PageText]) -> list[str]:
    """What the text of a PDF lacks, one sentence each: scans, fonts without Unicode, rotated text.
    The rest of the paper is indexed as read (pages past astro's limits: pdf_limits.py says so)."""
    notes = []
    scanned = [n for n, page in enumerate(pages, 1) if page.scanned]
    if scanned:
        notes.append(f"no text layer on {_pages(scanned)} (scanned images; astro does no OCR)")
    unmapped = [n for n, page in enumerate(pages, 1) if page.chars and page.unmapped * 10 >= page.chars]
    if unmapped:
        notes.append(f"fonts without a Unicode map on {_pages(unmapped)}: their text may be wrong")
    rotated = [n for n, page in enumerate(pages, 1) if page.rotated >= 40 and page.rotated * 3 >= page.chars]
    if rotated:
        notes.append(f"rotated text (a turned table?) on {_pages(rotated)} is read line by line as printed")
    return notes


def _utf16(text: str) -> str:
    """Rejoin surrogate pairs (mathematical letters beyond the first plane); lone halves go."""
    if text.isascii():
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").replace("\ufffd", "")
