"""ADQL executed over SQLite: the engine of the tests' TAP service (tests/adql_server.py).

Not a replay: a query is parsed by a real ADQL parser (queryparser-python3, the ADQL grammar of
the IVOA standard in ANTLR, maintained by the AIP/GAVO people who run Gaia mirrors), translated to
its MySQL form (backquoted names, `LIMIT`, the mysql_sphere functions `spoint`, `scircle`, `sdist`,
`srcontainsl`), and that text is run by SQLite with those functions registered here (SQLite
accepts backquoted names). So a wrong column, table or clause fails as it would on an archive, in
the service's words (`no such column: paralax`), and a cone or a join returns exactly the rows its
geometry selects.

What runs: whatever queryparser translates and SQLite then executes: SELECT [TOP n] (DISTINCT),
WHERE, JOIN, ORDER BY, GROUP BY, arithmetic, CONTAINS(POINT, CIRCLE) = 1, DISTANCE(POINT, POINT),
schema-qualified tables (`gaiadr3.gaia_source` is table `gaia_source` of the attached database
`gaiadr3`), `TAP_UPLOAD.<name>` (the uploaded VOTables, attached per query) and `TAP_SCHEMA.tables`
/ `.columns` (filled from the tables added). Not supported: BOX, POLYGON, REGION, INTERSECTS, and
any function SQLite lacks (they fail with SQLite's message, which is honest but not an archive's).
"""

from __future__ import annotations

import io
import math
import re
import sqlite3
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_POINT = struct.Struct("<dd")
_CIRCLE = struct.Struct("<ddd")


def _spoint(lon: float | None, lat: float | None) -> bytes | None:
    return None if lon is None or lat is None else _POINT.pack(lon, lat)


def _scircle(centre: bytes | None, radius: float | None) -> bytes | None:
    return None if centre is None or radius is None else _CIRCLE.pack(*_POINT.unpack(centre), radius)


def _angle(a: tuple[float, float], b: tuple[float, float]) -> float:
    """The great-circle distance in radians (haversine: exact at arcsecond scales)."""
    (lon1, lat1), (lon2, lat2) = a, b
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * math.asin(min(1.0, math.sqrt(h)))


def _sdist(p: bytes | None, q: bytes | None) -> float | None:
    return None if p is None or q is None else _angle(_POINT.unpack(p), _POINT.unpack(q))


def _srcontainsl(point: bytes | None, circle: bytes | None) -> int | None:
    if point is None or circle is None:
        return None
    lon, lat, radius = _CIRCLE.unpack(circle)
    here = _POINT.unpack(point)
    if abs(here[1] - lat) > radius:  # the latitudes alone say no: most pairs of a join
        return 0
    return int(_angle(here, (lon, lat)) <= radius)


FUNCTIONS: dict[str, tuple[int, Any]] = {
    "spoint": (2, _spoint), "scircle": (2, _scircle), "sdist": (2, _sdist), "srcontainsl": (2, _srcontainsl)}
MATH: dict[str, tuple[int, Any]] = {  # SQLite's own when it was built with its math functions (faster)
    "radians": (1, lambda x: None if x is None else math.radians(x)),
    "degrees": (1, lambda x: None if x is None else math.degrees(x))}


class AdqlError(Exception):
    """The query cannot run: the message is what the service tells the client."""


@dataclass
class Column:
    name: str
    unit: str = ""
    description: str = ""


