"""PDF pages to lines of text with their font sizes, through PDFium (pypdfium2).

PDFium reads the emulateapj, AASTeX, MNRAS and RevTeX layouts of arXiv PDFs in reading order,
two columns included, about ten times faster than pypdf; it decodes ligatures and marks a hyphen
at a line end (the mark is kept here, hyphens.py decides it). Each line also carries the font size
of its text and of its first character: footnotes and RevTeX's reference list are set smaller
than the body and open with a smaller (superscript) mark, which is how pdftext.py tells them from
the running text. Raw TeX glyph codes (big delimiters, `≪`) are named from the font they came from.
"""

from __future__ import annotations

import ctypes
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from astro_cli.research.pdfchars import glyph_for, normalize_line

_PDFIUM_LOCK = threading.Lock()
_LINE = re.compile(r"[^\r\n]+")
_CONTROL = re.compile(r"[\x00-\x1f]")
MARK = re.compile(r"^(\d{1,3}(?:,\d{1,3})*|[*†‡§¶]+)(?=\s*\S|$)\s*")


class PdfError(Exception):
    """The file cannot be read as a PDF; one sentence for the model and the user."""


@dataclass
class PageText:
    lines: list[str] = field(default_factory=list)
    sizes: list[float] = field(default_factory=list)  # font size of the line's text (after a leading mark)
    marks: list[float] = field(default_factory=list)  # font size of its first character


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
                    pages.append(_page_text(textpage.raw))
                finally:
                    textpage.close()
                    page.close()
            return pages
        except pdfium.PdfiumError as exc:
            raise PdfError(f"{path.name} is damaged ({exc})") from None
        finally:
            document.close()


def _page_text(textpage: Any) -> PageText:
    import pypdfium2.raw as raw

    count = raw.FPDFText_CountChars(textpage)
    if count <= 0:
        return PageText()
    buffer = (ctypes.c_ushort * (2 * count + 2))()
    # One str character per UTF-16 unit, so an index here is PDFium's text index (surrogate pairs
    # are rejoined per line).
    written = raw.FPDFText_GetText(textpage, 0, count, buffer)
    text = "".join(map(chr, buffer[: max(0, written - 1)]))
    page = PageText()
    for found in _LINE.finditer(text):
        piece = found.group(0)
        start = found.start() + len(piece) - len(piece.lstrip())
        line = normalize_line(_utf16(_name_glyphs(textpage, piece, found.start()))).strip()
        if not line:
            continue
        mark = MARK.match(piece.lstrip())
        first = _font_size(textpage, start)
        page.lines.append(line)
        page.marks.append(first)
        rest = mark.end() if mark is not None and mark.end() < len(piece.strip()) else 0
        page.sizes.append(_font_size(textpage, start + rest) if rest else first)
    return page


def _name_glyphs(textpage: Any, piece: str, offset: int) -> str:
    """Control characters are raw font codes: name them from their font's table, else a space."""
    if not _CONTROL.search(piece):
        return piece
    import pypdfium2.raw as raw

    chars = list(piece)
    name = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    for index, char in enumerate(chars):
        if ord(char) >= 32:
            continue
        at = raw.FPDFText_GetCharIndexFromTextIndex(textpage, offset + index)
        font = ""
        if at >= 0 and raw.FPDFText_GetFontInfo(textpage, at, name, len(name), ctypes.byref(flags)) > 0:
            font = name.value.decode("latin-1")
        chars[index] = glyph_for(ord(char), font)
    return "".join(chars)


def _font_size(textpage: Any, text_index: int) -> float:
    import pypdfium2.raw as raw

    at = raw.FPDFText_GetCharIndexFromTextIndex(textpage, text_index)
    return round(float(raw.FPDFText_GetFontSize(textpage, at)), 1) if at >= 0 else 0.0


def _utf16(text: str) -> str:
    """Rejoin surrogate pairs (mathematical letters beyond the first plane); lone halves go."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").replace("\ufffd", "")
