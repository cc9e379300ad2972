"""NASA ADS API v1: search (query syntax passes through) and BibTeX export.

The token comes from the environment (ADS_API_TOKEN, or ADS_DEV_KEY as older tools name it) or
from ASTRO_HOME/keys.yaml (`astro keys set ads`), and is only ever put in the Authorization header: never stored, never logged, never in an error.
ADS counts requests per day; a 429 names the time the quota resets (X-RateLimit-Reset).
"""

from __future__ import annotations

import html
import os
import re
from typing import TYPE_CHECKING, cast

from astro_cli.research.found import FoundPaper
from astro_cli.research.identifiers import carries, is_preprint_bibcode
from astro_cli.research.sources import fields
from astro_cli.research.sources.answers import AdsAnswer, AdsDoc, AdsResponse, JSONObject, PaperRecord
from astro_cli.research.sources.arxiv import split_id
from astro_cli.research.sources.http import (
    ServiceError,
    describe_failure,
    http_error,
    make_client,
    timeout_seconds,
)

if TYPE_CHECKING:
    import httpx

    from astro_cli.keystore import KeyStore
    from astro_cli.research.sources.web import Web

SERVICE = "NASA ADS"
FIELDS = ("bibcode,title,author,year,pubdate,citation_count,abstract,doi,identifier,pub,volume,page,"
          # what a BibTeX entry like ADS's needs (research/bibtex/entry.py); `aff` is left out: it is
          # long for collaborations, and a thesis's school is read from pub_raw instead
          "doctype,issue,page_range,eid,bibstem,keyword,pub_raw,arxiv_class,author_count,editor,series,"
          "publisher,version")
SORTS = {"relevance": "score desc", "date": "date desc", "citations": "citation_count desc"}
ABS_URL = "https://ui.adsabs.harvard.edu/abs/{}"


class MissingToken(ServiceError):
    """ADS was asked for but no token is set."""


def token(keys: KeyStore) -> str | None:
    """ADS_API_TOKEN (or ADS_DEV_KEY), else the `ads` key of ASTRO_HOME/keys.yaml (`astro keys set ads`),
    read by `keys`, the app's one reader of the file."""
    from astro_cli.keystore import KeyStoreError, credential

    try:
        found = credential("ads", os.environ, keys)
    except KeyStoreError:  # a broken keys.yaml: the environment alone (the REPL and run warn about the file)
        found = credential("ads", os.environ, None)
    return found.value if found is not None else None


def has_token(web: Web) -> bool:
    return token(web.keys) is not None


def _require_token(web: Web) -> str:
    value = token(web.keys)
    if not value:
        raise MissingToken(
            "NASA ADS needs an API token: `astro keys set ads` keeps one (or set ADS_API_TOKEN in the "
            "environment); create it at https://ui.adsabs.harvard.edu/user/settings/token."
        )
    return value


def _call(web: Web, method: str, path: str, params: dict[str, str | int] | None = None,
          json: JSONObject | None = None) -> AdsAnswer:
    import httpx

    url = web.settings.typed["ads_url"].rstrip("/") + path
    headers = {"Authorization": f"Bearer {_require_token(web)}"}
    with make_client(web, headers=headers) as client:
        try:
            response = client.request(method, url, params=params, json=json)
        except httpx.HTTPError as exc:
            raise ServiceError(describe_failure(SERVICE, url, exc, timeout_seconds(web), "ads_url")) from None
    if response.status_code == 401:
        raise ServiceError("NASA ADS refused the API token (HTTP 401); check ADS_API_TOKEN, or replace the stored one with "
                           "`astro keys set ads`.")
    if response.status_code == 400:
        raise ServiceError(f"NASA ADS could not use the query: {_error_message(response)}.")
    if response.status_code >= 400:
        raise http_error(SERVICE, response)
    try:
        answer = response.json()
    except ValueError:
        raise ServiceError("NASA ADS sent an answer that is not JSON; try again later.") from None
    return cast("AdsAnswer", fields.mapping(answer, SERVICE))


def _error_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return "syntax error"
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        error = error.get("msg")
    text = " ".join(str(error or "syntax error").split())
    return text[:200].rstrip(".")


