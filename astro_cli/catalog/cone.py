"""A cone search as ADQL: the objects of one table within a radius of a position, nearest first.

The table and its position columns come from the service's default (services.ConeTable) unless
the caller names them; the distance is computed by the service, so the file says how far each
row lies from the centre.
"""

from __future__ import annotations

import re

from astro_cli.catalog.adql import number
from astro_cli.catalog.errors import CatalogError
from astro_cli.catalog.services import ConeTable, Service

MAX_RADIUS_DEG = 5.0
_IDENTIFIER = re.compile(r'^(?:"[^"]+"|[A-Za-z_][\w]*)(?:\.(?:"[^"]+"|[A-Za-z_][\w]*))*$')
_COLUMN_LIST = re.compile(r'^\s*(\*|(?:"[^"]+"|[A-Za-z_]\w*)(?:\s*,\s*(?:"[^"]+"|[A-Za-z_]\w*))*)\s*$')


def _name(value: str, what: str) -> str:
    text = value.strip()
    if not _IDENTIFIER.match(text):
        raise CatalogError(f"{what} '{value}' is not a table or column name (letters, digits, _, dots, or a "
                           'quoted name such as "I/355/gaiadr3").')
    return text


def cone_table(service: Service, table: str | None, ra: str | None, dec: str | None,
               columns: str | None) -> ConeTable:
    """The table to search: the caller's, or the service's default."""
    base = service.cone
    if not table:
        if base is None:
            raise CatalogError(f"{service.key} has no default table for cone searches; name one with table=... "
                               "(list_tables shows them).")
        table_name = base.name
    else:
        table_name = _name(table, "table")
    same = base is not None and base.name.lower() == table_name.lower()
    ra_col = _name(ra, "ra column") if ra else (base.ra if same and base else "ra")
    dec_col = _name(dec, "dec column") if dec else (base.dec if same and base else "dec")
    wanted = columns if columns else (base.columns if same and base else "*")
    if not _COLUMN_LIST.match(wanted):
        raise CatalogError(f"columns '{columns}' should be column names separated by commas, or *.")
    return ConeTable(table_name, ra_col, dec_col, " ".join(wanted.split()))


def cone_adql(table: ConeTable, ra: float, dec: float, radius_deg: float, top: int) -> str:
    if not 0 < radius_deg <= MAX_RADIUS_DEG:
        raise CatalogError(f"The radius must be above 0 and at most {MAX_RADIUS_DEG:g} degrees.")
    centre = f"POINT('ICRS', {number(ra)}, {number(dec)})"
    here = f"POINT('ICRS', {table.ra}, {table.dec})"
    return (
        f"SELECT TOP {int(top)} {table.columns}, DISTANCE({here}, {centre}) * 3600 AS dist_arcsec "
        f"FROM {table.name} "
        f"WHERE 1 = CONTAINS({here}, CIRCLE('ICRS', {number(ra)}, {number(dec)}, {number(radius_deg)})) "
        "ORDER BY dist_arcsec"
    )
