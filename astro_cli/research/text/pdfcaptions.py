"""Captions that PDFium reads in the middle of a sentence of the body go after that sentence.

A figure at the top of a page comes first in PDFium's reading order: its labels, its caption, and
then the rest of a sentence that began on the page before ("... Operating with spectral" /
Figure 4's axis labels and caption / "resolving power R = 44000, ..."). Such a block is set in
other sizes than the body (a caption is smaller, axis labels differ), so it is found by size: a
caption line ("Figure 4.", "Table 2:") in a size other than the body's, with the lines around it
that are not in the body size on the same page (a figure's labels above it, a table's rows and
notes below it: AASTeX's tables sit mid-column, inside a sentence that goes on over the page). When the body line before it does not end a
sentence and the one after it does not begin one, the block moves after the first body line that
ends the sentence, as a paragraph of its own; nothing is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, TypeVar

CAPTION = re.compile(r"^(?:Figure|FIGURE|Fig\.|FIG\.|Table|TABLE)\s*(?:\d{1,3}|[IVX]{1,5})[.:]?(?:\s|$)")
_SENTENCE_END = re.compile(r"[.!?][)\]’”'\"]*$")
_HEADING = re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.?\s+[A-Z]")  # '3. ASSESSMENT ...' begins no sentence's rest
MAX_LINES = 40  # the sentence must end within this many body lines after the block


class _Line(Protocol):
    page: int
    text: str
    section: str
    size: float
    starts_block: bool


L = TypeVar("L", bound=_Line)


def move_captions(lines: list[L], body: float, smaller: float) -> None:
    """Move each caption block that cuts a sentence in two after the end of that sentence (in place)."""
    def on_body(line: L) -> bool:
        return bool(line.size) and abs(line.size - body) <= smaller

    def off_body(line: L) -> bool:
        return bool(line.size) and abs(line.size - body) > smaller

    i = 0
    while i < len(lines):
        line = lines[i]
        if not body or not CAPTION.match(line.text) or not off_body(line):
            i += 1
            continue
        start, end = i, i + 1
        while start > 0 and off_body(lines[start - 1]) and lines[start - 1].page == line.page \
                and lines[start - 1].section == line.section:
            start -= 1
        while end < len(lines) and abs(lines[end].size - line.size) < 0.2 and lines[end].page == line.page \
                and not CAPTION.match(lines[end].text):
            end += 1
        while end < len(lines) and off_body(lines[end]) and lines[end].page == line.page \
                and lines[end].section == line.section and not CAPTION.match(lines[end].text):
            end += 1  # a table's rows and notes, set under its caption in other sizes
        target = _sentence_end(lines, start, end, on_body)
        if target is None:
            i = end
            continue
        block = lines[start:end]
        del lines[start:end]
        at = target - len(block) + 1
        block[0].starts_block = True
        lines[at:at] = block
        if at < len(lines) - len(block):
            lines[at + len(block)].starts_block = True
        i = at + len(block)


def _sentence_end(lines: list[L], start: int, end: int, body_line: Callable[[L], bool]) -> int | None:
    """The index of the body line that ends the sentence the block at start..end-1 interrupts, or
    None when it interrupts none."""
    if start == 0 or end >= len(lines):
        return None
    before, after = lines[start - 1], lines[end]
    section = before.section
    if not (body_line(before) and body_line(after)) or after.section != section:
        return None
    if _SENTENCE_END.search(before.text.rstrip()) or not after.text[:1] or after.text[:1].isupper() \
            or _HEADING.match(after.text):
        return None
    for k in range(end, min(len(lines), end + MAX_LINES)):
        line = lines[k]
        if line.section != section or not body_line(line):
            return None
        if _SENTENCE_END.search(line.text.rstrip()):
            return k
    return None
