"""A DataLink product (a spectrum, epoch photometry, an image) downloaded into the workspace's data/.

`list_links` says what exists behind a source; `fetch_product` takes one of those links, chosen by
its number in that listing or by its semantics (`#this`, `epoch-photometry`), streams it from its
access URL with astro's timeout and User-Agent, and writes it through the one file writer: under a
temporary name, renamed into place only when whole (an interrupted or oversized download leaves
nothing), never through a link. A name already taken goes to a fresh name beside it unless
replacing was allowed, as query_catalog's tables do. Only http(s) URLs are followed (the URL comes
from the service's answer), at most MAX_BYTES.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from astro_cli.catalog.datalink import access_url
from astro_cli.catalog.errors import CatalogError
from astro_cli.security.visible import visible

if TYPE_CHECKING:
    from pathlib import Path

    from astro_cli.catalog.services import Service
    from astro_cli.security.writer import Place

MAX_BYTES = 2_000_000_000  # a product larger than this is the archive's bulk tools' job
CHUNK = 1 << 20
MAX_REDIRECTS = 5
DATA_DIR = "data"
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")
_EXTENSIONS = {"application/fits": ".fits", "image/fits": ".fits", "application/x-votable+xml": ".vot",
               "text/xml": ".xml", "text/csv": ".csv", "text/plain": ".txt", "image/png": ".png",
               "image/jpeg": ".jpg", "application/pdf": ".pdf", "application/x-tar": ".tar",
               "application/gzip": ".gz", "application/zip": ".zip"}


@dataclass
class Fetched:
    """Where a product went, and what it was."""

    path: Path
    relative: str
    size: int
    semantics: str
    content_type: str
    url: str
    instead_of: str | None = None

    def summary(self, ident: str, service: Service) -> str:
        kind = f"{self.semantics} " if self.semantics else ""
        text = (f"Downloaded the {kind}product of {ident} from {service.title} ({service.key}): {self.size:,} bytes "
                f"[{self.content_type or 'unknown type'}] written to {self.relative} (from {self.url}).")
        if self.instead_of:
            text += (f" {self.instead_of} already exists and astro did not write it in this session, so the file "
                     f"went beside it (replace=true, the command's --replace, replaces it instead).")
        return visible(text)


def choose(records: list[Any], which: str | None) -> Any:
    """The link `which` names: its number in the listing (1, 2, ...), or its semantics; by default the
    source's own product (#this), else the only or first one that has a URL."""
    errors = [str(r.error_message).strip() for r in records if str(r.error_message or "").strip()]
    usable = [r for r in records if not str(r.error_message or "").strip() and access_url(r)]
    if not usable:
        raise CatalogError("The service lists no product to download" + (f": {errors[0]}." if errors else "."))
    wanted = (which or "").strip()
    if not wanted:
        return next((r for r in usable if str(r.semantics or "") == "#this"), usable[0])
    if wanted.isdigit():
        number = int(wanted)
        if 1 <= number <= len(records) and records[number - 1] in usable:
            return records[number - 1]
        raise CatalogError(f"Product {number} is not a downloadable entry of the listing (1 to {len(records)}).")
    semantics = "#" + wanted.lstrip("#").lower()
    found = [r for r in usable if str(r.semantics or "").lower() == semantics]
    if not found:
        known = ", ".join(sorted({str(r.semantics) for r in usable if r.semantics})) or "none"
        raise CatalogError(f"No product with semantics {semantics}; the service lists {known}.")
    return found[0]


def file_name(record: Any, ident: str, save_as: str | None) -> str:
    """`data/<name>`: the name given, else the URL's file name, else the source and the semantics,
    with an extension from the content type."""
    if save_as and save_as.strip():
        parts = [p for p in re.split(r"[\\/]+", save_as.strip()) if p not in ("", ".")]
        if not parts or ".." in parts:
            raise CatalogError(f"save_as '{save_as}' should be a file name such as 'spectrum.fits'.")
        parts = parts[1:] if parts[0] == DATA_DIR and len(parts) > 1 else parts
        return f"{DATA_DIR}/" + "/".join(_UNSAFE.sub("_", p).strip("_.") or "product" for p in parts)
    content = str(record.content_type or "").split(";")[0].strip().lower()
    last = os.path.basename(urlsplit(access_url(record)).path)
    stem, ext = os.path.splitext(last)
    if not ext:
        tag = str(record.semantics or "").lstrip("#") or "product"
        stem, ext = f"{ident}_{tag}", _EXTENSIONS.get(content, ".dat")
    return f"{DATA_DIR}/{_UNSAFE.sub('_', stem).strip('_.') or 'product'}{ext.lower()}"


