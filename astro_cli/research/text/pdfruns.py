"""A PDF page's lines at PDFium's speed: per-character questions only where a line is unusual.

Asking PDFium about every character (box, baseline, size, text object: pdfglyphs.CharReader) from
Python costs several times what reading the page does, and most lines of a paper are plain prose.
So the page's text comes in one call, PDFium's pieces (its line ends) are cut from it, and each
piece is looked at as runs of its text objects (a text object has one font, one size and one
baseline; a font or size change or a raised mark starts another): where every run sits on one
baseline (so nothing is raised or lowered, whatever the sizes), no font lacks a Unicode map or is a
big-delimiter font, no character needs naming (controls, private-use pieces, spacing accents, a
math font's raw TeX code), a math font comes with a word of text (else it is display mathematics)
and no gap between its words is as wide as a table cell's (0.6 em in a row of values), the piece is
plain and its text is PDFium's own; with smaller raised or lowered runs in it, it is written from
its runs by pdfscript's rules (pdfplain.scripted). Every other piece is read character by
character, the words inside a run whole; a plain piece that joins one on a visual line (a subscript, the rest of an
equation) is read again that way, so what is written is the same as the careful path writes
(tests/research/text/test_library_pdfruns.py compares the two paths on every fixture page).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from astro_cli.research.text.hyphens import SOFT_HYPHEN
from astro_cli.research.text.pdfcells import CELL_EMS, NUMERIC_CELL_EMS  # no gap of a plain line this wide
from astro_cli.research.text.pdfchars import EXTENSION_FONTS, MATH_ITALIC_FONTS, SPACING_ACCENTS
from astro_cli.research.text.pdfglyphs import CharReader, Glyph, number_pieces, solid
from astro_cli.research.text.pdflines import LineShape, PieceEnds, continues
from astro_cli.research.text.pdfmargin import margin_numbers, without
from astro_cli.research.text.pdfpagechars import page_chars, page_words
from astro_cli.research.text.pdfplain import TEXT_ONLY, inline_math, main_size, scripted
from astro_cli.research.text.pdfspacing import THIN, digit_letters, thin_spaces

_WORDISH = re.compile(r"[^\W\d_]|[()\[\]]")  # a letter or a bracket: no bare piece of digits and signs
_TINY = 2  # pieces of this many characters or fewer are read character by character
_UNUSUAL = re.compile("[\x00-\x1f\x7f\u00ad\ud800-\udfff\ue000-\uf8ff\ufffe\uffff√"
                      + re.escape("".join(SPACING_ACCENTS)) + "]")
_ACCENT = re.compile("[" + re.escape("".join(SPACING_ACCENTS)) + "]")
_SEGMENT = re.compile("[^\r\n\ufffe]+\ufffe?|\ufffe")


@dataclass(slots=True)
class PlainLine:
    """A visual line that was one plain piece: its text as pdfscript would write it, the size of its
    main text and that of its first character (pdfscript.render_line's three)."""

    text: str
    size: float
    first: float


@dataclass
class PageLines:
    lines: list[list[Glyph] | PlainLine]
    chars: int  # characters PDFium found (0: no text layer)
    unmapped: int  # characters whose font has no usable Unicode map
    rotated: int  # characters set at an angle (a rotated table)
    # (size, baseline) of each glyph line that is one piece, by index: pdfglyphs.reference of it, found
    # while joining, for pdfscript.render_line
    references: dict[int, tuple[float, float]] = field(default_factory=dict)


@dataclass
class _Plain:
    start: int
    end: int
    number: int
    text: str
    ends: PieceEnds
    words: list[tuple[int, int]] = field(default_factory=list)  # to read it again should it join a line
    runs: list[_Run] = field(default_factory=list)


def page_lines(textpage: Any) -> PageLines:
    """The page's visual lines: plain ones as text, the others as glyphs for pdfscript."""
    import pypdfium2.raw as raw

    count = raw.FPDFText_CountChars(textpage)
    if count <= 0:
        return PageLines([], 0, 0, 0)
    reader = CharReader(textpage)
    text = page_chars(textpage, count, reader)
    items: list[list[Glyph] | _Plain] = []
    number = rotated = 0
    starts, words = page_words(text)  # each piece's words, cut below
    drops = margin_numbers(reader, text)  # a manuscript's line numbers are no part of its lines
    meets = digit_letters(text)  # where a thin space may stand between a value and its unit
    spans = [found.span() for found in _SEGMENT.finditer(text)]
    if drops:
        spans = [part for span in spans for part in without(*span, drops)]
    for start, end in spans:
        read = _read(reader, text, start, end, number, words[bisect_left(starts, start):bisect_left(starts, end)],
                     meets)
        if isinstance(read, _Plain):
            items.append(read)
            number += 1
            continue
        pieces = reader.pieces(start, end, text, read)
        rotated += number_pieces(pieces, number)
        number += len(pieces)
        items.extend(pieces)
    lines, references = _join(items, reader, text)
    return PageLines(lines, count, reader.unmapped, rotated, references)


@dataclass(slots=True)
class _Run:
    """Characters first..last of one text object on a piece (spaces between words included)."""

    first: int
    last: int
    key: int
    font: tuple[str, str, bool]  # name, family, no Unicode map
    size: float
    base: float
    simple: bool  # text in a text font with a Unicode map: nothing in it to name, raise or lower
    nameable: bool  # characters pdfchars.math_char names one by one (no extension font's pieces)


def _kinds(font: tuple[str, str, bool]) -> tuple[bool, bool]:
    """(simple, nameable) of a run in `font` whose size is above 1 pt (else neither)."""
    return not font[2] and font[1] not in TEXT_ONLY, not font[2] and font[1] not in EXTENSION_FONTS


Words = dict[int, tuple[int, int, float, float]]  # first character -> end, text object, size, baseline


def _read(reader: CharReader, text: str, start: int, end: int, number: int,
          words: list[tuple[int, int]], meets: list[int]) -> _Plain | Words | None:
    """The piece start..end-1 (whose `words` are the page's words inside it) as plain text; or, when
    it must be read character by character, the words inside its runs that may be read whole (None:
    every character)."""
    segment = text[start:end]
    body = segment[:-1] if segment.endswith(SOFT_HYPHEN) else segment
    call, tp = reader.call, reader.tp
    if len(body) < len(segment) and not call["hyphen"](tp, end - 1):
        return None
    unusual = _UNUSUAL.search(body) is not None
    if unusual and _ACCENT.search(body):
        return None  # an accent joins the letter under it: every position counts
    if len(body) <= _TINY and body and " " not in body:
        return None  # a symbol of a display formula (rarely plain): reading it costs less than asking
    if not words:
        return None if unusual else _Plain(start, end, number, "", PieceEnds(None, None, 0.0, 0.0, False))
    found = _runs(reader, words)
    if found is None:
        return None
    size_at, sizes, objects, kinds = call["size"], reader.sizes, reader.objects, reader.kinds
    runs = []
    every_simple = every_nameable = True
    for a, b, key in found:
        size = sizes.get(key)
        if size is None:  # one size for all the characters of a text object
            size = sizes[key] = size_at(tp, a)
        font = objects.get(key) or reader.font(key, a)
        simple, nameable = kinds.get(font) or kinds.setdefault(font, _kinds(font))
        if size <= 1:
            simple = nameable = False
        every_simple, every_nameable = every_simple and simple, every_nameable and nameable
        runs.append(_Run(a, b, key, font, size, 0.0, simple, nameable))
    if not unusual and every_nameable and not _math_space(reader, text, runs):
        if not _baselines(reader, runs):
            return None
        if every_simple or inline_math(text, start, runs):
            base = runs[0].base
            written: str | None = None
            if all(abs(r.base - base) <= 0.01 * r.size for r in runs):  # one baseline: nothing raised
                size = main_size(text, runs)
            else:  # raised or lowered runs (scripts, marks): written from the runs when they are plain
                generated = reader.call["generated"]
                line = scripted(text, start, end, runs, lambda i: bool(generated(tp, i)))
                if line is None:
                    return _inner_words(text, words, runs)
                written, size, base = line
            if thin_spaces(reader, text, runs, size, base, meets):
                return _inner_words(text, words, runs)  # pdfscript.thin_space writes the space
            # a row of values (pdfcells.numeric: two in five characters digits) has cells from 0.6 em
            numeric = _digits(body) * 5 >= len("".join(body.split())) * 2
            ends = _plain_ends(reader, text, words, runs, NUMERIC_CELL_EMS if numeric else CELL_EMS, size, base)
            if ends is not None:
                written = _written(reader, segment, start) if written is None else written
                return _Plain(start, end, number, written, ends, words, runs)
    elif not _baselines(reader, [run for run in runs if run.simple]):
        return None  # the words of a run are read whole only where its characters share a baseline
    return _inner_words(text, words, runs)


def _math_space(reader: CharReader, text: str, runs: list[_Run]) -> bool:
    """A space PDFium inferred between two letters inside one run of a math-italic font, closer than
    TeX's thin space (`W e` for the number `We`): the piece is read glyph by glyph, where
    pdfspacing.no_space drops it. Only such spaces are measured (two boxes and an origin)."""
    generated = reader.call["generated"]
    for run in runs:
        if run.font[1] not in MATH_ITALIC_FONTS:
            continue
        at = text.find(" ", run.first, run.last)
        while at != -1:
            if text[at - 1].isalpha() and text[at + 1].isalpha() and generated(reader.tp, at):
                reader.call["origin"](reader.tp, at + 1, reader.refs[4], reader.refs[5])
                origin = reader.values[4].value
                if origin - reader.box(at - 1)[1] < run.size * THIN:
                    return True
            at = text.find(" ", at + 1, run.last)
    return False


def _digits(body: str) -> int:
    """How many characters of `body` are digits (str.isdigit)."""
    if body.isascii():
        raw = body.encode("ascii")
        return len(raw) - len(raw.translate(None, b"0123456789"))
    return sum(map(str.isdigit, body))


def _baselines(reader: CharReader, runs: list[_Run]) -> bool:
    """Each run's baseline (the origin of its first character); False when a run is set at an
    angle (its last character's origin off that baseline)."""
    origin, tp = reader.call["origin"], reader.tp
    y, p_x, p_y = reader.values[5], reader.refs[4], reader.refs[5]
    for run in runs:
        origin(tp, run.first, p_x, p_y)
        run.base = base = y.value
        if run.last != run.first:
            origin(tp, run.last, p_x, p_y)
            if abs(y.value - base) > 0.01 * max(run.size, 1.0):
                return False
    return True


def _plain_ends(reader: CharReader, text: str, words: list[tuple[int, int]], runs: list[_Run],
                ems: float, size: float, base: float) -> PieceEnds | None:
    """The first and last characters of a piece whose runs agree, or None when a gap between two
    of its words is as wide as the narrowest gap that may part table cells (`ems` font sizes)."""
    box, tp = reader.call["box"], reader.tp
    left, right = reader.values[0], reader.values[1]
    p_left, p_right, p_bottom, p_top = reader.refs[:4]
    widest = ems * size
    a, b = words[0]
    box(tp, a, p_left, p_right, p_bottom, p_top)
    first_box = (left.value, right.value)
    if b - 1 != a:
        box(tp, b - 1, p_left, p_right, p_bottom, p_top)
    before = right.value
    word_left = first_box[0]  # left edge of the last word
    for a, b in words[1:]:
        box(tp, a, p_left, p_right, p_bottom, p_top)
        if left.value - before > widest:
            return None
        word_left = left.value
        if b - 1 != a:
            box(tp, b - 1, p_left, p_right, p_bottom, p_top)
        before = right.value
    last_box = (left.value, right.value)
    font, family = runs[0].font[0], runs[0].font[1]
    first = Glyph(text[words[0][0]], *first_box, runs[0].base, runs[0].size, font, family)
    last = Glyph(text[words[-1][1] - 1], *last_box, runs[-1].base, runs[-1].size, runs[-1].font[0], runs[-1].font[1])
    # where the run that ends the piece starts within its last word (pdflines.PieceEnds.tail)
    script = len(runs) - 1  # the runs of the last word on the last run's baseline and size
    while script and abs(runs[script - 1].base - runs[-1].base) <= runs[-1].size * 0.05 \
            and abs(runs[script - 1].size - runs[-1].size) <= 0.2 and runs[script - 1].last >= words[-1][0]:
        script -= 1
    tail = word_left
    if runs[script].first > words[-1][0]:
        box(tp, runs[script].first, p_left, p_right, p_bottom, p_top)
        tail = left.value
    bare = _WORDISH.search(text, words[0][0], words[-1][1]) is None  # (prose: found at its first letter)
    return PieceEnds(first, last, size, base, False, tail=tail, bare=bare)


def _inner_words(text: str, words: list[tuple[int, int]], runs: list[_Run]) -> Words:
    """Words that lie inside one simple run, less the run's first and last characters: nothing is
    raised next to them or attached to them, so each may be one Glyph (CharReader.pieces)."""
    inner: Words = {}
    at = 0
    for run in runs:
        inside = []
        while at < len(words) and words[at][0] <= run.last:
            if words[at][0] >= run.first and words[at][1] - 1 <= run.last:
                inside.append(words[at])
            at += 1
        if not run.simple:
            continue
        for n, (a, b) in enumerate(inside):
            # the first character of a run and its last are read alone: a mark may be set next to them
            a, b = a + (n == 0), b - (n == len(inside) - 1)
            if b > a and not _UNUSUAL.search(text, a, b):
                inner[a] = (b, run.key, run.size, run.base)
    return inner


def _runs(reader: CharReader, words: list[tuple[int, int]]) -> list[tuple[int, int, int]] | None:
    """(first, last, text object) of each run of the piece's characters (its words' characters, not
    the spaces between them) in one text object: the object of each word's first and last character,
    a bisection inside a word whose two differ, checked against PDFium's count of the runs
    (FPDFText_CountRects), which sees an object met twice or a character left out: None then."""
    call, tp = reader.call["object"], reader.tp
    first, last = words[0][0], words[-1][1] - 1
    expected = reader.call["count_rects"](tp, first, last + 1 - first)
    key = call(tp, first) or 0
    if expected == 1:  # most lines: one object from the first character to the last
        return [(first, last, key)] if key and (call(tp, last) or 0) == key else None
    runs: list[tuple[int, int, int]] = []
    run_start, before = first, first
    for a, b in words:
        head = call(tp, a) or 0 if a != first else key
        if head != key:
            runs.append((run_start, before, key))
            run_start, key = a, head
        tail = call(tp, b - 1) or 0 if b - 1 != a else head
        if tail != head:  # the object changes inside the word: find where
            for change, changed in _changes(call, tp, a, head, b - 1, tail):
                runs.append((run_start, change - 1, key))
                run_start, key = change, changed
        before = b - 1
        if len(runs) >= expected:
            return None
    runs.append((run_start, last, key))
    if len(runs) != expected or not all([run[2] for run in runs]):
        return None
    return runs


def _changes(call: Any, tp: Any, lo: int, lo_key: int, hi: int, hi_key: int) -> list[tuple[int, int]]:
    """(character, its text object) where the object changes between characters lo and hi (whose
    objects differ), in order, by bisection (an object met twice between two asked is missed)."""
    if hi - lo == 1:
        return [(hi, hi_key)]
    mid = (lo + hi) // 2
    mid_key = call(tp, mid) or 0
    found = _changes(call, tp, lo, lo_key, mid, mid_key) if mid_key != lo_key else []
    if mid_key != hi_key:
        found += _changes(call, tp, mid, mid_key, hi, hi_key)
    return found


def _written(reader: CharReader, segment: str, start: int) -> str:
    """The piece as pdfscript writes it: a space PDFium added after another space is not written."""
    if "  " in segment:
        is_generated, tp = reader.call["generated"], reader.tp
        kept = [ch for n, ch in enumerate(segment)
                if not (ch == " " and n and segment[n - 1] == " " and is_generated(tp, start + n))]
        segment = "".join(kept)
    return segment.strip()


def _join(items: list[list[Glyph] | _Plain], reader: CharReader,
          text: str) -> tuple[list[list[Glyph] | PlainLine], dict[int, tuple[float, float]]]:
    """PDFium's pieces joined into visual lines (pdflines.join_pieces); a plain piece that joins
    another is read character by character, so the line is written as the careful path writes it.
    With the lines, PageLines.references of those that are one piece of glyphs."""
    lines: list[list[Glyph] | _Plain] = []
    single: dict[int, PieceEnds] = {}  # glyph lines of one piece: the piece's ends
    shape: LineShape | None = None
    last: PieceEnds | None = None
    for item in items:
        shown = [] if isinstance(item, _Plain) else solid(item)
        ends = item.ends if isinstance(item, _Plain) else PieceEnds.of(item, shown)
        if lines and shape is not None and last is not None and continues(shape, last, ends):
            line = lines[-1]
            single.pop(len(lines) - 1, None)
            if isinstance(line, _Plain) or isinstance(item, _Plain):
                glyphs = _glyphs(line, reader, text)
                glyphs.extend(_glyphs(item, reader, text))
                lines[-1] = glyphs
                shape = LineShape.of(glyphs)
            else:
                line.extend(item)
                shape = shape.joined(line, item, shown)
        elif isinstance(item, _Plain):
            lines.append(item)
            shape = LineShape(max(ends.size, 1.0), ends.base, ends.first.x0 if ends.first else 0.0, False)
        else:
            single[len(lines)] = ends
            lines.append(list(item))
            shape = LineShape.of(item, ends, shown)
        last = ends
    return ([PlainLine(line.text, line.ends.size, line.ends.first.size if line.ends.first else line.ends.size)
             if isinstance(line, _Plain) else line for line in lines],
            {n: (ends.size, ends.base) for n, ends in single.items()})


def _glyphs(item: list[Glyph] | _Plain, reader: CharReader, text: str) -> list[Glyph]:
    if not isinstance(item, _Plain):
        return item
    words = _inner_words(text, item.words, item.runs) if item.words else None
    glyphs = [glyph for piece in reader.pieces(item.start, item.end, text, words or None) for glyph in piece]
    for glyph in glyphs:
        glyph.piece = item.number
    return glyphs
