"""A table's column: the claim's number must stand in its object's row *and* under the quantity it names.

The row check (support.py) stops `1431 K` of another row; a value of the row's other column (`HD 174020 has ν_max =
0.56`, where 0.56 is its Δν) passed it. The header is the first line of cells (a table read from LaTeX or Markdown,
a row a line) or, in a PDF's run of cells, the cells before the first cell that holds only a value (the last of
them ends where the first row's name begins, so its first word is kept). A claim naming exactly one header symbol
(compared without braces, `_`, `$`, `\\` or a bracketed unit: `ν_{max} [μHz]` is `νmax`) is checked against that
column's cell; a claim naming none, or several, is left to the row check.
"""

from __future__ import annotations

import re

from astro_cli.citations.agree import check_quantity, stated_in
from astro_cli.citations.quantity import Quantity

_MARKS = re.compile(r"[{}$\\_]|\[[^\]]*\]|\([^)]*\)")
_VALUE_CELL = re.compile(r"\s*[-+−]?[\d.]+(?:\s*(?:±|\+/-|\\pm)\s*[\d.]+)?\s*$")


def _key(cell: str) -> str:
    return " ".join(_MARKS.sub("", cell).replace("∆", "Δ").split()).lower()


def header(passage: str, width: int) -> list[str] | None:
    """The last `width` header cells, or None when no header of that width is found."""
    lines = [line for line in passage.splitlines() if line.count("|") >= 1]
    if len(lines) > 1:
        cells = lines[0].split("|")
    else:
        parts = passage.split("|")
        first_value = next((i for i, part in enumerate(parts) if _VALUE_CELL.match(part)), None)
        if first_value is None or first_value < width:
            return None
        cells = parts[:first_value]
        cells[-1] = cells[-1].split()[0] if cells[-1].split() else ""
    if len(cells) < width:
        return None
    return [c.strip() for c in cells[-width:]]


def column_reason(quantities: tuple[Quantity, ...], claim: str, row: str, passage: str) -> str | None:
    """Why the claim's numbers are not under the column it names in `row`; None when they are or none is named."""
    cells = row.split("|")
    heads = header(passage, len(cells))
    if heads is None:
        return None
    keys = [_key(h) for h in heads]
    text = " " + _key(claim) + " "
    named = [j for j, key in enumerate(keys) if j > 0 and key and re.search(
        rf"(?<![\w]){re.escape(key)}(?![\w])", text)]
    if len(named) != 1:
        return None
    cell = cells[named[0]]
    stated = stated_in(cell)
    missing = [q for q in quantities if check_quantity(q, stated) is not None]
    if not missing:
        return None
    return f"{missing[0].text} is not under {heads[named[0]]} in this row (it gives {cell.strip()})"