def fetch_product(service: Service, ident: str, which: str | None, save_as: str | None, timeout: float, agent: str,
                  place: Callable[[str], Place], may_replace: Callable[[Path], bool]) -> Fetched:
    """Download one DataLink product of `ident` into data/; CatalogError (one sentence) otherwise."""
    from astro_cli.catalog.datalink import link_records

    records = link_records(service, ident, timeout, agent)
    record = choose(records, which)
    url = access_url(record)
    refuse_inner(service, url)
    relative = file_name(record, " ".join(ident.split()), save_as)
    target = place(relative)  # refused before anything is downloaded when the file may not go there
    written, size = _download(service, url, target, may_replace, timeout, agent)
    return Fetched(written.path, relative[: len(relative) - len(target.name)] + written.name, size, str(record.semantics or ""),
                   str(record.content_type or ""), url, None if written == target else target.name)


def refuse_inner(service: Service, url: str) -> None:
    """A product URL comes from the service's answer: only http(s), and not inside this machine or its
    network (security/addresses.py) unless it is the service's own host (a lab's own TAP server)."""
    from astro_cli.security.addresses import leads_inside

    if urlsplit(url).scheme not in ("http", "https"):
        raise CatalogError(f"The product's URL is not http(s) ({visible(url[:120])}); astro does not follow it.")
    if leads_inside(url) and _host(url) != _host(service.url):
        raise CatalogError(f"The product's URL leads to this machine or its local network ({visible(url[:120])}), "
                           f"not to {service.title}'s own host; astro does not follow it.")


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def _open(service: Service, url: str, timeout: float, agent: str) -> Any:
    """The response to `url`, its redirects followed by hand so that each hop is checked as the first."""
    from astro_cli.catalog.tap import timeout_session

    session = timeout_session(timeout, agent)
    for _ in range(MAX_REDIRECTS + 1):
        response = session.get(url, stream=True, allow_redirects=False)
        if response.is_redirect and response.headers.get("Location"):
            from urllib.parse import urljoin

            url = urljoin(url, response.headers["Location"])
            response.close()
            refuse_inner(service, url)
            continue
        return response
    raise CatalogError(f"The product's URL redirects more than {MAX_REDIRECTS} times; astro stopped following it.")


def _download(service: Service, url: str, target: Place, may_replace: Callable[[Path], bool], timeout: float,
              agent: str) -> tuple[Place, int]:
    """Stream `url` into `target` (or the first free name beside it), whole or not at all."""
    import requests

    from astro_cli.catalog.run import fresh, taken
    from astro_cli.catalog.tap import describe
    from astro_cli.security import writer

    name = f"{service.title} ({service.key})"
    for _ in range(20):  # a name taken between the look and the write: the next free one
        replace = taken(target) and may_replace(target.path)
        if taken(target) and not replace:
            target = fresh(target)
            continue
        try:
            with _open(service, url, timeout, agent) as response:
                if response.status_code >= 400:
                    raise CatalogError(f"{name} answered HTTP {response.status_code} for the product; try again later.")
                declared = int(response.headers.get("Content-Length") or 0)
                if declared > MAX_BYTES:
                    raise CatalogError(f"The product is {declared / 1e9:.1f} GB; astro downloads at most "
                                       f"{MAX_BYTES / 1e9:.0f} GB (use the archive's bulk tools).")
                size = 0
                with writer.open_binary(target, replace=replace) as handle:
                    for chunk in response.iter_content(CHUNK):
                        size += len(chunk)
                        if size > MAX_BYTES:
                            raise CatalogError(f"The product is larger than {MAX_BYTES / 1e9:.0f} GB; nothing was "
                                               "kept (use the archive's bulk tools).")
                        handle.write(chunk)
            return target, size
        except writer.NameTaken:
            continue
        except CatalogError:
            raise
        except OSError as exc:
            if isinstance(exc, requests.RequestException):
                raise describe(exc, service, timeout) from None
            raise CatalogError(f"Could not write {target.name}: {exc.strerror or exc}.") from None
    raise CatalogError(f"Could not find a free name beside {target.name}; choose another save_as.")
