"""DataLink: the products a catalogue row links to (Gaia's epoch photometry, spectra, ...).

A TAP row gives numbers; DataLink (IVOA) lists the files behind one source: each link has its
semantics (#this, #epoch-photometry...), a description, a content type and size, and an access URL,
or an error message. astro lists them (read-only, one request), numbered, so the model or the
researcher can say what exists; catalog/products.py downloads one of them deliberately.
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


def access_url(record: Any) -> str:
    """A link's URL, or "" for a row that names a service instead (pyvo then looks the service up in
    the answer, and raises when the answer does not describe it)."""
    try:
        return str(record.access_url or "").strip()
    except Exception:  # noqa: BLE001 - pyvo's DALServiceError and friends: a service row, not a file
        return ""


def link_records(service: Service, ident: str, timeout: float, agent: str) -> list[Any]:
    """The DataLink rows of `ident` on `service` (pyvo's records); CatalogError (one sentence) otherwise."""
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
            return list(DatalinkQuery(service.datalink, id=ident, session=timeout_session(timeout, agent)).execute())
    except Exception as exc:  # noqa: BLE001 - pyvo/requests/astropy errors arrive under many names
        raise describe(exc, service, timeout) from None


def list_links(service: Service, ident: str, timeout: float, agent: str) -> list[str]:
    """One line per DataLink product of `ident` on `service`, numbered as `fetch_product` takes them."""
    name = f"{service.title} ({service.key})"
    ident = " ".join(str(ident or "").split())
    records = link_records(service, ident, timeout, agent)
    lines: list[str] = []
    for number, record in enumerate(records[:MAX_LINKS], 1):
        error = str(record.error_message or "").strip()
        if error:
            lines.append(f"{number}. error: {error}")
            continue
        what = " ".join(p for p in (str(record.semantics or ""), str(record.description or "")) if p.strip())
        kind = str(record.content_type or "").strip()
        lines.append(f"{number}. {what or 'a product'} [{kind or 'unknown type'}{_size(record.content_length)}]: "
                     f"{access_url(record) or '(a service: ' + str(record.service_def or '?') + ')'}")
    head = f"{len(records)} DataLink entr{'y' if len(records) == 1 else 'ies'} for {ident} from {name}:"
    if len(records) > MAX_LINKS:
        lines.append(f"... and {len(records) - MAX_LINKS} more.")
    return [visible(line) for line in [head, *lines]]
