"""What read_file gives for a FITS table: no lines (the file is binary), the same column summary as a CSV.

query_catalog saves results as FITS and plot_table reads them, so a question about such a file
("how many sources are brighter than ...", "the largest parallax") should not end at "binary file".
Values are printed the way numpy prints its own type (`1.4` for a float32 1.4, not
`1.399999976158142`), then summarised exactly like a text table's (tools/table_summary.py).
A FITS file that holds no table (an image) is refused in one sentence, as binary.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from astro_cli.security.visible import one_line
from astro_cli.tools.base import ToolError
from astro_cli.tools.table_summary import MAX_BYTES, TableColumn, render

log = logging.getLogger(__name__)

SUFFIXES = (".fits", ".fit", ".fts", ".fits.gz")


def is_fits(path: Path) -> bool:
    return path.name.lower().endswith(SUFFIXES)


def summarise_fits(path: Path, shown: str) -> str:
    """The summary of the first table in the FITS file at `path`; a ToolError when it holds none or is too large.

    Never its bytes: a FITS header is 2,880 characters of text, so the binary test of read_file (a NUL
    in the first 4 kB) passed a table's header and data through as garbage."""
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise ToolError(f"{shown} is a FITS file of {size / 1e6:,.0f} MB, more than read_file summarises "
                        f"({MAX_BYTES / 1e6:,.0f} MB); plot_table or run_bash with astropy can read it.")
    from astro_cli.tools.table_read import read_table

    try:
        table = read_table(path, shown)
    except ToolError as error:  # an image, or a damaged file
        log.debug("no FITS table summary for %s: %s", shown, error)
        raise ToolError(f"{shown} is a FITS file with no table read_file can summarise (an image?); "
                        "it is binary, so use a tool made for its format.") from None
    columns = [_column(table[name]) for name in table.colnames if len(table[name].shape) == 1]
    skipped = [name for name in table.colnames if len(table[name].shape) != 1]
    note = f"(array columns not summarised: {', '.join(one_line(name, 40) for name in skipped)})" if skipped else ""
    summary = render(columns, len(table), " of the FITS table (a binary file: no lines to show)", note)
    if summary is None:
        raise ToolError(f"{shown} is a FITS table with no rows or no one-value columns.")
    return summary


def _column(column: Any) -> TableColumn:
    import numpy as np

    mask = np.ma.getmaskarray(column)
    data = np.ma.getdata(column)
    text = data.dtype.kind in "USO"
    cells = ["" if masked else _text(value) for value, masked in zip(data, mask, strict=True)]
    unit = str(column.unit) if column.unit is not None and str(column.unit) else ""
    return TableColumn(str(column.name), unit, text, cells)


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace").strip()
    return str(value).strip()
