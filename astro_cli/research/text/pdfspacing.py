"""TeX's thin space where PDFium put none: `log g`, `v sin i`, `14 m s^{−1}`, `(T_{eff}, log g, R_⋆)`.

TeX sets a thin space (a sixth of an em) between an operator and its argument (`\\log g`,
`v\\sin i`), after a comma in mathematics and between a value and its unit (`14\\,m`); PDFium adds a
space only for a wider gap, so these read glued (`logg`, `sini`, `14m`: issue 44). The rule is one,
used by both ways a line is read: pdfscript.py asks it of two glyphs of the main text, pdfruns.py of
the places in a plain piece where it could hold (and then reads that piece glyph by glyph).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from typing import Protocol

from astro_cli.research.text.pdfchars import MATH_ITALIC_FONTS
from astro_cli.research.text.pdfglyphs import CharReader, Glyph


class Run(Protocol):
    """A run of characters in one font, as pdfplain and pdfscript read them."""

    first: int
    last: int
    font: tuple[str, str, bool]  # name, family, no Unicode map
    size: float
    base: float


THIN = 0.12  # ems from one glyph's ink to the next one's origin that TeX's thin space leaves at the least
_DIGIT_LETTER = re.compile(r"\d(?=[^\W\d_])")  # a digit right before a letter (`70K`, `2MASS`, `1σ`)


def thin_space(before: Glyph, after: Glyph, size: float) -> bool:
    """Two glyphs of the main text set about a sixth of an em apart (TeX's thin space: `\\log g`,
    `v\\sin i`, `14\\,m`, after a comma in mathematics) where the text changes font or goes from
    digits to letters: a space, never a word's own letters, which sit closer (a word keeps its font).
    The gap runs from the ink of the one to the origin of the other: `log g` 0.14 em, `1σ` (no
    space: the 1's ink ends well before its advance) 0.09 em."""
    last, first = before.char[-1:], after.char[:1]
    if (after.origin or after.x0) - before.x1 < size * THIN or not first.isalnum():
        return False
    if last in ",;":  # (T_{eff}, log g, R_⋆) set in math: a thin space after its commas
        return before.family in MATH_ITALIC_FONTS
    return last.isalnum() and (before.family != after.family or (last.isdigit() and first.isalpha()))


def no_space(before: Glyph, after: Glyph, size: float, end: float | None = None) -> bool:
    """A space PDFium inferred between two letters of one math-italic font set closer than TeX's thin
    space is none: TeX sets no space between the symbols of a formula, and the italic `W` of `We`
    (a two-letter number) ends its ink 0.04 em before the `e` begins, which PDFium took for a word gap.
    `end`: where the scripts of `before` end, when it has some (`ρV_0^2D_0^2`: measured from the `2`)."""
    return before.family == after.family and before.family in MATH_ITALIC_FONTS \
        and before.char[-1:].isalpha() and after.char[:1].isalpha() \
        and (after.origin or after.x0) - (before.x1 if end is None else end) < size * THIN


def digit_letters(text: str) -> list[int]:
    """The places in a page's text of each digit set right before a letter (`70K`, `2MASS`, `1σ`), in
    order: one search of the page, cheaper than one of each piece."""
    return [found.start() for found in _DIGIT_LETTER.finditer(text)]


def thin_spaces(reader: CharReader, text: str, runs: Sequence[Run], size: float, base: float,
                meets: list[int]) -> bool:
    """Whether two characters of the main text meet with no space between them in PDFium's text where
    thin_space may write one (two runs of other fonts, or a digit before a letter, `70 K`: `meets`,
    digit_letters of the page) and it does: such a piece is read glyph by glyph (two boxes and an
    origin for each meeting)."""
    lo, hi = runs[0].first, runs[-1].last + 1
    first = bisect_left(meets, lo)
    if len(runs) == 1 and (first == len(meets) or meets[first] >= hi):
        return False  # most pieces: one run, no digit against a letter
    meetings = [(before.last, before, run) for before, run in zip(runs, runs[1:], strict=False)
                if before.last + 1 == run.first and before.font[1] != run.font[1]
                and abs(before.base - base) <= 0.01 * size and abs(run.base - base) <= 0.01 * size]
    for at in meets[first:bisect_left(meets, hi, first)]:
        before = next((r for r in runs if r.first <= at <= r.last), None)
        if before is None:
            continue
        after = before if at < before.last else next((r for r in runs if r.first == at + 1), None)
        if after is not None and abs(before.base - base) <= 0.01 * size and abs(after.base - base) <= 0.01 * size:
            meetings.append((at, before, after))
    for at, before, after in meetings:
        left, right = text[at], text[at + 1]
        if not right.isalnum() or not (left.isalnum() or left in ",;"):
            continue
        reader.call["origin"](reader.tp, at + 1, reader.refs[4], reader.refs[5])
        a = Glyph(left, *reader.box(at), base, size, before.font[0], before.font[1])
        b = Glyph(right, *reader.box(at + 1), base, size, after.font[0], after.font[1], False, reader.values[4].value)
        if thin_space(a, b, size):
            return True
    return False


def own_script(symbol: Glyph, script: Glyph, size: float) -> bool:
    """A script set right after a math-italic symbol, closer than TeX's thin space: the symbol's own,
    whatever space PDFium inferred in the italic's overhang (`V_0^2` read `V 2/0`, a fraction)."""
    return symbol.family in MATH_ITALIC_FONTS and script.x0 - symbol.x1 < 0.15 * size