def clean_markup(text: str) -> str:
    """ADS abstracts and titles carry HTML (<SUB>, <SUP>, entities): plain text with _x and ^x.
    The patterns are linear: a sub- or superscript is at most 200 characters without a tag in it."""
    text = re.sub(r"<sub>([^<]{0,200})</sub>", r"_\1", text, flags=re.IGNORECASE)
    text = re.sub(r"<sup>([^<]{0,200})</sup>", r"^\1", text, flags=re.IGNORECASE)
    text = re.sub(r"<[^<>]{1,40}>", " ", text)
    return " ".join(html.unescape(text).split())


def title_markup(text: str) -> str:
    """An ADS title as LaTeX-ready text: <SUB>/<SUP> become math (`H$_{2}$O`, as ADS's own BibTeX
    writes it), other tags (MathML, <i>) are dropped without a space, entities unescaped."""
    text = re.sub(r"<sub>([^<]{0,200})</sub>", r"$_{\1}$", text, flags=re.IGNORECASE)
    text = re.sub(r"<sup>([^<]{0,200})</sup>", r"$^{\1}$", text, flags=re.IGNORECASE)
    text = re.sub(r"<[^<>]{1,200}>", "", text)
    return " ".join(html.unescape(text).split())


def doc_to_record(doc: AdsDoc) -> PaperRecord:
    """An ADS doc in the common record shape (arXiv id taken from its identifiers). Every field is read
    by its type (fields.py): a doc with numbers, nulls or objects where ADS writes strings gives a
    record with what could be read."""
    identifiers = fields.texts(doc.get("identifier"))
    arxiv_id = None
    for ident in identifiers:
        if ident.lower().startswith("arxiv:"):
            try:
                arxiv_id = split_id(ident)[0]
            except ValueError:
                pass
            break
    doi = fields.first_text(doc.get("doi"), fields.MAX_SHORT) or None
    title = fields.first_text(doc.get("title"))
    year = fields.text(doc.get("year"), 4) or fields.text(doc.get("pubdate"), 4)
    bibcode = fields.optional_text(doc.get("bibcode"), 40)
    count = fields.integer(doc.get("citation_count"))
    page = fields.first_text(doc.get("page"), 40)
    pub = fields.text(doc.get("pub"), fields.MAX_SHORT)
    volume = fields.text(doc.get("volume"), 40)
    published = bool(bibcode) and not is_preprint_bibcode(bibcode or "") and bool(pub)
    return {
        "id": arxiv_id or bibcode or doi,
        "arxiv_id": arxiv_id,
        "bibcode": bibcode,
        "doi": doi,
        "title": title_markup(title),
        "authors": [html.unescape(a) for a in fields.texts(doc.get("author"))],
        "year": int(year) if year.isdigit() else None,
        "abstract": clean_markup(fields.text(doc.get("abstract"))),
        "citation_count": count,
        "journal_ref": None,  # arXiv's free-text reference; ADS's structured fields follow
        "identifiers": identifiers,
        # The published version (journal, volume, first page or article id), when ADS has one.
        "journal": pub if published else None,
        "volume": volume if published and volume else None,
        "page": page if published and page else None,
        "pub_year": int(year) if published and year.isdigit() else None,
        "url": ABS_URL.format(bibcode) if bibcode else None,
        "primary_class": fields.first_text(doc.get("arxiv_class"), 40) or None,
        "biblio": bibliographic_facts(doc),
        "sources": ["ads"],
    }


def search(
    web: Web, query: str, rows: int = 10, sort: str = "relevance",
    year_from: int | None = None, year_to: int | None = None, start: int = 0,
) -> tuple[int, list[FoundPaper]]:
    """Search ADS; the query is ADS syntax and passes through untouched (a year range is added).
    `start` pages on: the results from that index on (ADS's own paging)."""
    q = query.strip()
    if year_from or year_to:
        q = f"({q}) year:{year_from or 1000}-{year_to or 3000}"
    params: dict[str, str | int] = {"q": q, "fl": FIELDS, "rows": rows, "sort": SORTS.get(sort, "score desc")}
    if start:
        params["start"] = start
    body = _call(web, "GET", "/search/query", params=params)
    response = cast("AdsResponse", fields.mapping(body.get("response") or {}, SERVICE, "a search answer"))
    docs = [cast("AdsDoc", doc) for doc in fields.records(response.get("docs"))]
    total = fields.integer(response.get("numFound"))
    found = [FoundPaper.from_record(doc_to_record(d)) for d in docs]
    return (total if total is not None and total >= 0 else len(docs)), found


