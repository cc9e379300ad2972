"""Where a line of a PDF is a table row, and which of its gaps separate cells (pdfscript.py writes
them as ` | `): relative gaps, since TeX stretches the spaces of a justified line alike."""

from __future__ import annotations

import re

from astro_cli.research.text.pdfglyphs import MATH_FONTS, Glyph, solid, wide_gaps

NUMERIC_CELL_EMS = 0.6  # in a row that is mostly digits
CELL_EMS = 1.1  # a gap wider than this many font sizes separates table cells
_ROW_EMS = 3.0  # no formula sets a gap this wide but before its number: a short row of values
_EQUATION_NUMBER = re.compile(r"\((?:[A-Z]\.?)?\d{1,3}[a-z]?\)")
_VALUE_CHARS = frozenset("0123456789.,±−+-–()×^ ")
_UNCERTAIN = re.compile(r"\d.*(?:[.±−+–-]|\(\d)")  # a decimal point, ± or errors after its first digit


def cell_gap(shown: list[Glyph], kinds: list[str], size: float, formula: bool, numeric: bool) -> float:
    """The gap that separates table cells on this line: wider than CELL_EMS font sizes and than
    twice the line's own word spaces (those narrower than a cell's). TeX stretches every space of a
    justified line alike, so a loose line of prose whose spaces are all wide and equal has no
    cells; a table's gaps differ, and a header row ('Parameter  Adopted  Model  Ref') may have
    no narrow space at all."""
    em = max(size, 1.0)
    if _ends_in_parenthesis(shown) and _numbered_equation(solid(shown)):  # an aligned '=', the equation number
        return float("inf")  # also when digits make it look like a row of values: `2 Q √(4 Q^2 − 1) , (46)`
    gap = _cell_gap(shown, kinds, size, formula, numeric)
    if gap > CELL_EMS * em and label_and_value(shown, size):
        return CELL_EMS * em  # its one wide gap, whatever its label's spaces (`∆v_2 (km s^{−1})   −5.4`)
    return gap


