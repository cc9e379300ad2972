"""Table discovery: a service's tables (filtered by a word), and one table's columns with units and
descriptions, so the model writes ADQL that names real columns.

Read through pyvo's VOSI `/tables` (its public `TAPService.tables`); a service that lists its
tables without columns is asked for the one table (`/tables/<name>`), as pyvo does lazily.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from astro_cli.catalog.errors import CatalogError
from astro_cli.catalog.summary import cell, clean
from astro_cli.catalog.tap import describe, tap_service

if TYPE_CHECKING:
    from astro_cli.catalog.services import Service

MAX_TABLES = 40
MAX_COLUMNS = 120
DESCRIPTION_CHARS = 90


def _short(text: Any, limit: int = DESCRIPTION_CHARS) -> str:
    words = " ".join(clean(str(text or "")).split())
    return words if len(words) <= limit else words[: limit - 1].rstrip() + "…"


def _tables(service: Service, timeout: float, agent: str) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tap_service(service, timeout, agent).tables
    except Exception as exc:  # noqa: BLE001 - pyvo/requests errors arrive under many names
        raise describe(exc, service, timeout) from None


def list_tables(service: Service, timeout: float, agent: str, word: str | None = None) -> list[str]:
    """Lines 'name: description' for the tables whose name or description holds `word`."""
    needle = (word or "").strip().lower()
    found: list[str] = []
    total = 0
    for table in _tables(service, timeout, agent):
        description = " ".join(str(table.description or "").split())
        if needle and needle not in table.name.lower() and needle not in description.lower():
            continue
        total += 1
        if len(found) < MAX_TABLES:
            found.append(f"{_short(table.name, 200)}: {_short(description)}" if description else _short(table.name, 200))
    if not found:
        what = f" matching '{word}'" if needle else ""
        return [f"{service.title} ({service.key}) lists no table{what}."]
    head = f"{total} tables in {service.title} ({service.key})" + (f" matching '{word}'" if needle else "") + ":"
    more = [f"… and {total - MAX_TABLES} more; narrow with a word."] if total > MAX_TABLES else []
    return [head, *found, *more]


def describe_table(service: Service, name: str, timeout: float, agent: str) -> list[str]:
    """Lines for one table: its description, then 'column [unit] (type): description'."""
    tables = _tables(service, timeout, agent)
    wanted = name.strip().strip('"').lower()
    match = next((t for t in tables if t.name.strip('"').lower() == wanted), None)
    if match is None:
        close = [t.name for t in tables if wanted.split(".")[-1] in t.name.lower()][:5]
        hint = f" (did you mean {', '.join(close)}?)" if close else "; list the tables with a word to find it"
        raise CatalogError(f"{service.title} ({service.key}) has no table '{name}'{hint}.")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            columns = list(match.columns)
    except Exception as exc:  # noqa: BLE001
        raise describe(exc, service, timeout) from None
    lines = [f"{match.name}: {_short(match.description, 300)}" if match.description else match.name,
             f"{len(columns)} columns (name [unit] (type): description):"]
    for column in columns[:MAX_COLUMNS]:
        unit = f" [{clean(str(column.unit))}]" if column.unit else ""
        kind = getattr(column.datatype, "content", None) or ""
        kind_text = f" ({kind})" if kind else ""
        text = _short(column.description)
        lines.append(f"  {cell(column.name)}{unit}{kind_text}" + (f": {text}" if text else ""))
    if len(columns) > MAX_COLUMNS:
        lines.append(f"  … and {len(columns) - MAX_COLUMNS} more columns.")
    return lines
