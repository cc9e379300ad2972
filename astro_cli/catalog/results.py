"""A catalogue result on disk: an astropy table in the workspace with its provenance in its meta.

The file is what later steps read (run_bash, plot_table, Table.read): ECSV by default (types,
units, masks and meta survive), FITS, CSV, VOTable or Parquet when asked. Provenance keys, the
same in every format: service, url, query, time (UTC, ISO 8601), rows, limited (the row limit cut
the result), catalog and bibcode (what to cite). A CSV file stays plain (pandas and Table.read take
it as it is) and astropy's VOTable writer keeps no table meta: their provenance goes next to them,
in `<file>.meta.json`. Both are written by the one writer (security/writer.py); whether an existing
file may be replaced is run.py's question. Warnings astropy raises while writing (units FITS cannot
name, long header cards) go to the debug log, never the terminal.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.catalog.errors import CatalogError
from astro_cli.catalog.formats import (
    FORMATS,
    SIDECAR_FORMATS,
    WRITES,
    check_format,
    other_formats,
    warnings_to_log,
)

if TYPE_CHECKING:
    from astropy.table import Table

    from astro_cli.security.writer import Place

DATA_DIR = "data"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")
CHUNK_ROWS = 20_000  # rows formatted at a time by the ECSV writer: memory stays bounded whatever the result
_NEEDS_QUOTES = re.compile(r'[,"\r\n]|^\s|\s$')


@dataclass(frozen=True)
class Provenance:
    service: str
    url: str
    query: str
    time: str
    rows: int
    limited: bool
    catalog: str = ""
    bibcode: str = ""

    def meta(self) -> dict[str, Any]:
        return {"service": self.service, "url": self.url, "query": self.query, "time": self.time,
                "rows": self.rows, "limited": self.limited, "catalog": self.catalog, "bibcode": self.bibcode}


def now_utc() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def relative_target(name: str | None, default_stem: str) -> str:
    """`data/<name>.<ext>` for the name the caller gave (an extension picks the format), else the default."""
    raw = (name or "").strip()
    if not raw:
        return f"{DATA_DIR}/{default_stem}.ecsv"
    stem, ext = os.path.splitext(raw)
    if ext.lower() not in FORMATS:
        if ext and ext.lower() not in (".", ""):
            if ext.lower() in (".xml", ".votable", ".txt", ".json", ".hdf5", ".h5", ".pq"):
                raise CatalogError(f"save_as '{raw}': astro writes {WRITES} tables.")
            stem, ext = raw, ""
        ext = ".ecsv"
    parts = [p for p in re.split(r"[\\/]+", stem) if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        raise CatalogError(f"save_as '{raw}' should be a file name such as 'gaia_m67' or 'members.fits'.")
    if parts[0] == DATA_DIR:
        parts = parts[1:] or ["result"]
    safe = [_SAFE.sub("_", p).strip("_") or "result" for p in parts]
    return f"{DATA_DIR}/{'/'.join(safe)}{ext.lower()}"


def default_stem(service: str, tables: list[str]) -> str:
    first = tables[0] if tables else "query"
    short = _SAFE.sub("_", first.strip('"').split(".")[-1]).strip("_").lower() or "query"
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    return f"{service}_{short}_{stamp}"


def _plain(table: Table, flat: bool = False) -> Table:
    """The table with every column a writer can take: object columns (a VOTable's variable-length
    arrays, odd types) as text, and for CSV (`flat`) vector columns as text too."""
    import numpy as np

    for name in table.colnames:
        column = table[name]
        if column.dtype.kind != "O" and not (flat and column.ndim > 1):
            continue
        full = np.ma.getmaskarray(column)
        mask = np.asarray(full if full.ndim == 1 else full.all(axis=tuple(range(1, full.ndim))), dtype=bool)
        values = ["" if bad else str(v) for v, bad in zip(np.ma.getdata(column), mask)]
        table.replace_column(name, table.MaskedColumn(values, name=name, mask=mask) if mask.any()
                             else table.Column(values, name=name))
        table[name].unit = column.unit
        table[name].description = column.description
    return table


def _cells(column: Any) -> list[str]:
    """A 1-D column's values as ECSV cells: numbers in numpy's shortest round-trip form (C code, so
    100,000 rows take well under a second), text quoted as CSV wants, masked values empty."""
    import numpy as np

    data = np.ma.getdata(column)
    if data.dtype.kind == "S":
        data = np.char.decode(data, "utf-8", "replace")
    if data.dtype.kind in "iu" or (data.dtype.kind == "f" and data.dtype.itemsize == 8):
        cells: list[str] = list(map(repr if data.dtype.kind == "f" else str, data.tolist()))  # Python's shortest repr
    else:
        cells = data.astype(str).tolist()  # float32 keeps its own shortest form; text and booleans as they are
    if data.dtype.kind == "U":
        cells = ['"' + v.replace('"', '""') + '"' if _NEEDS_QUOTES.search(v) else v for v in cells]
    mask = np.ma.getmaskarray(column)
    if mask.any():
        for index in np.flatnonzero(mask).tolist():
            cells[index] = ""
    return cells


def _fast_ecsv_fits(table: Table) -> bool:
    return all(table[n].ndim == 1 and table[n].dtype.kind in "iufbUS" for n in table.colnames)


def _write_ecsv(table: Table, handle: Any) -> None:
    """ECSV as astropy writes it (its own header: types, units, descriptions, meta), with the rows
    formatted in chunks: astropy's ECSV writer formats masked cells one by one in Python (about 14 s
    for 100,000 Gaia rows); this takes under 1 s of CPU and the file reads back identically."""
    import io

    header = io.StringIO()
    table[:0].write(header, format="ascii.ecsv", delimiter=",")
    handle.write(header.getvalue())
    for start in range(0, len(table), CHUNK_ROWS):
        part = table[start : start + CHUNK_ROWS]
        columns = [_cells(part[name]) for name in part.colnames]
        handle.write("\n".join(map(",".join, zip(*columns))))
        handle.write("\n")


def write(table: Table, place: Place, provenance: Provenance, replace: bool = True) -> Path:
    """Write the table with its provenance to `place` (format from the suffix) through the one writer:
    under a fresh temporary name, renamed into place when whole; no link is followed on the way.
    `replace=False`: NameTaken when the table's name (or its side file's) is taken meanwhile."""
    from astro_cli.security import writer

    fmt = FORMATS.get(Path(place.name).suffix.lower())
    if fmt is None:
        raise CatalogError(f"astro writes {WRITES} tables, not '{Path(place.name).suffix}'.")
    table = _plain(table, flat=fmt == "ascii.csv")
    check_format(table, place.name, fmt)
    table.meta.clear()
    if fmt not in SIDECAR_FORMATS:
        table.meta.update(provenance.meta())
    try:
        import io

        with writer.folder(place) as folder_fd, writer.open_in_folder(folder_fd, place.name, replace) as raw:
            with warnings_to_log(f"writing {place.name}"):  # FITS: long queries become CONTINUE cards
                if fmt == "parquet":
                    raw.write(_parquet_bytes(table))
                elif fmt in ("fits", "votable"):
                    table.write(raw, format=fmt)
                else:
                    handle = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
                    if fmt == "ascii.ecsv" and _fast_ecsv_fits(table):
                        _write_ecsv(table, handle)
                    else:
                        table.write(handle, format=fmt)
                    handle.flush()
                    handle.detach()
            if fmt in SIDECAR_FORMATS:
                import json

                side = json.dumps(provenance.meta(), indent=2, ensure_ascii=False) + "\n"
                with writer.open_in_folder(folder_fd, side_name(place.name), replace) as out:
                    out.write(side.encode("utf-8"))
    except writer.NameTaken:
        raise
    except OSError as exc:
        raise CatalogError(f"Could not write {place.name}: {exc.strerror or exc}.") from None
    except (ValueError, TypeError) as exc:  # a column type the format cannot hold
        raise CatalogError(f"Could not write {place.name} ({exc}); try save_as with {other_formats(fmt)}.") from None
    return place.path


def side_name(name: str) -> str:
    """A table's provenance file when its format keeps no meta (CSV, VOTable): `<file>.meta.json`."""
    fmt = FORMATS.get(Path(name).suffix.lower())
    return name + ".meta.json" if fmt in SIDECAR_FORMATS else ""


def _parquet_bytes(table: Table) -> bytes:
    """astropy's Parquet writer takes only a path: it writes into a fresh private folder outside the
    workspace (mkdtemp: 0700, made anew, so no planted link), and the bytes go through the one writer."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="astro-parquet-"))
    try:
        target = folder / "table.parquet"
        table.write(target, format="parquet")
        return target.read_bytes()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
