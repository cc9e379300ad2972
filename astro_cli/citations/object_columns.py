"""A table with one column per object (`Target | HD 25631 | HD 191495 | HD 46485`): an object's values are its
column, not the stretch of text from its name to the next designation (which, in such a table, is the header).

Each row of the column is given as `label | value unit`, the unit taken from the label's bracket
(`T_{eff,1} [kK] | 36.1 ± 0.7` is 36.1 ± 0.7 kK), so the value is compared with its unit as the paper states it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

_BRACKET = re.compile(r"\[\s*(?P<unit>[^\]]*?)\s*\]\s*$")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("|")]


@lru_cache(maxsize=256)
def _table(passage: str) -> tuple[tuple[str, ...], ...]:
    """The lines of the passage's first pipe table, as cells (header first); empty when there is none."""
    lines = [line for line in passage.splitlines() if line.count("|") >= 2]
    if not lines:
        return ()
    width = len(_cells(lines[0]))
    return tuple(tuple(_cells(line)) for line in lines if len(_cells(line)) == width)


@lru_cache(maxsize=256)
def _header(passage: str, squash: Callable[[str], str]) -> tuple[str, ...]:
    """The table's header cells as names are compared (once per passage)."""
    return tuple(squash(cell) for cell in _table(passage)[0])


def _with_unit(label: str, value: str) -> str:
    """The cell's value with the unit of its row's label bracket (braces of LaTeX grouping dropped)."""
    bracket = _BRACKET.search(label)
    unit = bracket.group("unit").replace("{", "").replace("}", "").strip() if bracket else ""
    return f"{value} {unit}".strip() if unit and re.search(r"\d", value) else value


def object_column(name: str, passage: str, squash: Callable[[str], str]) -> str | None:
    """The column of `name` in a table whose header lists objects, one `label | value` line per row; None when
    the passage has no such table or its header does not name the object. `squash` folds names as the caller
    compares them."""
    table = _table(passage)
    if len(table) < 3 or len(table[0]) < 3:
        return None
    wanted = squash(name)
    header = _header(passage, squash)
    if wanted not in header[1:]:
        return None
    at = header.index(wanted, 1)
    return "\n".join(f"{row[0]} | {_with_unit(row[0], row[at])}" for row in table[1:])


def captioned_object(name: str, passage: str, squash: Callable[[str], str], others: tuple[str, ...]) -> bool:
    """Whether the passage is a table of `name` alone: its caption names it (`Stellar properties of TIC 277539431`,
    or the paper's short form `TIC 277`) and no other object (`others`: the caption's designations). Every row of
    such a table is the object's, whatever other names (an `Alternative ID`) its cells hold."""
    caption = _caption(passage, squash)
    if caption is None:
        return False
    wanted = squash(name)
    return bool(wanted) and wanted in caption and all(squash(o).startswith(wanted) or wanted.startswith(
        squash(o)) for o in others)


@lru_cache(maxsize=256)
def _caption(passage: str, squash: Callable[[str], str]) -> str | None:
    """The caption line of a table passage as names are compared; None when the passage starts with none."""
    first = passage.lstrip().split("\n", 1)[0]
    return squash(first) if first.startswith("[Caption:") and passage.count("|") >= 4 else None


@lru_cache(maxsize=256)
def _unit_row(passage: str) -> tuple[str, ...]:
    """The units of a table's columns from its line of brackets under the header (`| | [{km s^{−1}}] | [d] |`);
    empty when the table has none."""
    for line in passage.splitlines():
        cells = _cells(line) if line.count("|") >= 2 else []
        filled = [cell for cell in cells if cell]
        if filled and all(cell.startswith("[") and cell.endswith("]") for cell in filled):
            return tuple(cell[1:-1].replace("{", "").replace("}", "").strip() for cell in cells)
    return ()


def with_column_units(row: str, passage: str) -> str:
    """An object's table line with each number given its column's unit (`HD 165246 | O8 V(n) | 254 | 4.6` under
    `km s^−1` and `d` is 254 km s^−1, 4.6 d), so a claim's `254 m/s` is compared with it; the row unchanged when
    the table has no unit line or the row is not one line of it."""
    units = _unit_row(passage)
    cells = row.rstrip("\n").split("|")
    if not units or len(cells) != len(units) or "\n" in row.rstrip("\n"):
        return row
    return " | ".join(f"{cell.strip()} {unit}" if unit and re.fullmatch(r"\s*[-+−]?\d[\d.]*\s*", cell) else cell.strip()
                      for cell, unit in zip(cells, units, strict=True))
