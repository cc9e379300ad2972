"""search_papers: NASA ADS and arXiv queried together, merged, and framed for the model.

ADS is used when a token is set (it has bibcodes and citation counts); arXiv always. When one of
the two fails the other's results still come back, with a note saying what is missing, so a
transient outage costs completeness rather than the whole answer. A source named instead of `all`
(ads, arxiv, inspire, a plugin's: the registered `PaperSource`s, extensions.py) is asked alone, in its
own query language, and its failure is the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from astro_cli.prompt.tags import escape_tags
from astro_cli.research.found import FoundPaper
from astro_cli.research.records import Passage, passage_handle
from astro_cli.research.source_entry import ListedPapers
from astro_cli.research.sources import ads, arxiv
from astro_cli.research.sources.ads_syntax import OPERATORS
from astro_cli.research.sources.http import ServiceError
from astro_cli.research.sources.merge import merge, source_entry
from astro_cli.research.textblock import DATA_NOTE, frame

if TYPE_CHECKING:
    from astro_cli.extensions import ExtensionPoints, PaperSource
    from astro_cli.research.sources.arxiv_query import ArxivQuery
    from astro_cli.research.sources.web import Web

SORTS = ("relevance", "date", "citations")
MAX_ROWS = 50
SNIPPET_CHARS = 400
AUTHORS_SHOWN = 3


@dataclass
class Outcome:
    query: str
    records: list[FoundPaper]
    notes: list[str] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)


def check_arguments(source: str, rows: int, sort: str, year_from: int | None, year_to: int | None,
                    choices: list[str] | None = None) -> None:
    """`choices`: the registered sources that search (`ExtensionPoints.search_choices`); the built-ins by default."""
    if choices is None:
        from astro_cli.research.sources.builtin import builtin_points

        choices = builtin_points().search_choices()
    if source not in choices:
        raise ServiceError(f"source must be one of {', '.join(choices)}, not '{source}'.")
    if sort not in SORTS:
        raise ServiceError(f"sort must be one of {', '.join(SORTS)}, not '{sort}'.")
    if not 1 <= rows <= MAX_ROWS:
        raise ServiceError(f"rows must be between 1 and {MAX_ROWS}.")
    if year_from and year_to and year_from > year_to:
        raise ServiceError(f"The year range {year_from}-{year_to} is empty; year_from must not exceed year_to.")


def search_papers(
    web: Web, query: str, source: str = "all", rows: int = 10, sort: str = "relevance",
    year_from: int | None = None, year_to: int | None = None, sources: ExtensionPoints | None = None,
) -> Outcome:
    """Query the chosen source, or (all) ADS and arXiv merged (ADS first: it carries citation counts).
    `sources`: the app's registry (`extension_points(app)`); the built-ins alone when None."""
    from astro_cli.research.sources.builtin import builtin_points

    if not query or not query.strip():
        raise ServiceError("Give a search query, e.g. 'hot Jupiter albedo' or ADS syntax like author:\"Agol, E\".")
    points = sources or builtin_points()
    check_arguments(source, rows, sort, year_from, year_to, points.search_choices())
    chosen = points.source_named(source)
    if chosen is not None:
        return _one_source(web, chosen, query, rows, sort, year_from, year_to)
    from astro_cli.research.sources.arxiv_query import plan_of

    plan = plan_of(query, year_from, year_to)
    outcome = Outcome(query=query, records=[])
    lists: list[list[FoundPaper]] = []
    failures: list[str] = []
    with_ads = ads.has_token(web)
    if plan.skip and not with_ads:
        raise ServiceError(f"{plan.operator}() is an ADS operator ({OPERATORS[plan.operator]}) only NASA ADS can "
                           "answer, and no ADS_API_TOKEN is set (astro keys set ads); paper_graph gives a paper's "
                           "references from its own bibliography without it.")
    if not with_ads and not plan.lookups and not _arxiv_helps(plan):
        raise ServiceError(f"arXiv has no equivalent of {', '.join(plan.dropped) or 'this query'}: it needs NASA ADS, "
                           "and no ADS_API_TOKEN is set (astro keys set ads).")
    if not with_ads:
        outcome.notes.append("NASA ADS was skipped because no ADS_API_TOKEN is set (arXiv results only, "
                             "without bibcodes or citation counts); `astro keys set ads` keeps a token.")
    if with_ads:
        try:
            total, records = ads.search(web, plan.ads_text, rows, sort, year_from, year_to)
            outcome.totals["ads"] = total
            lists.append(records)
        except ServiceError as exc:
            failures.append(str(exc))
    if _arxiv_helps(plan):
        try:
            total, records = arxiv.answer(web, plan, rows, sort)
            outcome.totals["arxiv"] = total
            lists.append(records)
            outcome.notes.extend(plan.notes())
        except ServiceError as exc:
            if not lists:
                raise ServiceError(" ".join([*failures, str(exc)])) from None
            failures.append(str(exc))
    elif plan.skip:
        outcome.notes.append(plan.skip)
    elif plan.dropped and not plan.lookups:
        outcome.notes.append(f"arXiv was not searched: it has no equivalent of {', '.join(plan.dropped)}, "
                             "so only NASA ADS answers this query.")
    elif plan.lookups and not with_ads:
        lists.append(_crossref_lookups(web, plan.lookups, outcome))
    if with_ads and plan.lookups and not any(lists):  # ADS does not know the DOI
        lists.append(_crossref_lookups(web, [i for i in plan.lookups if i.startswith("10.")], outcome))
    outcome.notes.extend(f"Partial results: {text}" for text in failures)
    return _finish(web, outcome, merge(*lists), plan, rows, sort)


