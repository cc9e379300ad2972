"""What a TAP service states about itself: its output limits (TAPRegExt, /capabilities) and its
example queries (DALI examples, /examples), both read through pyvo.

A service that states a hard row limit answers no more rows than that whatever astro asks, so
astro's own ceiling (run.HARD_MAX_ROWS) gives way to it, and a query asking for more is told so
before it is sent. A service that states nothing (or cannot be read) keeps astro's limits; why is
in the debug log. Examples are real queries the service's authors wrote against its own tables:
the model reads them on request (catalog_tables examples=true) instead of guessing column names.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from astro_cli.catalog.errors import CatalogError

if TYPE_CHECKING:
    from astro_cli.catalog.services import Service

log = logging.getLogger(__name__)
MAX_EXAMPLES = 20
MAX_QUERY_CHARS = 600


@dataclass(frozen=True)
class OutputLimits:
    default: int | None = None  # the rows the service returns when no MAXREC is sent
    hard: int | None = None  # the most rows it returns, whatever MAXREC says


def _rows(value: object) -> int | None:
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def output_limits(service: Service, timeout: float, agent: str) -> OutputLimits:
    """The row limits the service's /capabilities states (in rows); none when it states none."""
    from astro_cli.catalog.tap import tap_service

    try:
        capability = tap_service(service, timeout, agent).get_tap_capability()
        limit = getattr(capability, "outputlimit", None)
        if limit is None:
            return OutputLimits()
        found = {}
        for which in ("default", "hard"):
            part = getattr(limit, which, None)
            unit = str(getattr(part, "unit", "row") or "row")
            found[which] = _rows(getattr(part, "content", None)) if part is not None and unit == "row" else None
        return OutputLimits(found["default"], found["hard"])
    except Exception:  # noqa: BLE001 - a service without (readable) capabilities keeps astro's limits
        log.debug("no output limits read from %s's capabilities", service.key, exc_info=True)
        return OutputLimits()


def _examples(service: Service, timeout: float, agent: str) -> list[tuple[str, str]]:
    """(name, query) of each example in the service's DALI examples document (XHTML with RDFa:
    elements typeof="example" holding property="name" and property="query")."""
    import xml.etree.ElementTree as ET

    from astro_cli.catalog.tap import timeout_session

    response = timeout_session(timeout, agent).get(f"{service.url}/examples")
    if response.status_code == 404:
        return []
    response.raise_for_status()
    root = ET.fromstring(response.content)
    found: list[tuple[str, str]] = []
    for example in root.iter():
        if example.get("typeof") != "example":
            continue
        parts = {str(e.get("property")): "".join(e.itertext()) for e in example.iter() if e.get("property")}
        query = " ".join(parts.get("query", "").split())
        if query:
            found.append((" ".join(parts.get("name", "").split()), query))
    return found


def list_examples(service: Service, timeout: float, agent: str) -> list[str]:
    """Lines for the service's example queries: name, then the ADQL indented."""
    from astro_cli.catalog.tap import describe

    try:
        examples = _examples(service, timeout, agent)
    except Exception as exc:  # noqa: BLE001 - requests and XML errors arrive under many names
        log.debug("examples of %s", service.key, exc_info=True)
        if isinstance(exc, SyntaxError):  # ElementTree's ParseError
            raise CatalogError(f"{service.title} ({service.key}) sent an examples document astro could not "
                               "read (not XHTML).") from None
        raise describe(exc, service, timeout) from None
    if not examples:
        return [f"{service.title} ({service.key}) lists no example queries."]
    lines = [f"{len(examples)} example queries from {service.title} ({service.key}), written by its authors"
             + (f" (the first {MAX_EXAMPLES})" if len(examples) > MAX_EXAMPLES else "") + ":"]
    for number, (name, query) in enumerate(examples[:MAX_EXAMPLES], 1):
        cut = query if len(query) <= MAX_QUERY_CHARS else query[:MAX_QUERY_CHARS] + " …"
        lines.append(f"{number}. {name[:200] or 'example'}\n   {cut}")
    return lines