def lookup(web: Web, identifier: str) -> FoundPaper | None:
    """The ADS record for a bibcode, DOI or 'arXiv:ID', or None when ADS does not know it.

    A record is accepted only if it carries the identifier asked for (among its bibcodes, DOIs
    and arXiv ids): a search index that answers with an unrelated paper must not hand that
    paper's bibcode and title to this one.
    """
    _, records = search(web, f'identifier:"{identifier}"', rows=3)
    return next((record for record in records if carries(record.as_record(), identifier)), None)


def lookup_many(web: Web, identifiers: list[str]) -> dict[str, FoundPaper]:
    """ADS records for several identifiers in one request: {identifier: record} for those ADS knows."""
    if not identifiers:
        return {}
    wanted = " OR ".join(f'"{i}"' for i in identifiers)
    _, records = search(web, f"identifier:({wanted})", rows=min(50, 2 * len(identifiers)))
    found: dict[str, FoundPaper] = {}
    for identifier in identifiers:
        record = next((r for r in records if carries(r.as_record(), identifier)), None)
        if record is not None:
            found[identifier] = record
    return found


def export_bibtex(web: Web, bibcodes: list[str]) -> str:
    """BibTeX for bibcodes from the ADS export service (one request for all of them)."""
    body = _call(web, "POST", "/export/bibtex", json={"bibcode": bibcodes})
    text = body.get("export")
    if not isinstance(text, str):
        raise ServiceError("NASA ADS export answered without BibTeX; try again later.")
    return text


ARXIV_CATEGORIES = ("astro-ph", "cond-mat", "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math-ph", "nucl-ex",
                    "nucl-th", "econ", "eess", "physics", "quant-ph", "math", "nlin", "cs", "q-bio", "q-fin", "stat")


def _eprint(doc: AdsDoc) -> str | None:
    """'arXiv:1202.3665' or 'ascl:1706.009', found as ADS's exporter finds it (eid, then identifiers)."""
    eid = fields.text(doc.get("eid"), 80)
    if eid.startswith(("arXiv", "ascl")):
        return eid
    for text in fields.texts(doc.get("identifier"), 80):
        if "arXiv:" in text or "ascl:" in text:
            return text
        if text.startswith(ARXIV_CATEGORIES):
            return "arXiv:" + text
    return None


def _month(pubdate: object) -> int | None:
    match = re.match(r"\d{4}-(\d\d)", fields.text(pubdate, 20))
    month = int(match.group(1)) if match else 0
    return month if 1 <= month <= 12 else None  # ADS writes '-00' for an unknown month


def bibliographic_facts(doc: AdsDoc) -> dict[str, object]:
    """What an ADS doc says beyond the common record that a BibTeX entry needs (stored as `biblio`)."""
    affs = [a for a in fields.texts(doc.get("aff")) if a != "-"]
    doctype = fields.text(doc.get("doctype"), 40)
    pub, pub_raw = fields.text(doc.get("pub"), fields.MAX_SHORT), fields.text(doc.get("pub_raw"), fields.MAX_SHORT)
    facts: dict[str, object] = {
        "doctype": doctype,
        "bibstem": fields.first_text(doc.get("bibstem"), 40) or None,
        "month": _month(doc.get("pubdate")),
        "issue": fields.optional_text(doc.get("issue"), 40),
        "page_range": fields.optional_text(doc.get("page_range"), 80),
        "eid": fields.optional_text(doc.get("eid"), 80),
        "eprint": _eprint(doc),
        "keywords": [html.unescape(k) for k in fields.texts(doc.get("keyword"))],
        "pub": html.unescape(pub) if pub else None,
        "pub_raw": html.unescape(pub_raw) if pub_raw else None,
        "school": ", ".join(affs) if doctype in ("phdthesis", "mastersthesis") and affs else None,
        "editor": fields.texts(doc.get("editor")),
        "series": fields.optional_text(doc.get("series")),
        "publisher": fields.optional_text(doc.get("publisher")),
        "version": fields.optional_text(doc.get("version"), 40),
        "n_authors": fields.integer(doc.get("author_count")),
    }
    return {key: value for key, value in facts.items() if value not in (None, "", [])}