def _one_source(web: Web, chosen: PaperSource, query: str, rows: int, sort: str,
                year_from: int | None, year_to: int | None) -> Outcome:
    """One registered source, asked in its own query language; its failure is the answer."""
    from astro_cli.extensions import SearchRequest
    from astro_cli.research.found import found_from_source
    from astro_cli.research.sources.arxiv_query import plan_of

    plan = plan_of(query, year_from, year_to) if chosen.query_language == "ads" else None
    answer = chosen.search(web, SearchRequest(query, rows, sort, year_from, year_to))
    records = [found for found in (found_from_source(r, chosen.label) for r in answer.records) if found is not None]
    outcome = Outcome(query=query, records=[], notes=list(answer.notes), totals={chosen.name: answer.total})
    return _finish(web, outcome, merge(records), plan, rows, sort)


def _finish(web: Web, outcome: Outcome, merged: list[FoundPaper], plan: ArxivQuery | None, rows: int,
            sort: str) -> Outcome:
    """Retraction notices for papers looked up by name, the order asked for, and the rows wanted."""
    if plan is not None and (plan.lookups or plan.ids):  # is it retracted or corrected? (one request each)
        from astro_cli.research.sources.crossref import attach_updates

        for n, record in enumerate(merged[:3]):
            if not record.updates:
                merged[n] = attach_updates(web, record)
    if sort == "citations":
        merged.sort(key=_citation_count, reverse=True)
    elif sort == "date":
        merged.sort(key=lambda r: r.year or 0, reverse=True)
    outcome.records = merged[:rows]
    return outcome


def _crossref_lookups(web: Web, identifiers: list[str], outcome: Outcome) -> list[FoundPaper]:
    """DOIs resolved through Crossref (no ADS token); a bibcode is ADS's alone, and says so."""
    from astro_cli.research.sources import crossref

    records: list[FoundPaper] = []
    for identifier in identifiers:
        if not identifier.startswith("10."):
            raise ServiceError(f"Looking up the bibcode {identifier} needs NASA ADS (set ADS_API_TOKEN with astro "
                               "keys set ads); without it, DOIs resolve through Crossref and arXiv ids through arXiv.")
        record = crossref.work(web, identifier)
        if record is not None:
            records.append(record)
    outcome.totals["crossref"] = len(records)
    outcome.notes.append("Resolved through Crossref (no ADS_API_TOKEN): no bibcode; the citation count is "
                         "Crossref's.")
    return records


