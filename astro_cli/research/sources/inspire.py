"""INSPIRE-HEP (inspirehep.net): high-energy physics literature, as a paper source.

It resolves an INSPIRE record (`inspire:1191456` or its inspirehep.net/literature/ address) through
`/api/literature/RECID`, and searches with INSPIRE's own query language (`a Witten`, `t holography`,
`refersto:recid:...`), passed through untouched to `/api/literature?q=...`. A record names its arXiv
e-print when it has one, which is where download_paper fetches the files. The endpoint is config
'inspire_url' (a test server in the tests). This module and one registration (research/feature.py)
are all a source needs; docs/architecture.md walks through it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast
from urllib.parse import quote

from astro_cli.extensions import PaperFiles, SearchAnswer
from astro_cli.research.found import FoundPaper
from astro_cli.research.sources import fields
from astro_cli.research.sources.answers import InspireHit, InspireHits, InspireSearch, JSONObject
from astro_cli.research.sources.http import ServiceError, make_client, request

if TYPE_CHECKING:
    from astro_cli.extensions import SearchRequest
    from astro_cli.research.sources.web import Web

SERVICE = "INSPIRE-HEP"
RECORD = re.compile(r"^(?:inspire:|(?:https?://)?inspirehep\.net/(?:api/)?literature/)(\d{1,12})/?$", re.IGNORECASE)
SORTS = {"date": "mostrecent", "citations": "mostcited"}  # relevance: INSPIRE's own order


class InspireSource:
    """INSPIRE-HEP: `inspire:RECID` to a record; searches in INSPIRE's query language."""

    name = "inspire"
    label = "INSPIRE-HEP"
    query_language = "inspire"
    searches = True

    def recognises(self, identifier: str) -> bool:
        return RECORD.match(identifier.strip()) is not None

    def resolve(self, web: Web, identifier: str) -> FoundPaper | None:
        match = RECORD.match(identifier.strip())
        if match is None:
            return None
        body = _get(web, f"/literature/{match.group(1)}", None)
        return None if body is None else hit_to_record(cast("InspireHit", body))

    def search(self, web: Web, request: SearchRequest) -> SearchAnswer:
        query = request.text.strip()
        start, end = request.year_from, request.year_to
        years = f"date {start}->{end}" if start and end else f"date >= {start}" if start else \
            f"date <= {end}" if end else ""
        if years:
            query = f"({query}) and {years}"
        params = {"q": query, "size": str(request.rows)}
        if request.sort in SORTS:
            params["sort"] = SORTS[request.sort]
        body = cast("InspireSearch", _get(web, "/literature", params) or {})
        hits = cast("InspireHits", fields.mapping(body.get("hits"), SERVICE, "a search answer"))
        total = fields.integer(hits.get("total")) or 0
        return SearchAnswer(total, [hit_to_record(cast("InspireHit", hit)) for hit in fields.records(hits.get("hits"))])

    def files(self, web: Web, record: FoundPaper, version: str) -> PaperFiles | None:
        return None  # INSPIRE's records name their arXiv e-print, whose files arXiv serves


def _get(web: Web, path: str, params: dict[str, str] | None) -> JSONObject | None:
    """The JSON object INSPIRE answers at `path`; None for a record it does not have (HTTP 404)."""
    base = web.settings.typed["inspire_url"].rstrip("/")
    url = base + quote(path, safe="/:")
    with make_client(web, {"Accept": "application/json"}) as client:
        try:
            response = request(client, "GET", url, service=SERVICE, setting="inspire_url", params=params)
        except ServiceError as exc:
            if "HTTP 404" in str(exc):
                return None
            raise
    try:
        return fields.mapping(response.json(), SERVICE)
    except ValueError:
        raise ServiceError("INSPIRE-HEP sent an answer that is not JSON; try again later.") from None


def hit_to_record(hit: InspireHit) -> FoundPaper:
    """An INSPIRE literature record (`{"id", "metadata"}`) in the common record shape; every field read by
    its type (fields.py), so a wrong type reads as absent."""
    raw = hit.get("metadata")
    meta: JSONObject = raw if isinstance(raw, dict) else {}
    recid = fields.text(meta.get("control_number") or hit.get("id"), 20)
    arxiv_id = _first_value(meta.get("arxiv_eprints")) or None
    doi = _first_value(meta.get("dois")) or None
    bibcode = next((fields.text(e.get("value"), 40) for e in fields.records(meta.get("external_system_identifiers"))
                    if e.get("schema") == "ADS"), "") or None
    publication = next(iter(fields.records(meta.get("publication_info"))), {})
    date = fields.text(meta.get("preprint_date") or meta.get("earliest_date"), 20)
    year = fields.integer(date[:4]) or fields.integer(publication.get("year"))
    return FoundPaper.from_record({
        "id": arxiv_id or doi or f"inspire:{recid}",
        "inspire_id": recid or None,
        "arxiv_id": arxiv_id,
        "bibcode": bibcode,
        "doi": doi,
        "title": " ".join(fields.text(next(iter(fields.records(meta.get("titles"))), {}).get("title")).split()),
        "authors": [fields.text(a.get("full_name"), fields.MAX_SHORT) for a in fields.records(meta.get("authors"))],
        "year": year,
        "abstract": " ".join(_first_value(meta.get("abstracts"), fields.MAX_TEXT).split()),
        "citation_count": fields.integer(meta.get("citation_count")),
        "journal": fields.optional_text(publication.get("journal_title")),
        "volume": fields.optional_text(publication.get("journal_volume"), 40),
        "page": fields.optional_text(publication.get("page_start") or publication.get("artid"), 40),
        "url": f"https://inspirehep.net/literature/{recid}" if recid else None,
        "sources": ["inspire"],
    })


def _first_value(value: object, limit: int = fields.MAX_SHORT) -> str:
    """INSPIRE's lists of {"value": ...} (arxiv_eprints, dois, abstracts): the first value."""
    return next((found for found in (fields.text(item.get("value"), limit) for item in fields.records(value)) if found),
                "")
