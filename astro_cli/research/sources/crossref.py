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
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast
from urllib.parse import quote

from astro_cli.research.found import FoundPaper, Notice
from astro_cli.research.sources import fields
from astro_cli.research.sources.answers import CrossrefAuthor, CrossrefUpdate, CrossrefWork
from astro_cli.research.sources.http import ServiceError, make_client, request

if TYPE_CHECKING:
    from astro_cli.research.sources.web import Web

log = logging.getLogger(__name__)
SERVICE = "Crossref"
RETRACTED = {"retraction", "withdrawal", "removal", "partial_retraction"}
CORRECTED = {"correction", "corrigendum", "erratum", "addendum", "clarification"}
CONCERN = {"expression_of_concern"}


def work(web: Web, doi: str) -> FoundPaper | None:
    """The record for a DOI, or None when Crossref does not know it."""
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
    return work_to_record(cast("CrossrefWork", message))


def work_to_record(message: CrossrefWork) -> FoundPaper:
    """A Crossref work message as a FoundPaper, with its update relations (every field read by its type,
    fields.py: a wrong type reads as absent)."""
    doi = fields.text(message.get("DOI"), fields.MAX_SHORT)
    year = _year(message.get("issued")) or _year(message.get("published"))
    abstract = html.unescape(fields.text(message.get("abstract")))
    return FoundPaper.from_record({
        "id": doi,
        "arxiv_id": None,
        "bibcode": None,
        "doi": doi,
        "title": " ".join(html.unescape(fields.first_text(message.get("title"))).split()),
        "authors": [_author(cast("CrossrefAuthor", a)) for a in fields.records(message.get("author"))],
        "year": year,
        "abstract": " ".join(re.sub(r"<[^<>]{1,80}>", " ", abstract).split()),
        "citation_count": fields.integer(message.get("is-referenced-by-count")),
        "journal": fields.first_text(message.get("container-title"), fields.MAX_SHORT) or None,
        "volume": fields.optional_text(message.get("volume"), 40),
        "page": fields.optional_text(message.get("page"), 40),
        "url": fields.optional_text(message.get("URL")) or (f"https://doi.org/{doi}" if doi else None),
        "sources": ["crossref"],
    }).but(updates=updates(message))


def updates(message: CrossrefWork) -> tuple[Notice, ...]:
    """Notices about this work (`updated-by`), oldest first."""
    found = [Notice(fields.text(item.get("type"), 80).lower(), fields.text(item.get("label"), 200),
                    fields.optional_text(item.get("DOI")), _year(item.get("updated")),
                    fields.optional_text(item.get("source"), 200))
             for item in (cast("CrossrefUpdate", raw) for raw in fields.records(message.get("updated-by")))]
    return tuple(sorted(found, key=lambda n: n.year or 0))


def status_mark(notices: Sequence[Notice]) -> str:
    """'retracted 2009; corrected 2018', or '' for a paper with no notice (the most serious first)."""
    marks: list[str] = []
    for kinds, word in ((RETRACTED, "retracted"), (CONCERN, "expression of concern"), (CORRECTED, "corrected")):
        years = sorted({n.year for n in notices if n.type in kinds and n.year})
        if any(n.type in kinds for n in notices):
            marks.append(f"{word} {years[-1]}" if years else word)
    return "; ".join(marks)


def notices_for(web: Web, doi: str | None) -> tuple[Notice, ...]:
    """Crossref's notices about a journal DOI, so the library and the citation footer can mark a retracted
    paper; () for arXiv's own DOIs (they carry none). A Crossref failure costs only the mark (logged)."""
    doi = doi or ""
    if not doi.startswith("10.") or doi.lower().startswith("10.48550/"):
        return ()
    try:
        found = work(web, doi)
    except ServiceError as exc:
        log.info("crossref: no update check for %s: %s", doi, exc)
        return ()
    return found.updates if found else ()


def attach_updates(web: Web, record: FoundPaper) -> FoundPaper:
    """The record with Crossref's notices about its DOI (stored in its biblio's `updates` by the library)."""
    found = notices_for(web, record.doi)
    return record.but(updates=found) if found else record


def _year(date: object) -> int | None:
    parts: object = date.get("date-parts") if isinstance(date, dict) else None
    first = parts[0] if isinstance(parts, list) and parts else None
    value = fields.integer(first[0] if isinstance(first, list) and first else None)
    return value if value is not None and 1000 < value < 3000 else None


def _author(author: CrossrefAuthor) -> str:
    family = fields.text(author.get("family"), fields.MAX_SHORT).strip()
    given = fields.text(author.get("given"), fields.MAX_SHORT).strip()
    if family and given:
        return f"{family}, {given}"
    return family or given or fields.text(author.get("name"), fields.MAX_SHORT)
