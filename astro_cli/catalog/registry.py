"""A keyword search of the Virtual Observatory registry (RegTAP, through pyvo.registry) for
catalogues and the TAP services that hold them.

The registry is config 'catalog.registry_url' (a URL setting, so a project's value waits for
trust). A resource whose TAP service is a configured one is named with that service, so the
model can query it at once; any other is listed with its URL and left for the researcher to add
under config 'catalog.services': astro sends ADQL only to services the researcher configured.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from astro_cli.catalog.discover import _short
from astro_cli.catalog.errors import CatalogError
from astro_cli.catalog.services import Service, services
from astro_cli.catalog.tap import describe, tap_service, timeout_session

if TYPE_CHECKING:
    from astro_cli.config import Settings

MAX_RESOURCES = 25
REGISTRY = "registry"


def _plain_url(url: str) -> str:
    return url.split("://", 1)[-1].rstrip("/").lower()


def search_registry(settings: Settings, words: str, timeout: float, agent: str) -> list[str]:
    """Lines 'short name: title (service: gaia | TAP URL)' for the resources the words find."""
    from pyvo.registry import regtap

    terms = [w for w in (words or "").split() if w]
    if not terms:
        raise CatalogError("Give words to search the VO registry for, e.g. search='pulsar distance'.")
    url = str(settings.typed["catalog.registry_url"]).rstrip("/")
    registry = Service(REGISTRY, "the VO registry (RegTAP)", url)
    configured = {_plain_url(s.url): key for key, s in services(settings).items()}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            service = tap_service(registry, timeout, agent)
            query = regtap.get_RegTAP_query(keywords=terms, servicetype="tap", service=service)
            found = regtap.RegistryQuery(url, query, maxrec=200, session=timeout_session(timeout, agent)).execute()
            records = list(found)
    except CatalogError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyvo/requests errors arrive under many names
        raise describe(exc, registry, timeout) from None
    if not records:
        return [f"The VO registry lists no TAP resource for '{' '.join(terms)}'."]
    lines = [f"{len(records)} resources in the VO registry for '{' '.join(terms)}'"
             + (f" (the first {MAX_RESOURCES})" if len(records) > MAX_RESOURCES else "") + ":"]
    for record in records[:MAX_RESOURCES]:
        try:
            access = record.get_interface(service_type="tap", lax=True).access_url
        except Exception:  # noqa: BLE001 - a resource without a TAP interface
            access = ""
        key = configured.get(_plain_url(access)) if access else None
        where = f"service {key}" if key else (f"TAP {access} (not configured)" if access else "no TAP service")
        lines.append(f"{record.short_name or record.ivoid}: {_short(record.res_title, 80)} [{where}]")
    lines.append("Tables of a configured service: catalog_tables(service=..., search=<short name>). Others: the "
                 "researcher can add their URL under config 'catalog.services'.")
    return lines
