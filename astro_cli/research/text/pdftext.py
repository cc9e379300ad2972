"""The structure of a PDF paper: its lines, each in its section, and the outline of its headings.

PDFium (pdfread.py) gives lines in reading order but knows nothing of a paper's structure, so it
is found here: numbered headings ('1. INTRODUCTION', '2.1. Incident Flux', '3 Observations',
'II. METHODS', 'A. Ordered phase') that continue the outline, and the common unnumbered names
(Abstract, References, Acknowledgments, Appendix). A numbered parent heading directly followed by
its first subsection has no text of its own but stays in the outline.

Footnotes are set smaller than the body and open with a smaller (superscript) mark: affiliation
notes go to the front matter, other notes to the end of the section they interrupt (never mid
sentence). A long run of such numbered notes that cite papers is RevTeX's reference list, which
has no heading. Running heads ('2 Cowan & Agol') and arXiv's margin stamp (also where it is glued
into a sentence) are dropped.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from astro_cli.research.text.hyphens import SOFT_HYPHEN
from astro_cli.research.text.pdfcaptions import CAPTION, move_captions
from astro_cli.research.text.pdffoot import foot_block
from astro_cli.research.text.pdfheads import class_head, class_line
from astro_cli.research.text.pdfpieces import mark_broken_displays
from astro_cli.research.text.pdfread import MARK, PageText, PdfError, read_pages
from astro_cli.research.text.pdfscript import APPROXIMATE, APPROXIMATE_END

__all__ = ["Line", "PdfLayout", "PdfError", "read_pages", "pdf_layout", "running_heads", "Outline"]

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
FRONT, REFERENCES, TABLES = "Front matter", "References", "Tables"
_NAMES = frozenset(COMMON.values())
_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(\S.{0,90})$")
_ROMAN_HEAD = re.compile(r"^([IVX]{1,4})\.\s+(\S.{0,90})$")
_LETTER_HEAD = re.compile(r"^([A-H])\.\s+(\S.{0,70})$")
_HEAD_OPENINGS = frozenset("IVXABCDEFGH")  # what _ROMAN_HEAD, _LETTER_HEAD and _APPENDIX_HEAD open with
_APPENDIX_HEAD = re.compile(r"^(APPENDIX|Appendix)\s+([A-H])\.?(?:\s+(\S.{0,80}))?$")
_STAMP = re.compile(r"\s*arXiv:(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})v\d+\s+\[[^\]]+\]\s+\d{1,2}\s+[A-Z][a-z]{2}\s+\d{4}")
_TABLE_HEAD = re.compile(r"^(TABLE|Table)\s+(\d{1,2}|[IVX]{1,5})\.?$")
_AFFILIATION = re.compile(r"Universit|Institut|Department|Observator|Laborator|College|Cent(?:er|re)\b|School|"
                          r"Faculty|Fellow|e-?mail|@|Academy", re.IGNORECASE)
_CITATION = re.compile(r"\b(?:1[89]|20)\d\d\b|\bet al\b|\b(?:ApJ|MNRAS|A&A|AJ|PASP|Nature|Science|Phys\.|Rev\.)")
# Affiliation marks set as superscripts glue to the author's name ('Tešanović1', 'Cowan1,2'), and a
# glued name is one word to the index: searching 'Tesanovic' must find it.
_AUTHOR_MARKS = re.compile(r"([^\W\d_]{3,})(\d{1,2}(?:,\s?\d{1,2})*)(?=[\s,]|$)")
_SMALL = {"a", "an", "and", "of", "the", "in", "on", "for", "to", "with", "from", "by", "at", "as", "or", "&", "vs"}
SMALLER = 0.5  # points below the body size that make a line smaller print (notes, references)


@dataclass
class Line:
    page: int
    text: str
    section: str
    starts_block: bool = False  # a paragraph of its own (a footnote), not running text
    size: float = 0.0  # its font size, for the lines of the running text (pdfcaptions.py)


@dataclass
class PdfLayout:
    lines: list[Line] = field(default_factory=list)
    outline: list[tuple[str, int]] = field(default_factory=list)  # every heading, text or not, with its page


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


def _names_line(text: str) -> bool:
    """A line of names (`Nicholas B. Cowan1, Eric Agol2`): most of its words are capitalised. A line of
    prose before the first heading (a page cut from a paper's middle) is not, and its `PyMC3` stays."""
    words = re.findall(r"[^\W\d_]+", text)
    return bool(words) and sum(w[0].isupper() for w in words) * 2 > len(words)


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
        common = COMMON.get(text.lower().rstrip(".:").replace("&", "and")) if len(text) < 40 else None
        if common:
            self.in_appendix = self.in_appendix or common == "Appendix"
            return common
        if not (text[:1].isdecimal() or text[:1] in _HEAD_OPENINGS):
            return None  # none of the numbered heads below can match (most lines of a page)
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


def body_size(pages: list[PageText]) -> float:
    """The font size most of the text is set in."""
    weights: Counter[float] = Counter()
    for page in pages:
        for line, size in zip(page.lines, page.sizes):
            weights[size] += len(line)
    return weights.most_common(1)[0][0] if weights else 0.0


class _Notes:
    """Footnote entries as they are read, decided when their block ends."""

    def __init__(self) -> None:
        self.block: list[list[Line]] = []  # entries of the open block, each a list of lines
        self.pending: list[Line] = []  # notes waiting for the end of their section
        self.last_number = 0

    def opens(self, text: str, size: float, mark: float, body: float, following: float) -> bool:
        """A smaller line opening with a smaller mark that continues the note numbering. A mark
        alone on its line (RevTeX sets some so) must be followed by smaller text and continue
        the numbering; a lone digit is far more often a subscript of display math."""
        found = MARK.match(text)
        if not found or not body or mark >= body - 2 * SMALLER:
            return False
        marker_only = found.end() >= len(text)
        text_size = following if marker_only else size
        if text_size >= body - SMALLER or mark >= text_size - SMALLER:
            return False
        number = found.group(1).split(",")[0]
        if number.isdigit():
            value = int(number)
            if value != self.last_number + 1 and (value != 1 or marker_only):
                return False
            self.last_number = value
        return True


def pdf_layout(pages: list[PageText]) -> PdfLayout:
    """Every text line with its page and section, and the outline of the paper's headings."""
    heads = running_heads([page.lines for page in pages])
    body = body_size(pages)
    outline = Outline()
    layout = PdfLayout()
    notes = _Notes()
    section = FRONT
    layout.outline.append((FRONT, 1))
    open_heading = False  # an upper-case heading may wrap onto the next line
    in_note = False

    def enter(name: str, page: int) -> None:
        nonlocal section
        _flush_pending(layout, notes, section)
        section = name
        layout.outline.append((name, page))

    def close_block() -> None:
        nonlocal section
        if not notes.block:
            return
        if _is_reference_list(notes.block):
            if section != REFERENCES:
                enter(REFERENCES, notes.block[0][0].page)
            for entry in notes.block:
                _add_entry(layout.lines, entry, REFERENCES, label="")
        else:
            for entry in notes.block:
                if entry[0].page == 1 and _AFFILIATION.search(" ".join(line.text for line in entry)):
                    _add_front(layout.lines, entry)
                else:
                    notes.pending.extend(_entry_lines(entry, section))
        notes.block = []

    for number, page in enumerate(pages, start=1):
        count = len(page.lines)
        skip_to = 0  # the end of a note read from a column's foot
        for index, raw in enumerate(page.lines):
            if index < skip_to:
                continue
            text = (_STAMP.sub("", raw) if "arXiv:" in raw else raw).strip()  # the stamp names itself
            if not text:
                continue
            at_edge = index < 2 or index >= count - 2
            if class_line(text) or at_edge and (_shape(text) in heads or text.isdigit() or class_head(text, _NAMES, index < 2)):
                continue
            size, mark = page.sizes[index], page.marks[index]
            following = page.sizes[index + 1] if index + 1 < count else 0.0
            if section not in (FRONT, TABLES) and notes.opens(text, size, mark, body, following):
                in_note = True
                notes.block.append([Line(number, text, section)])
                continue
            if in_note and body and size < body - SMALLER and not outline.heading(text) and not CAPTION.match(text):
                notes.block[-1].append(Line(number, text, section))
                continue
            if in_note:
                in_note = False
                close_block()
            last = layout.lines[-1] if layout.lines else None
            before = last.text if last and last.page == number and last.section == section \
                and abs(last.size - body) <= SMALLER else ""  # a body line, not a caption's
            skip_to = foot_block(page.lines, page.sizes, index, before, body, SMALLER) \
                if section not in (FRONT, TABLES, REFERENCES) and not CAPTION.match(text) else index
            if skip_to > index:
                entry = [Line(number, line.strip(), section) for line in page.lines[index:skip_to]]
                notes.pending.extend(_entry_lines(entry, section))
                continue
            if section == REFERENCES and _TABLE_HEAD.match(text):
                enter(TABLES, number)
                open_heading = False
            heading = outline.heading(text)
            if heading:
                enter(heading, number)
                open_heading = text.isupper()
                continue
            if open_heading and _mostly_upper(text) and len(text) < 60 and not text[0].isdigit():
                section = f"{section} {_title_case(text)}"
                layout.outline[-1] = (section, layout.outline[-1][1])
                continue
            open_heading = False
            if section == FRONT and _names_line(text):
                text = _AUTHOR_MARKS.sub(r"\1 \2", text)
            layout.lines.append(Line(number, text, section, size=size))
    close_block()
    _flush_pending(layout, notes, section)
    move_captions(layout.lines, body, SMALLER)
    join_hyphens(layout.lines)
    mark_broken_displays(layout.lines, body, SMALLER)
    _one_mark_per_formula(layout.lines)
    layout.outline = _kept_outline(layout)
    return layout


def _one_mark_per_formula(lines: list[Line]) -> None:
    """A display formula spans several lines, each enclosed in ⟦ ⟧ by pdfscript: one pair is enough
    (two spans that meet at a line's end are one)."""
    for n in range(1, len(lines)):
        if lines[n - 1].text.endswith(APPROXIMATE_END) and lines[n].text.startswith(APPROXIMATE) \
                and lines[n].section == lines[n - 1].section:
            lines[n - 1].text = lines[n - 1].text[: -len(APPROXIMATE_END)]
            lines[n].text = lines[n].text[len(APPROXIMATE):]


def _entry_lines(entry: list[Line], section: str) -> list[Line]:
    first = entry[0]
    found = MARK.match(first.text)
    label = found.group(1) if found else ""
    lines: list[Line] = []
    _add_entry(lines, entry, section, label=f"Footnote {label}: " if label else "Footnote: ")
    return lines


def _add_entry(lines: list[Line], entry: list[Line], section: str, label: str) -> None:
    """A note (or reference) as a paragraph of its own: its mark replaced by the label."""
    for n, line in enumerate(entry):
        text = line.text
        if n == 0:
            text = label + MARK.sub("", text) if label else text
        lines.append(Line(line.page, text, section, starts_block=n == 0))


def _add_front(lines: list[Line], entry: list[Line]) -> None:
    """An affiliation note joins the front matter, after its last line."""
    at = max((n + 1 for n, line in enumerate(lines) if line.section == FRONT), default=0)
    added: list[Line] = []
    _add_entry(added, entry, FRONT, label="")
    lines[at:at] = added


def _flush_pending(layout: PdfLayout, notes: _Notes, section: str) -> None:
    """Footnotes go after the last line of the section they were read in."""
    if notes.pending:
        layout.lines.extend(Line(n.page, n.text, section, n.starts_block) for n in notes.pending)
        notes.pending = []


def _is_reference_list(block: list[list[Line]]) -> bool:
    cites = sum(1 for entry in block if _CITATION.search(" ".join(line.text for line in entry)))
    return len(block) >= 4 and cites * 3 >= len(block) * 2


def _kept_outline(layout: PdfLayout) -> list[tuple[str, int]]:
    """Headings with text, and numbered parents whose text is all in their subsections."""
    with_text = {line.section for line in layout.lines}
    kept: list[tuple[str, int]] = []
    for n, (name, page) in enumerate(layout.outline):
        number = name.split(" ", 1)[0].rstrip(".")
        parent = any(later.startswith(number + ".") for later, _ in layout.outline[n + 1:]) if number else False
        if (name in with_text or parent) and (not kept or kept[-1][0] != name):
            kept.append((name, page))
    return kept


def join_hyphens(lines: list[Line]) -> None:
    """Decide every hyphen at a line end (hyphens.py), the document's own words as the witness.

    A line ending in PDFium's mark (at a page end, or where the arXiv stamp was cut out) or in a
    plain hyphen before a lower-case word takes the first word of the next line, so each line
    holds whole words and is decided on its own.
    """
    from astro_cli.research.text.hyphens import HyphenResolver

    for line, following in zip(lines, lines[1:]):
        if following.starts_block or following.section != line.section:
            continue
        text = line.text
        plain = text.endswith("-") and len(text) > 1 and text[-2].isalpha() and following.text[:1].islower()
        if text.endswith(SOFT_HYPHEN) or plain:
            word, _, rest = following.text.partition(" ")
            line.text = text.rstrip("-" + SOFT_HYPHEN) + SOFT_HYPHEN + word
            following.text = rest
    if any(SOFT_HYPHEN in line.text for line in lines):
        resolver = HyphenResolver("\n".join(line.text for line in lines))
        for n, line in enumerate(lines):
            line.text = resolver.resolve(line.text, lines[n + 1].text if n + 1 < len(lines) else "")
    lines[:] = [line for line in lines if line.text.strip()]
