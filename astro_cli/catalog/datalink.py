"""DataLink: the products a catalogue row links to (Gaia's epoch photometry, spectra, ...).

A TAP row gives numbers; DataLink (IVOA) lists the files behind one source: each link has its
semantics (#this, #epoch-photometry...), a description, a content type and size, and an access URL,
or an error message. astro lists them (read-only, one request) so the model or the researcher can
say what exists and fetch a product deliberately; it downloads nothing itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from astro_cli.catalog.errors import CatalogError
from astro_cli.catalog.formats import warnings_to_log
from astro_cli.security.visible import visible

if TYPE_CHECKING:
    from astro_cli.catalog.services import Service

MAX_LINKS = 50


def _size(value: Any) -> str:
    try:
        size = int(value)
    except (TypeError, ValueError):
        return ""
    return f", {size / 1e6:.1f} MB" if size >= 100_000 else f", {size:,} bytes" if size > 0 else ""


def list_links(service: Service, ident: str, timeout: float, agent: str) -> list[str]:
    """One line per DataLink product of `ident` on `service`; CatalogError (one sentence) otherwise."""
    from pyvo.dal.adhoc import DatalinkQuery

    from astro_cli.catalog.tap import describe, timeout_session

    name = f"{service.title} ({service.key})"
    ident = " ".join(str(ident or "").split())
    if not ident:
        raise CatalogError("Give the identifier of one source, e.g. links='Gaia DR3 4583627001381815936'.")
    if not service.datalink:
        raise CatalogError(f"astro knows no DataLink service of {name}; add one as config "
                           f"'catalog.services.{service.key}.datalink_url'.")
    try:
        with warnings_to_log(f"the DataLink answer of {service.key}"):
            records = list(DatalinkQuery(service.datalink, id=ident, session=timeout_session(timeout, agent)).execute())
    except Exception as exc:  # noqa: BLE001 - pyvo/requests/astropy errors arrive under many names
        raise describe(exc, service, timeout) from None
    lines: list[str] = []
    for record in records[:MAX_LINKS]:
        error = str(record.error_message or "").strip()
        if error:
            lines.append(f"- error: {error}")
            continue
        what = " ".join(p for p in (str(record.semantics or ""), str(record.description or "")) if p.strip())
        kind = str(record.content_type or "").strip()
        lines.append(f"- {what or 'a product'} [{kind or 'unknown type'}{_size(record.content_length)}]: "
                     f"{record.access_url or '(a service: ' + str(record.service_def or '?') + ')'}")
    head = f"{len(records)} DataLink entr{'y' if len(records) == 1 else 'ies'} for {ident} from {name}:"
    if len(records) > MAX_LINKS:
        lines.append(f"... and {len(records) - MAX_LINKS} more.")
    return [visible(line) for line in [head, *lines]]
