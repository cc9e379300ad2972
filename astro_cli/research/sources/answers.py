"""The services' raw answers as astro reads them: which keys of an ADS doc, a Crossref work or an
INSPIRE hit a parser reads, and the common record shape the parsers write.

An answer is outside JSON, so every value is `object` and is read by its type (fields.py); these
shapes name the keys (a read of a key not listed here is a type error) without claiming a value's
type. A parser receives a JSON object checked by `fields.mapping`/`fields.records` and declares it as
one of these shapes with `cast` at that one place.
"""

from __future__ import annotations

from typing import TypedDict

JSONObject = dict[str, object]  # a JSON object as parsed: its values are not yet read by type


class AdsAnswer(TypedDict, total=False):
    """ADS's answer to /search/query (`response`) or /export (`export`)."""

    response: object
    export: object


class AdsResponse(TypedDict, total=False):
    docs: object
    numFound: object


class AdsDoc(TypedDict, total=False):
    """The fields of an ADS doc astro asks for (ads.FIELDS) and reads (`aff` if ever present)."""

    bibcode: object
    title: object
    author: object
    year: object
    pubdate: object
    citation_count: object
    abstract: object
    doi: object
    identifier: object
    pub: object
    volume: object
    page: object
    doctype: object
    issue: object
    page_range: object
    eid: object
    bibstem: object
    keyword: object
    pub_raw: object
    arxiv_class: object
    author_count: object
    editor: object
    series: object
    publisher: object
    version: object
    aff: object


CrossrefWork = TypedDict("CrossrefWork", {
    "DOI": object, "issued": object, "published": object, "abstract": object, "title": object, "author": object,
    "is-referenced-by-count": object, "container-title": object, "volume": object, "page": object,
    "URL": object, "updated-by": object,
}, total=False)
"""A Crossref work message (api.crossref.org/works/DOI, `message`): the keys astro reads."""


class CrossrefAuthor(TypedDict, total=False):
    family: object
    given: object
    name: object


class CrossrefUpdate(TypedDict, total=False):
    """One item of a work's `updated-by`: a notice (retraction, correction...) about it."""

    type: object
    label: object
    DOI: object
    updated: object
    source: object


class InspireHit(TypedDict, total=False):
    """An INSPIRE literature record: `/literature/RECID`, or one of a search's `hits.hits`."""

    id: object
    metadata: object


class InspireSearch(TypedDict, total=False):
    hits: object


class InspireHits(TypedDict, total=False):
    total: object
    hits: object


class PaperRecord(TypedDict, total=False):
    """The common record shape a parser writes (read by `FoundPaper.from_record`)."""

    id: str | None
    arxiv_id: str | None
    version: str
    bibcode: str | None
    doi: str | None
    title: str
    authors: list[str]
    year: int | None
    published: str
    abstract: str
    citation_count: int | None
    journal_ref: str | None
    identifiers: list[str]
    journal: str | None
    volume: str | None
    page: str | None
    pub_year: int | None
    url: str | None
    primary_class: str | None
    primary_category: str | None
    biblio: dict[str, object]
    sources: list[str]
