"""Crossref's REST API (api.crossref.org/works/DOI): metadata for a DOI when ADS has no token, and
the update relations that say a paper was retracted or corrected.

Crossref records a notice both ways: the retracted paper lists it under `updated-by` (type
retraction, withdrawal, correction, corrigendum, erratum, expression_of_concern ... with its date),
and the notice itself lists the paper under `update-to`. `status_mark` turns the first into the
few words shown beside the paper in search results, the library and the citation footer
("retracted 2009; corrected 2018"). The endpoint is config 'crossref_url' (a test server in the
tests); `http.contact`, when set, goes along as `mailto`, which puts the request in Crossref's
polite pool.
"""

from __future__ import annotations

import html
import logging
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from astro_cli.research.sources.http import ServiceError, make_client, request

if TYPE_CHECKING:
    from astro_cli.research.sources.web import Web

log = logging.getLogger(__name__)
SERVICE = "Crossref"
RETRACTED = {"retraction", "withdrawal", "removal", "partial_retraction"}
CORRECTED = {"correction", "corrigendum", "erratum", "addendum", "clarification"}
CONCERN = {"expression_of_concern"}


def work(web: Web, doi: str) -> dict[str, Any] | None:
    """The record for a DOI in the common shape, or None when Crossref does not know it."""
    base = web.settings.typed["crossref_url"].rstrip("/")
    url = f"{base}/works/{quote(doi.strip(), safe='')}"
    contact = web.settings.typed["http.contact"]
    params = {"mailto": contact} if contact and "@" in str(contact) else None
    with make_client(web) as client:
        try:
            response = request(client, "GET", url, service=SERVICE, setting="crossref_url", params=params)
        except ServiceError as exc:
            if "HTTP 404" in str(exc):
                return None
            raise
    try:
        body = response.json()
    except ValueError:
        raise ServiceError("Crossref sent an answer that is not JSON; try again later.") from None
    message = body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, dict):
        raise ServiceError("Crossref answered without a work record; try again later.")
    return work_to_record(message)


def work_to_record(message: dict[str, Any]) -> dict[str, Any]:
    """A Crossref work message in the common record shape, with its update relations."""
    doi = str(message.get("DOI") or "")
    titles = message.get("title") or []
    journals = message.get("container-title") or []
    year = _year(message.get("issued")) or _year(message.get("published"))
    count = message.get("is-referenced-by-count")
    return {
        "id": doi,
        "arxiv_id": None,
        "bibcode": None,
        "doi": doi,
        "title": " ".join(html.unescape(str(titles[0] if titles else "")).split()),
        "authors": [_author(a) for a in message.get("author") or [] if isinstance(a, dict)],
        "year": year,
        "abstract": " ".join(re.sub(r"<[^>]{1,80}>", " ", html.unescape(str(message.get("abstract") or ""))).split()),
        "citation_count": count if isinstance(count, int) else None,
        "journal": str(journals[0]) if journals else None,
        "volume": message.get("volume"),
        "page": message.get("page"),
        "url": message.get("URL") or (f"https://doi.org/{doi}" if doi else None),
        "updates": updates(message),
        "sources": ["crossref"],
    }


def updates(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Notices about this work (`updated-by`): [{type, label, doi, year}], oldest first."""
    found = []
    for item in message.get("updated-by") or []:
        if not isinstance(item, dict):
            continue
        found.append({"type": str(item.get("type") or "").lower(), "label": str(item.get("label") or ""),
                      "doi": item.get("DOI"), "year": _year(item.get("updated")),
                      "source": item.get("source")})
    return sorted(found, key=lambda u: u["year"] or 0)


def status_mark(record: dict[str, Any]) -> str:
    """'retracted 2009; corrected 2018', or '' for a paper with no notice (the most serious first)."""
    marks: list[str] = []
    for kinds, word in ((RETRACTED, "retracted"), (CONCERN, "expression of concern"), (CORRECTED, "corrected")):
        years = sorted({u["year"] for u in record.get("updates") or [] if u.get("type") in kinds and u.get("year")})
        if any(u.get("type") in kinds for u in record.get("updates") or []):
            marks.append(f"{word} {years[-1]}" if years else word)
    return "; ".join(marks)


def attach_updates(web: Web, record: dict[str, Any]) -> None:
    """Put Crossref's notices about the record's journal DOI into its biblio (`updates`), so the library
    and the citation footer can mark a retracted paper. A Crossref failure costs only the mark (logged)."""
    doi = str(record.get("doi") or "")
    if not doi.startswith("10.") or doi.lower().startswith("10.48550/"):  # arXiv's own DOIs carry no notices
        return
    try:
        found = work(web, doi)
    except ServiceError as exc:
        log.info("crossref: no update check for %s: %s", doi, exc)
        return
    if found and found.get("updates"):
        record["biblio"] = {**(record.get("biblio") or {}), "updates": found["updates"]}


def _year(date: Any) -> int | None:
    parts: Any = date.get("date-parts") if isinstance(date, dict) else None
    try:
        value = int(parts[0][0])
    except (TypeError, ValueError, IndexError):
        return None
    return value if 1000 < value < 3000 else None


def _author(author: dict[str, Any]) -> str:
    family, given = str(author.get("family") or "").strip(), str(author.get("given") or "").strip()
    if family and given:
        return f"{family}, {given}"
    return family or given or str(author.get("name") or "")
