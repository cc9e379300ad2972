"""Catalogue results answered again from the table saved the first time.

The same query (as asked: the ADQL or the cone, and the row limit) to the same service URL within
config 'catalog.cache_hours' (default 24; 0: never) is answered from the file the first answer was
written to, without asking the service (nor SIMBAD, nor its capabilities), and the summary says so and when it was retrieved. The
index is `.astro/catalog-cache.json` in the workspace (written by the one writer): each entry
names the file and its SHA-256, so a file since edited, replaced or removed is never taken for the
service's answer (the query goes to the service again). Queries with an uploaded table are not
cached (the answer depends on the file's content). `fresh` (the tool) and `--no-cache` (the
commands) ask the service again; the new answer replaces the entry.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astropy.table import Table

    from astro_cli.app import AppContext

log = logging.getLogger(__name__)
INDEX = "catalog-cache.json"
MAX_ENTRIES = 500  # the oldest beyond this are forgotten (their files stay)


@dataclass(frozen=True)
class Hit:
    """An earlier answer still valid: its table, the file it is in and its provenance."""

    table: Table
    relative: str
    meta: dict[str, Any]


def request_key(url: str, asked: Mapping[str, object]) -> str:
    """The same query, as the researcher or the model asked it (run.py names the fields: the ADQL or the
    cone, and the row limit; not where the file goes), at the same service URL."""
    return hashlib.sha256(json.dumps({"url": url, **asked}, sort_keys=True, default=str).encode()).hexdigest()


def _digest(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def _index_path(app: AppContext) -> Path:
    return app.workspace.astro_dir / INDEX


def _read(app: AppContext) -> dict[str, Any]:
    path = _index_path(app)
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        log.debug("catalogue cache index %s unreadable; starting afresh", path, exc_info=True)
        return {}
    return data if isinstance(data, dict) else {}


def lookup(app: AppContext, key: str, hours: float) -> Hit | None:
    """The earlier answer to this query on this service, when younger than `hours` and its file
    is still the one astro wrote; None otherwise."""
    from astro_cli.catalog.formats import warnings_to_log

    if hours <= 0:
        return None
    entry = _read(app).get(key)
    if not isinstance(entry, dict):
        return None
    try:
        at = datetime.fromisoformat(str(entry["time"]).replace("Z", "+00:00"))
        relative = str(entry["path"])
    except (KeyError, ValueError):
        return None
    if datetime.now(timezone.utc) - at > timedelta(hours=hours):
        return None
    path = app.workspace.root / relative
    if _digest(path) != entry.get("sha256"):
        log.debug("cached catalogue result %s changed or is gone; asking the service", relative)
        return None
    try:
        from astropy.table import Table

        with warnings_to_log(f"the cached table {relative}"):
            table = Table.read(path)
    except Exception:  # noqa: BLE001 - an unreadable file is no answer: the service is asked
        log.debug("cached catalogue result %s unreadable", relative, exc_info=True)
        return None
    return Hit(table, relative, dict(entry.get("meta") or {}))


def remember(app: AppContext, key: str, relative: str, meta: dict[str, Any]) -> None:
    """Record the file this answer was written to (failures logged: a cache is never worth an error)."""
    from astro_cli.security.writer import write_file

    path = app.workspace.root / relative
    digest = _digest(path)
    if digest is None:
        return
    index = _read(app)
    index[key] = {"time": meta.get("time"), "path": relative, "sha256": digest, "meta": meta}
    if len(index) > MAX_ENTRIES:
        kept = sorted(index.items(), key=lambda item: str(item[1].get("time", "")))[-MAX_ENTRIES:]
        index = dict(kept)
    try:
        write_file(_index_path(app), json.dumps(index, indent=1), root=app.workspace.root)
    except OSError:
        log.debug("could not write the catalogue cache index", exc_info=True)
