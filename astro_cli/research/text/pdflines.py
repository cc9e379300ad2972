"""PDFium's pieces of a page joined into the lines a reader sees.

A piece continues the line before it when it sits on the same visual line (a subscript, the rest
of an equation) or stacks under the end of the piece before it (the denominator of a fraction);
one display formula stays one line whatever its layout. What joining needs of a line (its size,
baseline, left edge, whether it is display mathematics) is kept as pieces are added, so a line
of many pieces is not measured again from scratch each time.
"""

from __future__ import annotations

from bisect import insort
from dataclasses import dataclass, field
from typing import Any

from astro_cli.research.text.pdfchars import MATH_ITALIC_FONTS
from astro_cli.research.text.pdfdisplay import closes_delimiter, under_numerator
from astro_cli.research.text.pdfglyphs import (
    CharReader,
    Glyph,
    MathScan,
    PageGlyphs,
    math_scan,
    number_pieces,
    reference,
    scripted_size,
    solid,
    weighted_median,
    wide_gaps,
)
from astro_cli.research.text.pdfmargin import margin_numbers, without
from astro_cli.research.text.pdfoperators import after_limits, hangs_on, limit_of
from astro_cli.research.text.pdfpagechars import page_chars

GAP_EMS = 3.0  # a piece further right than this (in font sizes) is another column, not the same line


@dataclass
class LineShape:
    """What joining needs to know of a line being built, computed once per piece added."""

    size: float
    base: float
    start: float
    display: bool  # math only, and not a table row
    shown: list[Glyph] = field(default_factory=list, repr=False)  # solid(line)
    scan: MathScan = (False, False, "")  # math_scan(line)
    gaps: int | None = None  # wide_gaps(line), once asked
    tally: _Tally | None = field(default=None, repr=False)  # what reference(line) counts, once joined

    @classmethod
    def of(cls, line: list[Glyph], ends: PieceEnds | None = None, shown: list[Glyph] | None = None) -> LineShape:
        """The shape of `line`; `ends` are those of the line when it is one piece (computed once),
        `shown` its solid glyphs when the caller has them."""
        shown = solid(line) if shown is None else shown
        start = min(g.x0 for g in shown) if shown else 0.0
        if ends is not None:
            size, base, scan = ends.size, ends.base, ends.scan
        else:
            (size, base), scan = reference(line, shown), math_scan(line)
        gaps = wide_gaps(line, shown=shown) if scan[1] and not scan[0] else None
        return cls(max(size, 1.0), base, start, gaps is not None and gaps < 2, shown, scan, gaps)

    def joined(self, line: list[Glyph], piece: list[Glyph], shown: list[Glyph]) -> LineShape:
        """The shape of `line` (this line, `piece` with its solid glyphs `shown` just added to it),
        the same as LineShape.of(line), from what is known of the line before."""
        both = self.shown + shown
        if not shown:
            start = self.start
        else:
            start = min(g.x0 for g in shown)
            start = min(start, self.start) if self.shown else start
        scan = math_scan(piece, self.scan)
        gaps = None
        if self.gaps is not None:
            gaps = self.gaps + wide_gaps(piece, shown=shown)
            if self.shown and shown and shown[0].x0 - self.shown[-1].x1 > 1.2 * max(self.shown[-1].size, 1.0):
                gaps += 1
        elif scan[1] and not scan[0]:
            gaps = wide_gaps(line, shown=both)
        tally = self.tally if self.tally is not None else _Tally.of(self.shown)
        tally.add(shown)
        size, base = tally.reference()
        display = scan[1] and not scan[0] and gaps is not None and gaps < 2
        return LineShape(max(size, 1.0), base, start, display, both, scan, gaps, tally)


