"""A workspace table read as astropy reads it: the one reader of read_file (FITS), plot_table and `@file`.

It lives with the tools, the lowest layer that needs it, so that read_file's FITS summary does not reach up into
plots/ (the layer test holds every import to run down).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from astro_cli.tools.base import ToolError

if TYPE_CHECKING:
    from astropy.table import Table

# Suffix -> astropy's format name; the same files query_catalog writes (data/<name>.ecsv, .fits, .csv).
FORMATS = {
    ".ecsv": "ascii.ecsv", ".csv": "ascii.csv", ".tsv": "ascii.tab", ".fits": "fits", ".fit": "fits",
    ".fts": "fits", ".fits.gz": "fits", ".vot": "votable", ".votable": "votable", ".xml": "votable",
}
# Past these sizes reading alone would outlast the tool's timeout (a 100,000-row ECSV, 9 MB, takes ~1 s).
MAX_TEXT_TABLE_BYTES = 200_000_000
MAX_FITS_TABLE_BYTES = 2_000_000_000


def table_format(path: Path) -> str:
    name = path.name.lower()
    for suffix in sorted(FORMATS, key=len, reverse=True):
        if name.endswith(suffix):
            return FORMATS[suffix]
    raise ToolError(
        f"plot_table reads .ecsv, .csv, .tsv, .fits and VOTable (.vot, .xml) tables; '{path.name}' is none of them."
    )


def read_table(path: Path, shown: str) -> Table:
    """The table at `path` (`shown`: its name for the model); one sentence when it cannot be read."""
    from astropy.table import Table

    fmt = table_format(path)
    limit = MAX_FITS_TABLE_BYTES if fmt == "fits" else MAX_TEXT_TABLE_BYTES
    size = path.stat().st_size
    if size > limit:
        raise ToolError(f"'{shown}' is {size / 1e6:,.0f} MB, more than plot_table reads ({limit / 1e6:,.0f} MB for "
                        f"{'FITS' if fmt == 'fits' else 'text and VOTable'} tables); select the rows or columns "
                        "you need into a smaller file first.")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # VOTable spec warnings, units astropy does not know
            table = Table.read(path, format=fmt)
    except Exception as exc:  # noqa: BLE001 - astropy raises many kinds; the model needs one sentence
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise ToolError(f"'{shown}' could not be read as {fmt}: {first}.") from None
    if len(table.colnames) == 0:
        raise ToolError(f"'{shown}' has no columns.")
    return table
