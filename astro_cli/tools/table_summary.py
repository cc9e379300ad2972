"""The column summary read_file appends to a CSV, TSV or ECSV table: counts, extremes and sums computed by code.

A small model reads a table well enough to copy a number, not to count or add its rows (stop 52: 7 for
a count of 3, 1200 s for a sum of 480 s). So a table read comes with what such questions need, exact:
the number of rows; per numeric column its count, min and max (each with the row's label, the first
text column), sum and mean, with the ECSV unit; per text column whose values repeat (a category: at most half as many values
as rows), how many rows hold each. Numbers are parsed from the file's text as decimals, so a sum prints as `480` or `7.3`,
never `7.300000000000001`. The summary always covers the whole file, and says so. It is bounded
(MAX_COLUMNS, MAX_VALUES, MAX_CHARS) and says what it left out. Cells are outside text: `visible()`
escapes their control characters here, and the loop escapes prompt tags in every tool result.
"""

from __future__ import annotations

import csv
import logging
import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal, Inexact, InvalidOperation, localcontext
from typing import Any

from astro_cli.security.visible import one_line

log = logging.getLogger(__name__)

SUFFIXES = (".csv", ".tsv", ".ecsv")
MAX_BYTES = 10_000_000  # beyond this the summary would slow every read; the file is summarised by no one
MAX_COLUMNS = 16
MAX_VALUES = 8  # distinct values of a text column listed with their counts
MAX_LABELS = 3  # rows named for a min or max shared by several rows
MAX_CHARS = 2400
CELL_CHARS = 40
SUM_DIGITS = 80
MISSING = {"", "--", "nan", "null", "none", "na", "n/a", "inf", "-inf", "+inf"}  # empty, or no finite number
# At most a 3-digit exponent: `1e999999999` is text, so no number can print as a billion digits.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,3})?")


@dataclass
class TableColumn:
    """One column as text cells: from a text table as written, from a FITS table as numpy prints its values."""

    name: str
    unit: str
    declared_text: bool  # ECSV says `datatype: string` (or FITS holds strings): never read as numbers
    cells: list[str]
    values: list[Decimal | None] | None = None  # the cells as numbers (None where empty), or None for text

    def __post_init__(self) -> None:
        self.values = _numbers(self)


def summarise(text: str, suffix: str, partial: bool) -> str | None:
    """The summary of the table in `text` (a whole file named with `suffix`), or None when it is no table.

    `partial`: the read showed only part of the file, so the summary says it covers all of it.
    """
    suffix = suffix.lower()
    if suffix not in SUFFIXES or len(text) > MAX_BYTES:
        return None
    columns, rows, ragged = _parse(text, suffix)
    scope = " of the file, not only the lines shown above" if partial else ""
    note = (f"({ragged} rows have a different number of fields than the header; their missing cells count as empty.)"
            if ragged else "")
    return render(columns, rows, scope, note)


def render(columns: list[TableColumn], rows: int, scope: str = "", note: str = "") -> str | None:
    """The summary of these columns (`scope` says what it covers beyond the rows, `note` a line after the
    heading), or None for an empty table."""
    if not columns or rows == 0:
        return None
    lines = [f"[Table summary of all {rows} rows{scope} ({len(columns)} columns), computed by astro; exact:]"]
    if note:
        lines.append(note)
    labels = _labels(columns, rows)
    for column in columns[:MAX_COLUMNS]:
        lines.append(_describe(column, labels))
    if len(columns) > MAX_COLUMNS:
        lines.append(f"({len(columns) - MAX_COLUMNS} more columns not summarised: "
                     f"{', '.join(_cell(c.name) for c in columns[MAX_COLUMNS:])})")
    summary = "\n".join(lines)
    if len(summary) > MAX_CHARS:
        summary = summary[:MAX_CHARS].rsplit("\n", 1)[0] + "\n(summary cut here; the file holds every column)"
    return summary


def _parse(text: str, suffix: str) -> tuple[list[TableColumn], int, int]:
    """Columns (name, ECSV unit and type, cells), the number of data rows, and how many rows were ragged."""
    lines = text.splitlines()
    meta: dict[str, tuple[str, bool]] = {}
    delimiter = "\t" if suffix == ".tsv" else ","
    if suffix == ".ecsv":
        meta, delimiter = _ecsv_header([line for line in lines if line.startswith("#")])
    data = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not data:
        return [], 0, 0
    if suffix == ".csv":
        delimiter = max(",;\t|", key=data[0].count)
    reader = csv.reader(data, delimiter=delimiter, quotechar='"', skipinitialspace=delimiter == " ")
    try:
        table = list(reader)
    except csv.Error:
        return [], 0, 0
    header, body = table[0], table[1:]
    ragged = sum(1 for row in body if len(row) != len(header))
    columns = []
    for index, name in enumerate(header):
        unit, declared_text = meta.get(name, ("", False))
        cells = [row[index].strip() if index < len(row) else "" for row in body]
        columns.append(TableColumn(name.strip(), unit, declared_text, cells))
    return columns, len(body), ragged