@dataclass
class _Tally:
    """pdfglyphs.reference()'s counts, kept as pieces join a line: the weight of each font size and
    every glyph's (baseline, weight, size), sorted, so a joined line is not sorted again."""

    counts: dict[float, int] = field(default_factory=dict)
    bases: list[tuple[float, int, float]] = field(default_factory=list)
    glyphs: int = 0

    @classmethod
    def of(cls, shown: list[Glyph]) -> _Tally:
        tally = cls()
        tally.add(shown)
        return tally

    def add(self, shown: list[Glyph]) -> None:
        counts, bases = self.counts, self.bases
        for glyph in shown:
            counts[glyph.size] = counts.get(glyph.size, 0) + glyph.weight
            insort(bases, (glyph.base, glyph.weight, glyph.size))
        self.glyphs += len(shown)

    def reference(self) -> tuple[float, float]:
        """What reference(line) returns (the ties of equal baselines aside, the same order)."""
        counts, bases = self.counts, self.bases
        if not bases:
            return 0.0, 0.0
        if len(counts) == 1:
            size = next(iter(counts))
            if counts[size] == self.glyphs:  # every glyph one character
                return size, bases[len(bases) // 2][0]
            kept = [(base, weight) for base, weight, _size in bases]
            middle = counts[size] // 2
        else:
            size = scripted_size(max(counts, key=lambda s: (counts[s], s)), counts, bases)
            kept = [(base, weight) for base, weight, of in bases if abs(of - size) < 0.2]
            middle = sum(weight for _, weight in kept) // 2
        return size, weighted_median(kept, middle)


@dataclass
class PieceEnds:
    """What joining needs to know of one of PDFium's pieces: its first and last solid characters,
    the size and baseline of its text, and whether it is mathematics only."""

    first: Glyph | None
    last: Glyph | None
    size: float
    base: float
    math: bool
    scan: MathScan = (False, False, "")  # math_scan(piece)
    tail: float | None = None  # left edge of the run the piece ends in (an upper error `+0.03`)
    shown: list[Glyph] | None = field(default=None, repr=False)  # its solid glyphs, to find `tail` when asked
    bare: bool = False  # digits and signs, no letter nor bracket (a script `2`, a denominator `2`; not `(6)`)

    def script_start(self) -> float | None:
        """`tail`, found from the piece's glyphs the first time it is needed (few pieces stack)."""
        if self.tail is None and self.shown:
            self.tail = _script_start(self.shown)
        return self.tail

    @classmethod
    def of(cls, piece: list[Glyph], shown: list[Glyph] | None = None) -> PieceEnds:
        shown = solid(piece) if shown is None else shown
        size, base = reference(piece, shown)
        scan = math_scan(piece)
        bare = bool(shown) and not any(c.isalpha() or c in "()[]" for g in shown for c in g.char)
        return cls(shown[0] if shown else None, shown[-1] if shown else None, size, base,
                   scan[1] and not scan[0], scan, None, shown, bare)


def _script_start(shown: list[Glyph]) -> float | None:
    """Where the run of glyphs that ends a piece begins (one size and baseline, no word space
    inside): a raised script such as an upper error `+0.03`, when continues() finds it raised."""
    if not shown:
        return None
    last = shown[-1]
    start = last.x0
    for glyph, after in zip(reversed(shown[:-1]), reversed(shown)):
        if abs(glyph.base - last.base) > last.size * 0.05 or abs(glyph.size - last.size) > 0.2 \
                or after.x0 - glyph.x1 > last.size * 0.3:
            break
        start = glyph.x0
    return start


def join_pieces(pieces: list[list[Glyph]]) -> list[list[Glyph]]:
    """PDFium's pieces joined into visual lines."""
    lines: list[list[Glyph]] = []
    shape: LineShape | None = None
    last_piece: PieceEnds | None = None
    for piece in pieces:
        shown = solid(piece)
        ends = PieceEnds.of(piece, shown)
        if lines and shape is not None and last_piece is not None and continues(shape, last_piece, ends):
            lines[-1].extend(piece)
            shape = shape.joined(lines[-1], piece, shown)
        else:
            lines.append(list(piece))
            shape = LineShape.of(lines[-1], ends, shown)
        last_piece = ends
    return lines


def continues(line: LineShape, before: PieceEnds, piece: PieceEnds) -> bool:
    """Does `piece` go on the visual line `line` (whose last piece was `before`)? Also when it is a
    display operator hung across the line's axis, or one of the limits stacked on it (pdfoperators.py),
    or a display fraction's denominator (pdfdisplay.py)."""
    first, last = piece.first, before.last
    if first is None or last is None or first.turned or last.turned:
        return False
    if _continues(line, before, piece, first, last):
        return True
    size = line.size
    if closes_delimiter(line.shown, piece.shown or [], last):
        return True  # `(R_∗/R_p)^2`: the big `)` closes the line's big `(`
    if _under_its_superscript(line.shown, piece, first, last):
        return True
    if hangs_on(piece.shown, line.base, size):
        return -0.3 * size <= first.x0 - last.x1 <= size * GAP_EMS
    if piece.last is None or not line.shown:
        return False
    if abs(first.size - size) < 0.2 and first.x0 < last.x1 and under_numerator(line.shown, first, piece.last, line.start):
        return True  # a display fraction's denominator, of the line's size, under a numerator it begins left of
    if first.size < size - 0.2 and limit_of(line.shown, first, piece.last) is not None:
        return True  # (most pieces that begin a line are of its size: no operator is looked for)
    return before.first is not None and before.first.size < first.size - 0.2 \
        and after_limits(line.shown, (before.first, last), first, piece.base)


def _continues(line: LineShape, before: PieceEnds, piece: PieceEnds, first: Glyph, last: Glyph) -> bool:
    size, base = line.size, line.base
    piece_size, piece_base = piece.size, piece.base
    if piece_size < size - 0.2 and abs(first.size - size) <= 0.2:
        piece_base = first.base  # `F_{total}` under `F_{comp}`: its subscript outnumbers its symbol
    if line.display and abs(piece_base - base) <= size * 2.5 and (piece.math or piece.bare):
        # one display formula, whatever its layout; a table's next row (back at the margin) is not
        joins = first.x0 - last.x1 <= size * GAP_EMS and first.x0 > line.start + size
        if joins or piece.math:  # a piece of digits and signs only (no word: as much a part of the
            # formula as a math font's) joins so; else it is asked as any piece is, below
            return joins or _numerator_over(line, before, piece, first, last)
    if abs(piece_base - base) > size * 0.75:
        return _numerator_over(line, before, piece, first, last)
    if first.x0 >= last.x1 - size * 0.3:
        return first.x0 - last.x1 <= size * GAP_EMS or _row_rest(line, piece, piece_base)
    # a piece that goes back left continues the line only when it stacks under the end of the one
    # before: a fraction's denominator under its numerator, both set off the line's baseline
    # (or the lower error `−0.04` under the upper one `+0.03` that ends the piece before, from its start)
    if not (first.x0 < last.x1 and last.base > base + size * 0.2 and first.base < base - size * 0.1
            and piece_size <= size):
        return False
    # (from its start, or touching it: an italic symbol's subscript kerned under its overhang, `V_f^2`)
    tail = before.script_start()
    return first.x1 > (last.x0 if tail is None else tail - 0.1 * size)


def _numerator_over(line: LineShape, before: PieceEnds, piece: PieceEnds, first: Glyph, last: Glyph) -> bool:
    """A fraction that opens a line (`1/2 T`, a display's `(d^2n)/(dR ∂P) =`): PDFium gives its
    numerator and its denominator as pieces of their own. A numerator of a few digits, alone so far
    on its line, over a denominator of a few digits of its size, centred under it and lower by less
    than a line's spacing, is one fraction; so is a display's numerator of mathematics over a
    denominator centred under it; the line's text follows it (pdfscript.py writes `1/2`)."""
    over, under = line.shown, piece.shown or []  # the numerator is the whole line so far
    if not over or not under or abs(last.size - first.size) > 0.2:
        return False
    centre_over = (min(g.x0 for g in over) + max(g.x1 for g in over)) / 2
    centre_under = (min(g.x0 for g in under) + max(g.x1 for g in under)) / 2
    if abs(centre_over - centre_under) >= first.size * 0.15:
        return False
    drop = last.base - first.base
    digits = all(g.char.isdigit() and abs(g.size - first.size) <= 0.2 for g in over + under)
    if digits and len(over) <= 3 and len(under) <= 3 and len(before.shown or []) == len(over):
        return first.size * 0.5 < drop < first.size
    # a display fraction that opens its formula (`(d^2n)/(dR ∂P) = ...`): both parts mathematics,
    # centred on each other, the denominator two of TeX's fraction steps lower (a line of prose or
    # of an alignment is neither centred on the one above nor so close)
    # (a row of a table under another is set in cells, its names in the text's font, not math italic)
    lettered = all(any(g.family in MATH_ITALIC_FONTS and g.char.isalpha() for g in part) for part in (over, under))
    return before.math and piece.math and line.display and not line.gaps and lettered \
        and not wide_gaps(under, shown=under) and first.size * 0.9 < drop < first.size * 1.6


def _under_its_superscript(shown: list[Glyph], piece: PieceEnds, first: Glyph, last: Glyph) -> bool:
    """A subscript PDFium gave apart, set under the superscript `last` the line just wrote, both of
    the symbol before it: `πR_∗^2` in a display fraction's denominator (the line's baseline is the
    numerator's, so the subscript looked a line of its own). Both scripts start at the symbol's
    right edge and are of one size; the subscript sits a little under the symbol's baseline, the
    superscript over it."""
    symbol = next((g for g in reversed(shown[-4:-1]) if not g.generated and g.char.strip()), None)
    if symbol is None or piece.shown is None or len(piece.shown) > 8 or shown[-1] is not last:
        return False
    size = symbol.size
    return abs(first.size - last.size) < 0.2 and last.size < 0.88 * size \
        and abs(first.x0 - last.x0) <= 0.3 * size and first.x0 >= symbol.x1 - 0.3 * size \
        and last.base > symbol.base and 0 < symbol.base - first.base <= 0.5 * size \
        and all(abs(g.base - first.base) < 0.1 * size for g in piece.shown)


def _row_rest(line: LineShape, piece: PieceEnds, piece_base: float) -> bool:
    """A piece far to the right on the line's very baseline that is itself a row of cells goes on the
    line: the rest of a table row whose first cell PDFium gave apart (a symbol with stacked scripts,
    `t_0^{(1)}`, then `d | N(1574.273800; 0.1000) | ...`). Another column's line is not a row."""
    shown = piece.shown
    return bool(shown) and abs(piece_base - line.base) <= 0.05 * line.size and wide_gaps(shown or [], shown=shown) >= 2


def page_glyphs(textpage: Any) -> PageGlyphs:
    """The page's characters as visual lines, in PDFium's reading order: every character asked
    about (the careful path; pdfruns.py asks only about lines where something is unusual)."""
    import pypdfium2.raw as raw

    count = raw.FPDFText_CountChars(textpage)
    if count <= 0:
        return PageGlyphs([], 0, 0, 0)
    reader = CharReader(textpage)
    drops = margin_numbers(reader, page_chars(textpage, count, reader))  # as pdfruns.page_lines
    kept = [piece for start, end in without(0, count, drops) for piece in reader.pieces(start, end)]
    rotated = number_pieces(kept, 0)
    return PageGlyphs(join_pieces(kept), count, reader.unmapped, rotated)