def _cell_gap(shown: list[Glyph], kinds: list[str], size: float, formula: bool, numeric: bool) -> float:
    """cell_gap from the line's own spaces alone."""
    main = [g for g, kind in zip(shown, kinds) if kind == "main"]
    em = max(size, 1.0)
    if numeric:  # a row of values (numeric): its spaces are those around ± and × signs
        return _value_cell_gap(main, size)
    spaces = word_spaces(main, em)
    if formula:  # mathematics: an aligned '=' and the equation number are wide gaps, not cells
        ordered = sorted(spaces)
        return max(CELL_EMS * em, 2.0 * ordered[len(ordered) // 2]) if ordered else CELL_EMS * em
    narrow = sorted(gap for gap in spaces if gap <= CELL_EMS * em)
    wide = [gap for gap in spaces if gap > CELL_EMS * em]
    if wide and not narrow and max(wide) < 1.15 * min(wide):
        return max(wide) * 2  # a loose line of prose
    median = narrow[len(narrow) // 2] if narrow else 0.0
    return max(CELL_EMS * em, 2.0 * median)


def word_spaces(glyphs: list[Glyph], em: float) -> list[float]:
    """The gaps (wider than 0.15 em) between characters that PDFium has a space between: the
    line's word spaces, measured alike whether a word is read as characters or whole (pdfruns.py)."""
    spaces: list[float] = []
    last: Glyph | None = None
    spaced = False
    for glyph in glyphs:
        if glyph.generated or not glyph.char.strip():
            spaced = last is not None
            continue
        if last is not None and spaced and glyph.x0 - last.x1 > 0.15 * em:
            spaces.append(glyph.x0 - last.x1)
        last, spaced = glyph, False
    return spaces


def _ends_in_parenthesis(glyphs: list[Glyph]) -> bool:
    """The last solid glyph ends in ')': a line _numbered_equation may accept (a quick test first)."""
    for glyph in reversed(glyphs):
        if not glyph.generated and glyph.size > 1 and glyph.char.strip():
            return glyph.char.endswith(")")
    return False


def _numbered_equation(shown: list[Glyph]) -> bool:
    """Mathematics with words in it ('exp', 'and') that ends in an equation number: (19), (A4)."""
    chars = [g for g in shown if not g.generated and g.char.strip()]
    opening = next((k for k in range(len(chars) - 1, max(0, len(chars) - 8), -1) if chars[k].char == "("), 0)
    if not opening or not _EQUATION_NUMBER.fullmatch("".join(g.char for g in chars[opening:])):
        return False
    set_apart = chars[opening].x0 - chars[opening - 1].x1 > CELL_EMS * max(chars[opening].size, 1.0)
    return set_apart and any(g.family in MATH_FONTS for g in chars)


def table_row(glyphs: list[Glyph], size: float) -> bool:
    """Math-font signs (±, −, ×) make a row of values look like a formula: it is a table row when
    it has two cell gaps, or one in a row of values (NUMERIC_CELL_EMS, relative to its spaces)."""
    shown = solid(glyphs)
    if _ends_in_parenthesis(shown) and _numbered_equation(shown):
        return wide_gaps(glyphs, CELL_EMS) >= 2
    if not numeric(glyphs):
        wide = wide_gaps(glyphs, CELL_EMS, shown)
        return wide >= 2 or (wide == 1 and label_and_value(glyphs, size, shown))
    if label_and_value(glyphs, size, shown):
        return True
    widest = _value_cell_gap(glyphs, size)
    gaps = [b.x0 - a.x1 for a, b in zip(shown, shown[1:]) if b.x0 - a.x1 > widest]
    # not a short piece of a formula, unless its one gap is wider than a formula sets (`c_3   29 ± 2`)
    return len(gaps) >= 2 or (len(gaps) == 1 and (sum(g.weight for g in shown) >= 8 or gaps[0] > _ROW_EMS * max(size, 1)))


def label_and_value(glyphs: list[Glyph], size: float, shown: list[Glyph] | None = None) -> bool:
    """A two-cell row: a label, one gap wider than a cell's (CELL_EMS and twice the label's word
    spaces), then a measured value, a number with a decimal point, ± or stacked errors
    (emulateapj's `Periastron passage time (JD)   2450388_{−273}^{+169}`, `reduced χ^2   0.41`).
    A bare integer after a gap is not enough: a running head's page number is one."""
    shown = solid(glyphs) if shown is None else shown
    em = max(size, 1.0)
    cut = [n for n, (a, b) in enumerate(zip(shown, shown[1:]), 1) if b.x0 - a.x1 > CELL_EMS * em]
    if len(cut) != 1 or not any(c.isalpha() for g in shown[: cut[0]] for c in g.char):
        return False
    value = "".join(g.char for g in shown[cut[0]:])
    if not set(value) <= _VALUE_CHARS or not _UNCERTAIN.search(value) or not value.lstrip("−+-–")[:1].isdigit():
        return False
    label = [g for g in glyphs if g.x1 <= shown[cut[0]].x0]
    spaces = sorted(word_spaces(label, em))
    return not spaces or shown[cut[0]].x0 - shown[cut[0] - 1].x1 > 2 * spaces[(len(spaces) - 1) // 2]


def _value_cell_gap(glyphs: list[Glyph], size: float) -> float:
    """The cell gap of a row of values: wider than NUMERIC_CELL_EMS font sizes and than 2.5 times
    the row's own spaces (those around its ± signs: 'HD 175740   5.93 ± 0.01   64.33 ± 0.78')."""
    em = max(size, 1.0)
    spaces = sorted(gap for gap in word_spaces(glyphs, em) if gap <= CELL_EMS * em)
    typical = spaces[(len(spaces) - 1) // 2] if spaces else 0.0
    return max(NUMERIC_CELL_EMS * em, 2.5 * typical)


def numeric(shown: list[Glyph]) -> bool:
    digits = total = 0
    for glyph in shown:
        char = glyph.char
        if glyph.generated or not char.strip():
            continue
        if glyph.weight > 1:  # a word of a plain run (pdfruns.py): its characters count
            digits += sum(map(str.isdigit, char))
            total += glyph.weight
        else:
            digits += char.isdigit()
            total += 1
    return digits * 5 >= total * 2


def stacked_errors(top: list[Glyph], bottom: list[Glyph]) -> bool:
    """An upper and a lower error stacked after a value (`+0.10` over `−0.06`): each part signed and
    numeric, which a fraction's numerator and denominator never both are."""
    upper, lower = _plain(top), _plain(bottom)
    return upper[:1] == "+" and lower[:1] in "−-" and len(lower) > 1 \
        and any(c.isdigit() for c in upper) and any(c.isdigit() for c in lower)


def _plain(run: list[Glyph]) -> str:
    return "".join(" " if g.generated else g.char for g in run).strip()
