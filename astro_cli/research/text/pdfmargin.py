"""Margin line numbers (AASTeX's `linenumbers`, the `lineno` package) never enter a page's text.

A submitted manuscript prints a number beside every line. PDFium gives each number as a word of the
line it stands beside, so without this rule it is read into the sentence (`420 usual techniques`)
and even between a value and its lower error (`130^{+6} 438 _{−5}`, issue 44). The numbers are
recognised by what they are, never by a paper's name: a column of words that are all digits, with
one left edge and one size, whose values go up by one line by line down the page, set much smaller
than the text beside them. A table's column of row numbers has the size of its row, so it stays.
"""

from __future__ import annotations

import re
from collections import defaultdict
from statistics import median

from astro_cli.research.text.hyphens import SOFT_HYPHEN
from astro_cli.research.text.pdfglyphs import CharReader

_NUMBER = re.compile("(?<![^\\s\ufffe])\\d{1,5}(?![^\\s\ufffe])")  # a word that is all digits
_AFTER_LINE_END = re.compile("\n(\\d{1,5}) ")
_AFTER_BREAK = re.compile(SOFT_HYPHEN + "(\\d{1,5}) ")
_LINE_END = frozenset("\r\n\ufffe")
MIN_LINES = 6  # numbers in a column before it is taken for margin numbers
_STEPS = 0.8  # of the steps down the column, this share goes up by exactly one
_SMALLER = 0.75  # a margin number is at most this size of the text beside it


def margin_numbers(reader: CharReader, text: str) -> list[tuple[int, int]]:
    """The character spans (start, end) of the page's margin line numbers, each with the spaces PDFium
    put around it (_span), in page order; [] on a page without them (most pages: nothing asked of PDFium
    unless numbers that open lines go up by one; then their sizes, and boxes only in such a size)."""
    call, tp, values, refs = reader.call, reader.tp, reader.values, reader.refs
    box, size_at = call["box"], call["size"]
    openings = _openings(text)
    opened = {int(text[start:end]) for start, end in openings}
    if sum(1 for value in opened if value + 1 in opened) < MIN_LINES - 1:
        return []  # no run of numbers going up by one that open lines: most pages stop here, unasked
    opening: dict[float, set[int]] = defaultdict(set)  # the numbers that open a line, by size
    for start, end in openings:
        opening[round(size_at(tp, start), 1)].add(int(text[start:end]))
    sizes = {size for size, found in opening.items()
             if sum(1 for value in found if value + 1 in found) >= MIN_LINES - 1}
    if not sizes:
        return []
    by_size: dict[float, list[tuple[int, int, int]]] = defaultdict(list)
    for found in _NUMBER.finditer(text):  # every number of those sizes (PDFium may put one inside a line)
        start, end = found.span()
        size = round(size_at(tp, start), 1)
        if size in sizes:
            by_size[size].append((int(found.group()), start, end))
    columns: dict[tuple[int, float], list[tuple[float, int, int, int]]] = defaultdict(list)
    for size, numbers in by_size.items():
        values_of = {value for value, _, _ in numbers}
        if sum(1 for value in values_of if value + 1 in values_of) < MIN_LINES - 1:
            continue  # no run of numbers going up by one in this size: no box asked
        for value, start, end in numbers:
            box(tp, start, *refs[:4])
            columns[(round(values[0].value * 2), size)].append((values[2].value, value, start, end))
    spans: list[tuple[int, int]] = []
    for (_, size), column in columns.items():
        if len(column) < MIN_LINES:
            continue
        column.sort(key=lambda item: -item[0])  # top of the page first
        steps = sum(1 for a, b in zip(column, column[1:], strict=False) if b[1] == a[1] + 1)
        if steps < _STEPS * (len(column) - 1) or not _smaller(text, column, size, reader):
            continue
        spans.extend(_span(reader, text, start, end) for _, _, start, end in column)
    return sorted(spans)


def _span(reader: CharReader, text: str, start: int, end: int) -> tuple[int, int]:
    """A number with the space PDFium put after it; inside a line (PDFium's order can put it between
    a symbol and its comma: `T_{eff} 421 ,log g`) with the space before it too, unless the glyphs on
    either side stand a space apart (a sixth of an em), and also when the number closes PDFium's line
    and the glyph after the line end goes on right beside the one before the number."""
    after = end + 1 if text[end:end + 1] == " " else end
    if start >= 2 and text[start - 1] == " " and after > end and after < len(text) \
            and text[start - 2] not in _LINE_END and text[after] not in _LINE_END and not text[after].isspace():
        size = reader.call["size"](reader.tp, after)
        if reader.box(after)[0] - reader.box(start - 2)[1] < size * 0.15:
            return start - 1, after
    if start >= 2 and text[start - 1] == " " and after == end and text[start - 2] not in _LINE_END:
        # the number closes PDFium's line and the text goes on after the line end, right beside the
        # glyph before the number (a raised `3` of `10^3` PDFium gives after it): the space is the number's
        following = end
        while following < len(text) and text[following] in "\r\n":
            following += 1
        if following > end and following < len(text) and not text[following].isspace():
            size = reader.call["size"](reader.tp, start - 2)
            if -0.1 * size < reader.box(following)[0] - reader.box(start - 2)[1] < size * 0.15:
                return start - 1, after
    return start, after


def _openings(text: str) -> list[tuple[int, int]]:
    """(start, end) of each number of one to five digits, followed by a space, that opens one of
    PDFium's lines (after a line end or a broken word's mark). Two expressions that open with their
    literal are searched fast; one with a class or a look-behind costs three to ten times as much."""
    found = [m.span(1) for m in _AFTER_LINE_END.finditer(text)]
    if SOFT_HYPHEN in text:
        found += [m.span(1) for m in _AFTER_BREAK.finditer(text)]
    return found


def _smaller(text: str, column: list[tuple[float, int, int, int]], size: float, reader: CharReader) -> bool:
    """Whether the text beside the column's numbers (the character after each, where it is on the
    same line) is set much larger than the numbers and, for most, on their baseline and apart from
    them: a reference list's or a note's raised mark sits above the baseline of its text, against it."""
    call, tp, values, refs = reader.call, reader.tp, reader.values, reader.refs
    size_at, box, origin = call["size"], call["box"], call["origin"]
    beside, apart = [], 0
    for _, _, _, end in column:
        after = end + 1 if text[end:end + 1] == " " else end
        if after >= len(text) or text[after] in _LINE_END or text[after].isspace():
            continue
        large = size_at(tp, after)
        origin(tp, end - 1, refs[4], refs[5])
        right, base = _right(reader, end - 1), values[5].value
        origin(tp, after, refs[4], refs[5])
        box(tp, after, *refs[:4])
        apart += abs(values[5].value - base) <= 0.1 * large and values[0].value - right >= 0.3 * large
        beside.append(large)
    return (len(beside) * 2 >= len(column) and apart >= _STEPS * len(beside)
            and size <= _SMALLER * median(beside))


def _right(reader: CharReader, index: int) -> float:
    return reader.box(index)[1]


def without(start: int, end: int, drops: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The span start..end with the dropped spans inside it cut out (empty parts left out)."""
    parts, at = [], start
    for a, b in drops:
        if b <= start or a >= end:
            continue
        if a > at:
            parts.append((at, a))
        at = max(at, b)
    if at < end:
        parts.append((at, end))
    return parts
