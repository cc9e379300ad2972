"""A table of the workspace sent with a query as TAP_UPLOAD.targets (a cross-match of many targets).

A list of 300 targets is one query, not 300 cones: the service joins its catalogue with the
uploaded table (`... JOIN TAP_UPLOAD.targets AS t ON 1 = CONTAINS(POINT(...), CIRCLE('ICRS',
t.ra, t.dec, r))`). The file is read as the model's file arguments are (confined to the
workspace), by astropy (ECSV, CSV, FITS, VOTable); pyvo sends it as a VOTable.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from astro_cli.catalog.errors import CatalogError
from astro_cli.catalog.formats import warnings_to_log

if TYPE_CHECKING:
    from astropy.table import Table

    from astro_cli.app import AppContext

UPLOAD_NAME = "targets"
UPLOAD_TABLE = f"TAP_UPLOAD.{UPLOAD_NAME}"
MAX_UPLOAD_ROWS = 100_000  # archives refuse larger uploads (Gaia's limit is in this range); beyond: a bulk job
_USES_UPLOAD = re.compile(r"\bTAP_UPLOAD\s*\.\s*targets\b", re.IGNORECASE)


def read_upload(app: AppContext, raw: str, adql: str) -> Table:
    """The table at `raw` (workspace-confined), checked to be worth sending with `adql`."""
    from astropy.table import Table

    if not _USES_UPLOAD.search(adql):
        raise CatalogError(f"upload sends the table as {UPLOAD_TABLE}, but the query never names it; join it, e.g. "
                           f"... JOIN {UPLOAD_TABLE} AS t ON 1 = CONTAINS(POINT('ICRS', ra, dec), "
                           "CIRCLE('ICRS', t.ra, t.dec, 1/3600.)).")
    path = app.confinement.resolve(raw, must_exist=True)
    fmt = "ascii.csv" if path.suffix.lower() in (".csv", ".txt") else None
    try:
        with warnings_to_log(f"reading the upload {path.name}"):
            table = Table.read(path, format=fmt) if fmt else Table.read(path)
    except Exception as exc:  # noqa: BLE001 - astropy's readers fail under many names
        raise CatalogError(f"Could not read '{raw}' as a table ({type(exc).__name__}: "
                           f"{' '.join(str(exc).split())[:160]}); upload an ECSV, CSV, FITS or VOTable file.") from None
    if not 0 < len(table) <= MAX_UPLOAD_ROWS:
        raise CatalogError(f"'{raw}' has {len(table):,} rows; an upload holds 1 to {MAX_UPLOAD_ROWS:,} (split it, or "
                           "use the archive's bulk tools).")
    table.meta.clear()  # provenance of an earlier query is not the service's business
    return table
