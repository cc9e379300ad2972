"""What the model reads of a catalogue result: never the whole table, a summary of at most ~1,500 tokens.

Row count, where the file is, the query and what to cite; each column with its unit and basic
statistics (numbers: min, median, max; text: distinct values), how many values are masked; and
the first rows. A wide table (Gaia's 152 columns) lists the first columns in full and the rest
by name; the text is cut at MAX_CHARS whatever the table, so the cost stays bounded.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astropy.table import Column, Table

MAX_CHARS = 5600  # a first cut, before tokens are counted
MAX_TOKENS = 1400  # what the model reads of any result, whatever its size (issue 33: at most 1,500)
CUT_NOTE = "[summary cut here; the file holds every row and column]"
STAT_COLUMNS = 24
NAMED_COLUMNS = 80
FIRST_ROWS = 5
ROW_COLUMNS = 12
CELL_CHARS = 40
FEW_ROWS = 3  # up to this many rows, each column lists its values instead of statistics
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def cell(value: Any) -> str:
    """One value as short text: masked or NaN as '--', numbers to 7 significant digits."""
    import numpy as np

    if value is np.ma.masked or value is None:
        return "--"
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, (float, np.floating)):
        return "--" if value != value else f"{float(value):.7g}"
    if isinstance(value, np.generic):
        value = value.item()
    text = _UNPRINTABLE.sub(" ", str(value)).strip()
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"


def _unit(column: Column) -> str:
    return f" [{clean(str(column.unit))}]" if column.unit is not None and str(column.unit) else ""


def clean(text: str) -> str:
    """Text from a service (a column name, a unit) without control characters: it reaches the model
    and the terminal, and a VOTable may come from anywhere."""
    return _UNPRINTABLE.sub(" ", text)


def _floats(column: Column) -> Any:
    """The column as float64 with NaN where a value is masked."""
    import numpy as np

    data = np.array(np.ma.getdata(column), dtype=float)
    mask = np.ma.getmaskarray(column)
    data[mask] = np.nan
    return data


def _masked(column: Column) -> int:
    import numpy as np

    count = int(np.count_nonzero(np.ma.getmaskarray(column)))
    if column.dtype.kind == "f" and column.ndim == 1:
        count = max(count, int(np.count_nonzero(np.isnan(_floats(column)))))
    return count


def column_line(column: Column) -> str:
    """'name [unit]: min … median … max; k masked' for numbers, distinct values for text; the values
    themselves when there are only a few rows."""
    import numpy as np

    head = f"{clean(column.name)}{_unit(column)}"
    if len(column) <= FEW_ROWS:
        return f"{head}: " + " | ".join(cell(v) for v in column)
    kind = column.dtype.kind
    masked = _masked(column)
    tail = f"; {masked} masked" if masked else ""
    if kind in "iuf" and column.ndim == 1:
        data = _floats(column)
        data = data[np.isfinite(data)]
        if data.size == 0:
            return f"{head}: all masked"
        low, mid, high = np.min(data), np.median(data), np.max(data)
        return f"{head}: {cell(low)} … {cell(mid)} … {cell(high)}{tail}"
    if kind == "b":
        values = np.asarray(column)
        return f"{head}: {int(np.count_nonzero(values))} true of {len(values)}{tail}"
    if kind in "USO" and column.ndim == 1:
        sample = column[: 20_000]
        distinct = {cell(v) for v in sample if v is not np.ma.masked}
        shown = ", ".join(sorted(distinct)[:4])
        more = f" (≥{len(distinct)} distinct)" if len(distinct) > 4 else ""
        return f"{head}: text, e.g. {shown}{more}{tail}" if shown else f"{head}: text, all masked"
    return f"{head}: {column.dtype} values of shape {column.shape[1:]}{tail}"


def first_rows(table: Table) -> list[str]:
    names = table.colnames[:ROW_COLUMNS]
    lines = []
    for index in range(min(FIRST_ROWS, len(table))):
        row = table[index]
        lines.append(f"{index + 1}. " + " | ".join(f"{clean(name)}={cell(row[name])}" for name in names))
    if len(table.colnames) > ROW_COLUMNS:
        lines.append(f"(rows show the first {ROW_COLUMNS} of {len(table.colnames)} columns)")
    return lines


def summarize(table: Table, header: list[str]) -> str:
    """The summary text: `header` (file, query, citation lines), then columns and first rows."""
    lines = list(header)
    columns = [table[name] for name in table.colnames]
    few = len(table) <= FEW_ROWS
    lines.append(f"Columns ({len(columns)}; " + ("values, row by row" if few else "numbers: min … median … max")
                 + "):")
    lines += [f"  {column_line(c)}" for c in columns[:STAT_COLUMNS]]
    rest = columns[STAT_COLUMNS:]
    if rest:
        named = ", ".join(f"{clean(c.name)}{_unit(c)}" for c in rest[:NAMED_COLUMNS])
        more = f" and {len(rest) - NAMED_COLUMNS} more" if len(rest) > NAMED_COLUMNS else ""
        lines.append(f"  also: {named}{more}")
    if len(table) and not few:
        lines.append(f"First rows (of {len(table)}):")
        lines += [f"  {line}" for line in first_rows(table)]
    return bounded("\n".join(lines))


def bounded(text: str) -> str:
    """The text cut at a line end so that it stays within MAX_TOKENS (tiktoken's cl100k_base, or the
    4-characters estimate without it), with a note saying the file holds the rest."""
    from astro_cli.agent.tokens import TokenCounter

    counter = TokenCounter(None)
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS].rsplit("\n", 1)[0] + "\n" + CUT_NOTE
    tokens = counter.text(text)
    while tokens > MAX_TOKENS:
        keep = int(len(text) * MAX_TOKENS / tokens * 0.95)
        text = text[:keep].rsplit("\n", 1)[0] + "\n" + CUT_NOTE
        tokens = counter.text(text)
    return text