@dataclass
class AdqlEngine:
    """Tables in SQLite files under `folder`, queried in ADQL (one connection per query)."""

    folder: Path
    columns: dict[str, list[Column]] = field(default_factory=dict)  # "schema.table" -> its columns

    def add_table(self, name: str, table: Any, units: dict[str, str] | None = None) -> None:
        """Store an astropy Table (or anything Table() takes) as `name` ("schema.table" or "table")."""
        from astropy.table import Table

        table = Table(table, masked=True)
        schema, _, bare = name.rpartition(".")
        with self._connect() as db:
            if schema:
                db.execute(f"ATTACH DATABASE ? AS {_quote(schema)}", (str(self._file(schema)),))
            db.execute(f"PRAGMA {_quote(schema or 'main')}.synchronous = OFF")  # test data: no fsync per row
            db.execute("BEGIN")
            cols = ", ".join(_quote(c) for c in table.colnames)
            db.execute(f"CREATE TABLE {_quote(schema or 'main')}.{_quote(bare)} ({cols})")
            rows = zip(*[_plain(table[c]) for c in table.colnames])
            db.executemany(f"INSERT INTO {_quote(schema or 'main')}.{_quote(bare)} VALUES "
                           f"({', '.join('?' * len(table.colnames))})", rows)
            db.execute("COMMIT")
        units = units or {}
        self.columns[name] = [Column(c, units.get(c) or str(table[c].unit or "")) for c in table.colnames]

    def run(self, adql: str, uploads: dict[str, bytes] | None = None, maxrec: int | None = None) -> Any:
        """The query's rows as an astropy Table; AdqlError with the service's message otherwise."""
        from queryparser.adql import ADQLQueryTranslator
        from queryparser.exceptions import QuerySyntaxError

        try:
            sql = ADQLQueryTranslator(adql.strip().rstrip(";")).to_mysql()
        except QuerySyntaxError as exc:
            where = "; ".join(f"line {line}, column {col + 1}, " + ("the end of the query" if text in (";", "<EOF>")
                                                                    else f"near '{text}'")
                              for line, col, text in exc.syntax_errors)  # queryparser ends the text with ';'
            raise AdqlError(f"Incorrect ADQL query: syntax error at {where or 'the end'}") from None
        except Exception as exc:  # noqa: BLE001 - queryparser fails on odd input under several names
            raise AdqlError(f"Incorrect ADQL query: {type(exc).__name__}: {exc}") from None
        with self._connect() as db:
            for schema in {n.rpartition(".")[0] for n in self.columns} - {""}:
                db.execute(f"ATTACH DATABASE ? AS {_quote(schema)}", (str(self._file(schema)),))
            self._attach_tap_schema(db)
            self._attach_uploads(db, uploads or {})
            try:
                cursor = db.execute(sql)
                names = [d[0] for d in cursor.description]
                rows = cursor.fetchmany(maxrec + 1) if maxrec is not None else cursor.fetchall()
            except sqlite3.Error as exc:
                raise AdqlError(f"Incorrect ADQL query: {exc}") from None
        return self._table(names, rows)

    def _table(self, names: list[str], rows: list[tuple[Any, ...]]) -> Any:
        import numpy as np
        from astropy.table import MaskedColumn, Table

        units = {c.name: c.unit for cols in self.columns.values() for c in cols if c.unit}
        out = Table()
        for index, name in enumerate(names):
            values = [row[index] for row in rows]
            mask = np.array([v is None for v in values], dtype=bool)
            present = [v for v in values if v is not None]
            if present and all(isinstance(v, int) for v in present):
                data = np.array([0 if v is None else v for v in values], dtype=np.int64)
            elif present and all(isinstance(v, (int, float)) for v in present):
                data = np.array([math.nan if v is None else v for v in values], dtype=np.float64)
            else:
                data = np.array(["" if v is None else str(v) for v in values], dtype=str)
            unique = name if name not in out.colnames else f"{name}_{index}"
            out[unique] = MaskedColumn(data, mask=mask, unit=units.get(name) or None)
        return out

    def _attach_tap_schema(self, db: sqlite3.Connection) -> None:
        db.execute("ATTACH DATABASE ':memory:' AS TAP_SCHEMA")
        db.execute("CREATE TABLE TAP_SCHEMA.tables (schema_name, table_name, table_type, description)")
        db.execute("CREATE TABLE TAP_SCHEMA.columns (table_name, column_name, unit, description, datatype)")
        for name, cols in self.columns.items():
            db.execute("INSERT INTO TAP_SCHEMA.tables VALUES (?, ?, 'table', '')", (name.rpartition(".")[0], name))
            db.executemany("INSERT INTO TAP_SCHEMA.columns VALUES (?, ?, ?, ?, '')",
                           [(name, c.name, c.unit, c.description) for c in cols])

    def _attach_uploads(self, db: sqlite3.Connection, uploads: dict[str, bytes]) -> None:
        from astropy.table import Table

        db.execute("ATTACH DATABASE ':memory:' AS TAP_UPLOAD")
        for name, payload in uploads.items():
            try:
                table = Table.read(io.BytesIO(payload), format="votable")
            except Exception as exc:  # noqa: BLE001 - a client's bad upload is the client's error
                raise AdqlError(f"Cannot read the uploaded table {name}: {exc}") from None
            db.execute(f"CREATE TABLE TAP_UPLOAD.{_quote(name)} ({', '.join(_quote(c) for c in table.colnames)})")
            db.executemany(f"INSERT INTO TAP_UPLOAD.{_quote(name)} VALUES ({', '.join('?' * len(table.colnames))})",
                           zip(*[_plain(table[c]) for c in table.colnames]))

    def _file(self, schema: str) -> Path:
        return self.folder / f"{re.sub(r'[^A-Za-z0-9_]', '_', schema or 'main')}.sqlite"

    def _connect(self) -> sqlite3.Connection:
        self.folder.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self._file(""), isolation_level=None, check_same_thread=False)
        try:
            db.execute("SELECT radians(0), degrees(0)")
            missing = {}
        except sqlite3.OperationalError:
            missing = MATH
        for name, (arity, function) in {**FUNCTIONS, **missing}.items():
            db.create_function(name, arity, function, deterministic=True)
        return _Closing(db)  # type: ignore[return-value]


class _Closing:
    """A connection that commits and closes at the end of a `with` (sqlite3's only commits)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        return self.db

    def __exit__(self, *exc: object) -> None:
        self.db.close()


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _plain(column: Any) -> list[Any]:
    """A column's values as Python scalars, masked ones as None (what sqlite3 stores as NULL)."""
    import numpy as np

    mask = np.ma.getmaskarray(column)
    values = np.ma.getdata(column).tolist()
    return [None if m else (v.decode() if isinstance(v, bytes) else v) for v, m in zip(values, mask.tolist())]