def _ecsv_header(comments: list[str]) -> tuple[dict[str, tuple[str, bool]], str]:
    """Per column name its unit and whether it is declared a string, and the delimiter, from ECSV's YAML header."""
    from astro_cli.safe_yaml import load_yaml

    body = "\n".join(line[2:] if line.startswith("# ") else line[1:] for line in comments
                     if not line.startswith("# %ECSV") and line.strip() not in {"#", "# ---"})
    try:
        header: Any = load_yaml(body)
    except Exception as error:  # a malformed header only loses the units; the table is still read
        log.debug("ECSV header not read: %s", error)
        return {}, " "
    if not isinstance(header, dict):
        return {}, " "
    meta: dict[str, tuple[str, bool]] = {}
    for entry in header.get("datatype") or []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            unit = entry.get("unit")
            meta[entry["name"]] = (str(unit) if unit else "", entry.get("datatype") == "string")
    delimiter = header.get("delimiter")
    return meta, delimiter if delimiter in {",", " "} else " "


def _numbers(column: TableColumn) -> list[Decimal | None] | None:
    """The column's values as exact decimals (None where a cell is empty), or None when it is text."""
    if column.declared_text:
        return None
    values: list[Decimal | None] = []
    for cell in column.cells:
        if cell.lower() in MISSING:
            values.append(None)
        elif _NUMBER.fullmatch(cell):
            values.append(Decimal(cell))
        else:
            return None
    return values if any(v is not None for v in values) else None


def _labels(columns: list[TableColumn], rows: int) -> list[str]:
    """What names each row: its cell in the first text column, else its row number."""
    for column in columns:
        if column.values is None and any(column.cells):
            return [cell or f"row {n}" for n, cell in enumerate(column.cells, start=1)]
    return [f"row {n}" for n in range(1, rows + 1)]


def _describe(column: TableColumn, labels: list[str]) -> str:
    values = column.values
    name = _cell(column.name)
    if values is None:
        return _describe_text(name, column.cells)
    unit = f" {_cell(column.unit)}" if column.unit else ""
    present = [(v, n) for n, v in enumerate(values) if v is not None]
    empty = len(values) - len(present)
    low = min(v for v, _ in present)
    high = max(v for v, _ in present)
    total, rounded = _sum([v for v, _ in present])
    head = f"- {name}{f' [{_cell(column.unit)}]' if column.unit else ''} (numbers, {len(present)} values"
    head += f", {empty} empty)" if empty else ")"
    return (f"{head}: min {_number(low)}{unit} ({_where(low, present, labels)}), "
            f"max {_number(high)}{unit} ({_where(high, present, labels)}), "
            f"sum {'≈ ' if rounded else ''}{_number(total, trim=True)}{unit}, mean {_mean(total, len(present), rounded)}{unit}")


def _describe_text(name: str, cells: list[str]) -> str:
    counts = Counter(cells)
    if len(counts) > max(len(cells) // 2, 1):  # mostly one row per value: a name, a date, not a category
        return f"- {name} (text): {len(counts)} distinct values in {len(cells)} rows"
    shown = ", ".join(f"{_cell(value) or '(empty)'}: {count} {'row' if count == 1 else 'rows'}"
                      for value, count in counts.most_common(MAX_VALUES))
    more = f" (+{len(counts) - MAX_VALUES} more distinct values)" if len(counts) > MAX_VALUES else ""
    return f"- {name} (text, rows per value): {shown}{more}"


def _where(value: Decimal, present: list[tuple[Decimal, int]], labels: list[str]) -> str:
    rows = [_cell(labels[n]) for v, n in present if v == value]
    named = ", ".join(rows[:MAX_LABELS])
    if len(rows) == 1:
        return named
    more = f", +{len(rows) - MAX_LABELS} more" if len(rows) > MAX_LABELS else ""
    return f"{len(rows)} rows: {named}{more}"


def _sum(values: list[Decimal]) -> tuple[Decimal, bool]:
    """The exact sum, and whether it had to be rounded after all (digits beyond SUM_DIGITS: 1e300 + 1e-300)."""
    with localcontext() as context:
        context.prec = SUM_DIGITS
        context.clear_flags()
        total = sum(values, Decimal(0))
        return total, bool(context.flags[Inexact])


def _number(value: Decimal, trim: bool = False) -> str:
    """A decimal as the file writes it (`2460014.490` stays so), or `trim`med of trailing zeros (a sum:
    `480`, `7.3`); an exponent only where plain digits would run long."""
    if value == 0:
        return "0"
    plain = format(value.normalize() if trim else value, "f")
    return plain if len(plain) <= 20 else format(value.normalize(), "E")


def _mean(total: Decimal, count: int, rounded: bool) -> str:
    """The mean, exact when it ends within two digits beyond the data's own, else rounded there and marked ≈."""
    places = -min(int(total.as_tuple().exponent), 0) + 2  # an exact sum has its finest addend's exponent
    with localcontext() as context:
        context.prec = SUM_DIGITS
        context.clear_flags()
        exact = total / count
        rounded = rounded or bool(context.flags[Inexact])
        try:
            mean = exact.quantize(Decimal(1).scaleb(-places))
        except InvalidOperation:  # more digits than the context holds: shown as computed
            mean = exact
        shown = _number(mean, trim=True)
    return shown if mean == exact and not rounded else f"≈ {shown}"


def _cell(text: str) -> str:
    """A cell or name from the file on one line, control characters escaped, cut at CELL_CHARS."""
    return one_line(text, CELL_CHARS)
