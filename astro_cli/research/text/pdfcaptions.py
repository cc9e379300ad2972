"""Floats that PDFium reads inside the body's prose go after their section's prose.

A figure at the top of a page comes first in PDFium's reading order: its labels, its caption, and
then the rest of a sentence that began on the page before ("... Operating with spectral" /
Figure 4's axis labels and caption / "resolving power R = 44000, ..."); a table set mid-column
cuts a sentence or stands between two paragraphs. Such a block is set in other sizes than the
body (a caption is smaller, axis labels differ), so it is found by size: a caption line ("Figure
4.", "Table 2:") in a size other than the body's, with the lines around it that are not in the body
size on the same page (a figure's labels above it, a table's rows and notes below it). When body
lines of its section stand before and after it, the block moves to the end of the section, as a
paragraph of its own, where the LaTeX reader puts floats (latex_markup.floats_last): the prose
reads on, and a passage is the same from either source. Nothing is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, TypeVar

CAPTION = re.compile(r"^(?:Figure|FIGURE|Fig\.|FIG\.|Table|TABLE)\s*(?:\d{1,3}|[IVX]{1,5})[.:]?(?:\s|$)")
# where another float's caption begins: its number closed by a stop or a colon, or `(continued)`; a
# caption's own line may open with `Figure 2 showed ...`
_NEXT_CAPTION = re.compile(r"^(?:Figure|FIGURE|Fig\.|FIG\.|Table|TABLE)\s*(?:\d{1,3}|[IVX]{1,5})(?:[.:]|\s+\(?continued)")


class PageLine(Protocol):
    """What the caption and display passes read of a line of the page (pdftext's line records)."""

    page: int
    text: str
    section: str
    size: float
    starts_block: bool


L = TypeVar("L", bound=PageLine)


def move_captions(lines: list[L], body: float, smaller: float) -> None:
    """Move each float that stands inside its section's prose to the end of the section (in place)."""
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
                and not _NEXT_CAPTION.match(lines[end].text):
            end += 1
        while end < len(lines) and off_body(lines[end]) and lines[end].page == line.page \
                and lines[end].section == line.section and not _NEXT_CAPTION.match(lines[end].text):
            end += 1  # a table's rows and notes, set under its caption in other sizes
        # inside a sentence or between two paragraphs: after the section's prose, as LaTeX is read
        target = _section_end(lines, start, end, on_body)
        if target is None:
            i = end
            continue
        block = lines[i:end] + lines[start:i]  # the caption first: the float is read, and chunked, from it
        del lines[start:end]
        at = target - len(block) + 1
        block[0].starts_block = True
        lines[at:at] = block
        if at < len(lines) - len(block):
            lines[at + len(block)].starts_block = True
        i = start  # the lines after the block came up: the next float may be among them


def _section_end(lines: list[L], start: int, end: int, body_line: Callable[[L], bool]) -> int | None:
    """The last line of the section a float stands in between two paragraphs of its body, as the
    LaTeX reader places floats (latex_markup.floats_last): the prose reads on without it. None when
    it stands elsewhere (its section's start or end, beside a heading)."""
    if start == 0 or end >= len(lines):
        return None
    before, after = lines[start - 1], lines[end]
    section = before.section
    if not (body_line(before) and body_line(after)) or after.section != section or lines[start].section != section:
        return None
    last = end
    while last + 1 < len(lines) and lines[last + 1].section == section:
        last += 1
    return last
