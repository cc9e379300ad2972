"""The arXiv API (export.arxiv.org/api/query): search and metadata by id, parsed from its Atom feed.

arXiv asks for one request every three seconds and a User-Agent naming the client; both are
enforced here (config 'arxiv.min_interval', shared by all astro processes of the user: http.Throttle). Records come out in the common
shape merge.py and the library use: arxiv_id, doi, title, authors, year, abstract, url...
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from astro_cli.research.found import FoundPaper
from astro_cli.research.identifiers import ARXIV_BIBCODE, ARXIV_DOI
from astro_cli.research.sources.answers import PaperRecord
from astro_cli.research.sources.fields import MAX_ITEMS, MAX_TEXT
from astro_cli.research.sources.http import ServiceError, arxiv_throttle, make_client, request

if TYPE_CHECKING:
    from astro_cli.research.sources.arxiv_query import ArxivQuery
    from astro_cli.research.sources.web import Web

SERVICE = "the arXiv API"
NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
NEW_ID = re.compile(r"(?<!\d)(\d{4}\.\d{4,5})(v\d+)?(?!\d)")
OLD_ID = re.compile(r"(?<![\w-])([a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(v\d+)?(?!\d)")
MAX_ROWS = 50
SORTS = {"relevance": "relevance", "date": "submittedDate", "citations": "relevance"}


def split_id(raw: str) -> tuple[str, str]:
    """'arXiv:1001.0012v2' -> ('1001.0012', 'v2'); raises ValueError when there is no arXiv id in it."""
    text = raw.strip()
    for pattern in (NEW_ID, OLD_ID):
        match = pattern.search(text)
        if match:
            return match.group(1), match.group(2) or ""
    raise ValueError(f"'{raw}' is not an arXiv id")


def looks_like_arxiv_id(raw: str) -> bool:
    text = raw.strip()
    text = re.sub(r"^(arxiv:|https?://(export\.)?arxiv\.org/(abs|pdf)/|10\.48550/arxiv\.)", "", text, flags=re.I)
    return bool(re.fullmatch(r"\d{4}\.\d{4,5}(v\d+)?|[a-z][a-z-]*(\.[A-Z]{2})?/\d{7}(v\d+)?", text))


def to_arxiv_query(query: str) -> str:
    """Pass arXiv syntax through; turn ADS fields, boolean operators and plain words into arXiv's
    search_query syntax (arxiv_query.py; what is dropped is named by arxiv_query.translate)."""
    from astro_cli.research.sources.arxiv_query import translate

    return translate(query).text


def _text(node: ET.Element | None, limit: int = MAX_TEXT) -> str:
    """An element's text on one line, bounded (a feed is outside data: a title may be a megabyte)."""
    return " ".join((node.text or "")[:limit].split()) if node is not None else ""


def parse_entry(entry: ET.Element) -> PaperRecord:
    raw_id = _text(entry.find("atom:id", NS))
    arxiv_id, version = split_id(raw_id.replace("http://arxiv.org/abs/", "").replace("https://arxiv.org/abs/", ""))
    published = _text(entry.find("atom:published", NS))
    links = {link.get("title") or link.get("rel"): link.get("href") for link in entry.findall("atom:link", NS)}
    primary = entry.find("arxiv:primary_category", NS)
    return {
        "id": arxiv_id,
        "arxiv_id": arxiv_id,
        "version": version,
        "bibcode": None,
        "doi": _text(entry.find("arxiv:doi", NS)) or None,
        "title": _text(entry.find("atom:title", NS)),
        "authors": [_text(a.find("atom:name", NS), 1000) for a in entry.findall("atom:author", NS)[:MAX_ITEMS]],
        "year": int(published[:4]) if published[:4].isdigit() else None,
        "published": published,
        "abstract": _text(entry.find("atom:summary", NS)),
        "citation_count": None,
        "journal_ref": _text(entry.find("arxiv:journal_ref", NS)) or None,
        "primary_category": primary.get("term") if primary is not None else None,
        # for BibTeX (research/bibtex/entry.py): the authors' comment ("PhD thesis, ...") and
        # the month arXiv received the paper (an e-print's month)
        "biblio": {k: v for k, v in (("comment", _text(entry.find("arxiv:comment", NS))),
                                     ("submitted", published[:10])) if v},
        "url": links.get("alternate") or f"https://arxiv.org/abs/{arxiv_id}",
        "sources": ["arxiv"],
    }


