"""What PDFium knows about each character of a page, grouped into the lines a reader sees.

PDFium's own text breaks a line wherever the baseline moves, so display mathematics comes out
one symbol per line (`S_graph =`, `X`, `i`, `(`) and a subscript can end a line. Here each
character keeps its box, baseline, font size and font name, and PDFium's pieces are joined again
when they continue on the same visual line (a subscript, the rest of an equation) or stack over
the piece before them (the denominator of a fraction). pdfscript.py then writes each line.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

from astro_cli.research.hyphens import SOFT_HYPHEN

GAP_EMS = 3.0  # a piece further right than this (in font sizes) is another column, not the same line


@dataclass(slots=True)
class Glyph:
    char: str
    x0: float
    x1: float
    bottom: float
    top: float
    base: float  # the baseline (PDFium's origin), points from the page bottom
    size: float
    font: str
    generated: bool = False  # a space or line end PDFium inferred
    origin: float = 0.0  # PDFium's origin x (the box of a turned glyph says little)
    piece: int = 0  # which of PDFium's pieces of the page it came in
    turned: bool = False  # set at an angle (a rotated table, arXiv's margin stamp)

    @property
    def family(self) -> str:
        """'CMSY10' -> 'CMSY': the font without its subset prefix and design size."""
        name = self.font.rsplit("+", 1)[-1].upper()
        return name.rstrip("0123456789")


@dataclass
class PageGlyphs:
    lines: list[list[Glyph]]
    chars: int  # characters PDFium found (0: no text layer)
    unmapped: int  # characters whose font has no usable Unicode map
    rotated: int  # characters set at an angle (a rotated table)


def page_glyphs(textpage: Any) -> PageGlyphs:
    """The page's characters as visual lines, in PDFium's reading order."""
    import pypdfium2.raw as raw

    count = raw.FPDFText_CountChars(textpage)
    if count <= 0:
        return PageGlyphs([], 0, 0, 0)
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    x, y = ctypes.c_double(), ctypes.c_double()
    fonts: dict[int, str] = {}
    name = ctypes.create_string_buffer(128)
    pieces: list[list[Glyph]] = [[]]
    unmapped = 0
    for index in range(count):
        code = raw.FPDFText_GetUnicode(textpage, index)
        generated = bool(raw.FPDFText_IsGenerated(textpage, index))
        if code in (0x0D, 0x0A):
            if pieces[-1]:
                pieces.append([])
            continue
        if raw.FPDFText_IsHyphen(textpage, index):
            char = SOFT_HYPHEN
        else:
            char = chr(code) if 0 <= code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else ""
        raw.FPDFText_GetCharBox(textpage, index, ctypes.byref(left), ctypes.byref(right), ctypes.byref(bottom),
                                ctypes.byref(top))
        raw.FPDFText_GetCharOrigin(textpage, index, ctypes.byref(x), ctypes.byref(y))
        size = float(raw.FPDFText_GetFontSize(textpage, index))
        font = ""
        text_object = raw.FPDFText_GetTextObject(textpage, index)
        if text_object:
            handle = raw.FPDFTextObj_GetFont(text_object)
            key = ctypes.cast(handle, ctypes.c_void_p).value or 0
            if key not in fonts:
                fonts[key] = name.value.decode("latin-1") if raw.FPDFFont_GetBaseFontName(handle, name, 128) else ""
            font = fonts[key]
        if not generated and raw.FPDFText_HasUnicodeMapError(textpage, index) == 1:
            unmapped += 1
        glyph = Glyph(char, left.value, right.value, bottom.value, top.value, y.value, size, font, generated, x.value)
        before = pieces[-1][-1] if pieces[-1] else None
        if before is not None and not generated and not _turned(before, glyph) and _wrapped(before, glyph):
            pieces.append([])
        pieces[-1].append(glyph)
        if char == SOFT_HYPHEN:  # PDFium joined a hyphenated line end: the next line is a line again
            pieces.append([])
    kept = [p for p in pieces if p]
    rotated = 0
    for number, piece in enumerate(kept):
        turned = _is_turned(piece)
        for glyph in piece:
            glyph.piece, glyph.turned = number, turned
        if turned and not "".join(g.char for g in piece).lstrip().startswith("arXiv:"):  # not the margin stamp
            rotated += len(solid(piece))
    return PageGlyphs(_join_pieces(kept), count, unmapped, rotated)


def _is_turned(piece: list[Glyph]) -> bool:
    shown = solid(piece)
    pairs = list(zip(shown, shown[1:]))
    return bool(pairs) and sum(_turned(a, b) for a, b in pairs) * 2 >= len(pairs)


MATH_FONTS = ("CMMI", "CMMIB", "CMSY", "CMBSY", "CMEX", "MSAM", "MSBM")


def math_only(glyphs: list[Glyph]) -> bool:
    """A piece of display mathematics: math-font glyphs and no word of three letters in a text font."""
    letters, has_math = 0, False
    for glyph in glyphs:
        if glyph.generated or glyph.size <= 1:
            letters = 0
            continue
        family = glyph.family
        has_math = has_math or family in MATH_FONTS
        if glyph.char.isalpha() and family not in MATH_FONTS:
            letters += 1
            if letters >= 3:
                return False
        else:
            letters = 0
    return has_math


def _turned(before: Glyph, glyph: Glyph) -> bool:
    """Consecutive letters of one word that climb instead of running right: text set at an angle."""
    return (not before.generated and before.char.strip() != "" and glyph.char.strip() != "" and glyph.size > 1
            and abs(glyph.base - before.base) > glyph.size * 0.2 and abs(glyph.origin - before.origin) < glyph.size * 0.1)


def _wrapped(before: Glyph, glyph: Glyph) -> bool:
    """The next line begun without a line end from PDFium: back to the left and a line lower."""
    size = max(glyph.size, before.size, 1.0)
    return glyph.x0 < before.x1 - 2 * size and glyph.base < before.base - 0.9 * size


def wide_gaps(glyphs: list[Glyph], ems: float = 1.2) -> int:
    """Gaps between neighbouring characters wider than `ems` font sizes: a table row has several."""
    shown = solid(glyphs)
    return sum(1 for a, b in zip(shown, shown[1:]) if b.x0 - a.x1 > ems * max(a.size, 1.0))


def solid(glyphs: list[Glyph]) -> list[Glyph]:
    return [g for g in glyphs if not g.generated and g.size > 1 and g.char.strip()]


def reference(glyphs: list[Glyph]) -> tuple[float, float]:
    """(size, baseline) of a line's main text: the size most characters have, and their baseline."""
    shown = solid(glyphs)
    if not shown:
        return 0.0, 0.0
    counts: dict[float, int] = {}
    for glyph in shown:
        counts[round(glyph.size, 1)] = counts.get(round(glyph.size, 1), 0) + 1
    size = max(counts, key=lambda s: (counts[s], s))
    bases = sorted(g.base for g in shown if abs(g.size - size) < 0.2)
    return size, bases[len(bases) // 2]


def _join_pieces(pieces: list[list[Glyph]]) -> list[list[Glyph]]:
    """PDFium's pieces joined into visual lines."""
    lines: list[list[Glyph]] = []
    last_piece: list[Glyph] = []
    for piece in pieces:
        if lines and _continues(lines[-1], last_piece, piece):
            lines[-1].extend(piece)
        else:
            lines.append(list(piece))
        last_piece = piece
    return lines


def _continues(line: list[Glyph], before: list[Glyph], piece: list[Glyph]) -> bool:
    """Does `piece` go on the visual line `line` (whose last piece was `before`)?"""
    shown, previous = solid(piece), solid(before)
    if not shown or not previous or not solid(line) or shown[0].turned or previous[-1].turned:
        return False
    size, base = reference(line)
    size = max(size, 1.0)
    first, last = shown[0], previous[-1]
    piece_size, piece_base = reference(piece)
    line_start = min(g.x0 for g in solid(line))
    if math_only(line) and math_only(piece) and abs(piece_base - base) <= size * 2.5 and wide_gaps(line) < 2:
        # one display formula, whatever its layout; a table's next row (back at the margin) is not
        return first.x0 - last.x1 <= size * GAP_EMS and first.x0 > line_start + size
    if abs(piece_base - base) > size * 0.75:
        return False
    if first.x0 >= last.x1 - size * 0.3:
        return first.x0 - last.x1 <= size * GAP_EMS
    # a piece that goes back left continues the line only when it stacks under the end of the one
    # before: a fraction's denominator under its numerator, both set off the line's baseline
    stacked = first.x0 < last.x1 and first.x1 > last.x0
    return stacked and last.base > base + size * 0.2 and first.base < base - size * 0.1 and piece_size <= size
