"""PDF to text by page and section, with PDFium (pypdfium2).

PDFium reads the emulateapj, AASTeX, MNRAS and RevTeX layouts of arXiv PDFs in reading order,
two columns included, about ten times faster than pypdf on the same papers; it also decodes
ligatures without fontTools and marks hyphenated line ends. What it does not know is
the paper's structure, so headings are found here: numbered headings ('1. INTRODUCTION',
'2.1. Incident Flux', '3 Observations', 'II. METHODS', 'A. Ordered phase') that continue the
outline, and the common unnumbered names (Abstract, References, Acknowledgments, Appendix).
Running heads ('2 Cowan & Agol') and arXiv's margin stamp are dropped.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

SOFT_HYPHEN = "\ufffe"  # PDFium's mark for a word hyphenated across a line end, lines already joined
_PDFIUM_LOCK = threading.Lock()
ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10,
         "XI": 11, "XII": 12, "XIII": 13, "XIV": 14, "XV": 15}
COMMON = {
    "abstract": "Abstract", "introduction": "Introduction", "references": "References",
    "bibliography": "References", "acknowledgments": "Acknowledgments", "acknowledgements": "Acknowledgments",
    "acknowledgment": "Acknowledgments", "acknowledgement": "Acknowledgments", "appendix": "Appendix",
    "conclusions": "Conclusions", "conclusion": "Conclusions", "summary": "Summary", "discussion": "Discussion",
    "observations": "Observations", "methods": "Methods", "results": "Results", "data": "Data",
    "summary and conclusions": "Summary and Conclusions", "discussion and conclusions": "Discussion and Conclusions",
}
_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(\S.{0,90})$")
_ROMAN_HEAD = re.compile(r"^([IVX]{1,4})\.\s+(\S.{0,90})$")
_LETTER_HEAD = re.compile(r"^([A-H])\.\s+(\S.{0,70})$")
_APPENDIX_HEAD = re.compile(r"^(APPENDIX|Appendix)\s+([A-H])\.?(?:\s+(\S.{0,80}))?$")
_STAMP = re.compile(r"^arXiv:\S+\s+\[[^\]]+\]\s+\d{1,2}\s+\w{3}\s+\d{4}$")
_SMALL = {"a", "an", "and", "of", "the", "in", "on", "for", "to", "with", "from", "by", "at", "as", "or", "&", "vs"}


class PdfError(Exception):
    """The file cannot be read as a PDF; one sentence for the model and the user."""


@dataclass
class Line:
    page: int
    text: str
    section: str


def read_pages(path: Path) -> list[str]:
    """The text of every page, in order. Any failure of PDFium becomes one PdfError sentence."""
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
            for index in range(len(document)):
                page = document[index]
                textpage = page.get_textpage()
                pages.append(textpage.get_text_range().replace(SOFT_HYPHEN, ""))
                textpage.close()
                page.close()
            return pages
        except pdfium.PdfiumError as exc:
            raise PdfError(f"{path.name} is damaged ({exc})") from None
        finally:
            document.close()


def running_heads(pages: list[list[str]]) -> set[str]:
    """Lines that open or close many pages (digits ignored): running heads and footers."""
    if len(pages) < 3:
        return set()
    counts: Counter[str] = Counter()
    for lines in pages:
        edge = {_shape(line) for line in lines[:2] + lines[-2:] if line.strip()}
        counts.update(edge)
    threshold = max(3, len(pages) // 4)
    return {shape for shape, n in counts.items() if n >= threshold}


def _shape(line: str) -> str:
    return re.sub(r"\d+", "#", line.strip())


def _mostly_upper(text: str) -> bool:
    words = re.findall(r"[A-Za-z]+", text)
    return bool(words) and sum(w.isupper() for w in words) * 3 >= len(words) * 2 and not text.endswith(".")


def _title_case(text: str) -> str:
    if text.upper() != text:
        return text
    words = text.title().split()
    return " ".join(w.lower() if i and w.lower() in _SMALL else w for i, w in enumerate(words))


def _looks_like_title(text: str) -> bool:
    """A heading: short, no sentence punctuation at the end, mostly capitalised words."""
    text = text.strip()
    if len(text) < 3 or text[-1] in ",;:" or text.endswith(("-", "–")) or text.count(",") > 1:
        return False
    words = re.findall(r"[A-Za-z][A-Za-z'’-]*", text)
    if not words or len(text.split()) > 12 or not text[0].isupper():
        return False
    if text.isupper():
        return True
    content = [w for w in words if w.lower() not in _SMALL]
    capital = sum(1 for w in content if w[0].isupper())
    return bool(content) and (capital / len(content) >= 0.6 or len(content) <= 2) and not text.endswith(".")


class Outline:
    """Accepts a heading only where it continues the outline (1, 1.1, 1.2, 2 ...), so footnotes and
    numbered lists ('1 CIERA Fellow', '2. We firmly rule out') are not taken for sections."""

    def __init__(self) -> None:
        self.numbers: list[int] = []
        self.style = ""  # "arabic" or "roman"
        self.letter = 0
        self.in_appendix = False

    def heading(self, line: str) -> str | None:
        text = line.strip()
        common = COMMON.get(text.lower().rstrip(".:").replace("&", "and"))
        if common and len(text) < 40:
            self.in_appendix = self.in_appendix or common == "Appendix"
            return common
        match = _APPENDIX_HEAD.match(text)
        if match:
            self.in_appendix = True
            rest = f" {_title_case(match.group(3))}" if match.group(3) else ""
            return f"Appendix {match.group(2)}{rest}"
        match = _NUMBERED.match(text)
        if match and self.style in ("", "arabic") and _looks_like_title(match.group(2)):
            numbers = [int(n) for n in match.group(1).split(".")]
            if self._continues(numbers):
                self.numbers, self.style = numbers, "arabic"
                return f"{match.group(1)} {_title_case(match.group(2))}"
        match = _ROMAN_HEAD.match(text)
        if match and match.group(1) in ROMAN and self.style in ("", "roman") and match.group(2).isupper():
            value = ROMAN[match.group(1)]
            if value == (self.numbers[0] + 1 if self.numbers else 1):
                self.numbers, self.style, self.letter = [value], "roman", 0
                return f"{match.group(1)}. {_title_case(match.group(2))}"
        match = _LETTER_HEAD.match(text)
        if match and self.style == "roman" and _looks_like_title(match.group(2)):
            if ord(match.group(1)) - 64 == self.letter + 1:
                self.letter += 1
                roman = next(k for k, v in ROMAN.items() if v == self.numbers[0])
                return f"{roman}.{match.group(1)} {match.group(2)}"
        return None

    def _continues(self, numbers: list[int]) -> bool:
        if not self.numbers:
            return numbers == [1] or (len(numbers) == 1 and numbers[0] <= 2)
        depth = len(numbers)
        current = self.numbers + [0] * max(0, depth - len(self.numbers))
        expected = current[: depth - 1] + [current[depth - 1] + 1]
        return numbers == expected


def pdf_lines(pages: list[str]) -> list[Line]:
    """Every text line with its page and the section it belongs to."""
    split = [[unicodedata.normalize("NFKC", line).rstrip() for line in text.splitlines()] for text in pages]
    heads = running_heads(split)
    outline = Outline()
    section = "Front matter"
    open_heading = False  # an upper-case heading may wrap onto the next line
    lines: list[Line] = []
    for number, page_lines in enumerate(split, start=1):
        for index, raw in enumerate(page_lines):
            text = raw.strip()
            if not text or _STAMP.match(text):
                continue
            at_edge = index < 2 or index >= len(page_lines) - 2
            if at_edge and (_shape(text) in heads or text.isdigit()):
                continue
            heading = outline.heading(text)
            if heading:
                section, open_heading = heading, text.isupper()
                continue
            if open_heading and _mostly_upper(text) and len(text) < 60 and not text[0].isdigit():
                section = f"{section} {_title_case(text)}"
                continue
            open_heading = False
            lines.append(Line(number, text, section))
    return lines