def _arxiv_helps(plan: ArxivQuery) -> bool:
    """Whether arXiv can add anything: not for ADS operators, nor for DOIs and bibcodes only (ADS's to resolve)."""
    return not plan.skip and bool(plan.ids or plan.text)


def authors_line(authors: list[str], shown: int = AUTHORS_SHOWN) -> str:
    if not authors:
        return "unknown authors"
    head = "; ".join(authors[:shown])
    return head + (f"; et al. ({len(authors)} authors)" if len(authors) > shown else "")


def snippet(text: str | None, limit: int = SNIPPET_CHARS) -> str:
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"


def ids_line(record: FoundPaper) -> str:
    parts = []
    if record.bibcode:
        parts.append(f"bibcode {record.bibcode}")
    if record.arxiv_id:
        parts.append(f"arXiv:{record.arxiv_id}")
    if record.doi:
        parts.append(f"doi {record.doi}")
    if record.year:
        parts.append(str(record.year))
    if record.citation_count is not None:
        parts.append(f"{record.citation_count} citations")
    from astro_cli.research.sources.crossref import status_mark

    mark = status_mark(record.updates)
    if mark:
        parts.append(mark.upper())  # a retraction must not read like one more identifier
    return " · ".join(parts)


def update_mark(record: Mapping[str, object]) -> str:
    """'retracted 2009; corrected 2018' from the Crossref notices a record (or its stored biblio) carries."""
    from astro_cli.research.sources.crossref import status_mark

    biblio = record.get("biblio")
    if isinstance(biblio, str):
        import json

        try:
            biblio = json.loads(biblio)
        except ValueError:
            biblio = None
    updates = record.get("updates") or (biblio.get("updates") if isinstance(biblio, dict) else None)
    return status_mark(FoundPaper.from_record({"updates": updates}).updates) if updates else ""


def format_for_model(outcome: Outcome) -> str:
    """Numbered results; everything written by the papers' authors sits inside <paper-text> frames."""
    if not outcome.records:
        lines = [f"No papers found for: {outcome.query}"]
        lines += outcome.notes
        return escape_tags("\n".join(lines))
    totals = ", ".join(f"{name}: {count} matches" for name, count in outcome.totals.items())
    lines = [escape_tags(f"{len(outcome.records)} papers for: {outcome.query} ({totals})"), DATA_NOTE, ""]
    for number, record in enumerate(outcome.records, start=1):
        lines.append(escape_tags(f"[{number}] {ids_line(record)}"))
        ident = record.id or ""
        lines.append(frame(_body(record), source=ident, section="search result",
                           handle=passage_handle(ident, None) if ident and record.abstract else None))
        lines.append("")
    lines += [escape_tags(note) for note in outcome.notes]
    lines.append("download_paper fetches a paper into the library; cite papers by bibcode or arXiv id.")
    return "\n".join(lines).rstrip()


def _body(record: FoundPaper) -> str:
    """What a search result's frame shows: title, authors, the abstract's start."""
    return "\n".join([
        record.title or "(untitled)",
        authors_line(list(record.authors)),
        snippet(record.abstract) or "(no abstract)",
    ])


def result_data(records: list[FoundPaper]) -> ListedPapers:
    """search_papers' data: the papers for /sources, and each abstract it framed as a `Passage` (the ledger
    reads these, not the frames)."""
    entries = tuple(source_entry(r) for r in records)
    passages = tuple(Passage(passage_handle(entry.ref.id, None), entry.ref, _body(record), section="search result")
                     for record, entry in zip(records, entries, strict=True) if entry.ref.id and record.abstract)
    return ListedPapers(entries, passages)


def _citation_count(record: FoundPaper) -> int:
    """The record's citation count; -1 (last) when the service gave none."""
    return record.citation_count if record.citation_count is not None else -1