def parse_feed(body: bytes) -> tuple[int, list[PaperRecord]]:
    """(total results, records) from an arXiv Atom feed; an error entry becomes a ServiceError."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        raise ServiceError(f"{SERVICE} sent an answer that is not an Atom feed; try again later.") from None
    entries = root.findall("atom:entry", NS)
    total_text = _text(root.find("opensearch:totalResults", NS))
    records = []
    for entry in entries:
        entry_id = _text(entry.find("atom:id", NS))
        if "/api/errors" in entry_id:
            message = _text(entry.find("atom:summary", NS)) or "malformed query"
            raise ServiceError(f"{SERVICE} rejected the query: {message}.")
        try:
            records.append(parse_entry(entry))
        except ValueError:
            continue  # an entry without a recognisable id is of no use to anyone
    total = int(total_text) if total_text.isdigit() else len(records)
    return total, records


def _get(web: Web, params: dict[str, str | int]) -> tuple[int, list[PaperRecord]]:
    with make_client(web) as client, arxiv_throttle(web).turn():  # the clock is stamped once the answer is in
        response = request(client, "GET", web.settings.typed["arxiv_url"], service=SERVICE,
                           setting="arxiv_url", params=params)
    return parse_feed(response.content)


def search(
    web: Web, query: str, rows: int = 10, sort: str = "relevance",
    year_from: int | None = None, year_to: int | None = None,
) -> tuple[int, list[FoundPaper]]:
    """Search arXiv; `query` may be arXiv syntax (ti:, au:, cat:...), ADS-style syntax or plain words."""
    from astro_cli.research.sources.ads_syntax import QuerySyntaxError
    from astro_cli.research.sources.arxiv_query import translate

    try:
        plan = translate(query, year_from, year_to)
    except QuerySyntaxError as exc:
        raise ServiceError(str(exc)) from None
    return answer(web, plan, rows, sort)


def answer(web: Web, plan: ArxivQuery, rows: int = 10, sort: str = "relevance") -> tuple[int, list[FoundPaper]]:
    """What arXiv answers for a translated query: ids fetched, or a search filtered to the publication years."""
    from astro_cli.research.sources.arxiv_query import keep_published_in

    if plan.skip:
        raise ServiceError(plan.skip.replace("so only NASA ADS answers this query", "so use source=ads for it"))
    if plan.ids:
        known = fetch(web, plan.ids)
        return len(known), known
    if not plan.text:
        what = "DOIs and bibcodes" if plan.lookups else "ADS fields such as property: or bibstem:"
        raise ServiceError(f"arXiv cannot search by {what}; use source=ads (or all) for this query.")
    asked = rows if plan.years is None else min(MAX_ROWS, rows * 2)  # room for what the year filter removes
    params: dict[str, str | int] = {
        "search_query": plan.text,
        "start": 0,
        "max_results": asked,
        "sortBy": SORTS.get(sort, "relevance"),
        "sortOrder": "descending",
    }
    total, records = _get(web, params)
    if plan.years is not None:
        records = keep_published_in(records, plan.years)
    return total, [FoundPaper.from_record(r) for r in records[:rows]]


def fetch(web: Web, arxiv_ids: list[str]) -> list[FoundPaper]:
    """Metadata for known arXiv ids (an unknown id is simply absent from the result)."""
    if not arxiv_ids:
        return []
    _, records = _get(web, {"id_list": ",".join(arxiv_ids), "start": 0, "max_results": len(arxiv_ids)})
    return [FoundPaper.from_record(r) for r in records]


def id_and_version(identifier: str) -> tuple[str, str] | None:
    """(id, version) when the identifier itself names an arXiv e-print, without asking anyone."""
    text = identifier.strip()
    match = ARXIV_BIBCODE.match(text)
    if match:
        return f"{match.group(1)}.{match.group(2)}", ""
    match = ARXIV_DOI.match(text)
    if match:
        text = match.group(1)
    if looks_like_arxiv_id(text):
        return split_id(text)
    return None
