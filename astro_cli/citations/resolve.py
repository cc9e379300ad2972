"""Checking online that a cited paper exists, within a time budget (`citations.resolve_timeout`).

NASA ADS (with a token) answers for bibcodes, DOIs and arXiv ids in one request, and for
author-year citations with one `first_author:... year:...` query each (at most five); arXiv
answers for arXiv ids in one `id_list` request. A record counts only if it carries the
identifier asked for. Answers are kept in the session's ledger, so a second check of the same
answer (after the nudge) asks nothing again. The lookups run in a worker thread: when the
budget is spent the turn goes on, and the ids not yet answered stay unverified, with a note.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from astro_cli.citations.extract import Cited
from astro_cli.citations.ledger import CitationLedger
from astro_cli.research.identifiers import carries
from astro_cli.research.sources.http import ServiceError
from astro_cli.research.sources.web import Web

if TYPE_CHECKING:
    from astro_cli.app import AppContext

MAX_AUTHOR_QUERIES = 5


def _cache_key(cited: Cited) -> tuple[str, str]:
    return cited.kind, cited.ident.lower()


def _ads_name(cited: Cited) -> str:
    return f"arXiv:{cited.ident}" if cited.kind == "arxiv" else cited.ident


def _lookups(app: AppContext, pending: list[Cited], results: dict[Cited, dict[str, Any] | None],
             notes: list[str], lock: threading.Lock) -> None:
    from astro_cli.citations.author_year import matches_author_year
    from astro_cli.research.sources import ads, arxiv

    ids = [c for c in pending if c.kind != "author-year"]
    if ads.has_token(Web.of(app)) and ids:
        try:
            found = ads.lookup_many(Web.of(app), [_ads_name(c) for c in ids])
        except ServiceError as exc:
            with lock:
                notes.append(f"not checked with NASA ADS: {exc}")
        else:
            with lock:
                for cited in ids:
                    hit = found.get(_ads_name(cited))
                    results[cited] = hit.as_record() if hit else None
    unanswered = [c for c in ids if c.kind == "arxiv" and not results.get(c)]
    if unanswered:
        try:
            records = [r.as_record() for r in arxiv.fetch(Web.of(app), [c.ident for c in unanswered])]
        except ServiceError as exc:
            with lock:
                notes.append(f"not checked with arXiv: {exc}")
        else:
            with lock:
                for cited in unanswered:
                    results[cited] = next((r for r in records if carries(r, f"arXiv:{cited.ident}")), None)
    authored = [c for c in pending if c.kind == "author-year"]
    with lock:
        found_records = [r for r in results.values() if r]
        for cited in authored:  # "Foreman-Mackey et al. 2013" next to the bibcode just found
            results[cited] = next((r for r in found_records if matches_author_year(cited, r) is not None), None)
    if not ads.has_token(Web.of(app)):
        return
    for cited in [c for c in authored if not results.get(c)][:MAX_AUTHOR_QUERIES]:
        year = cited.year or 0
        query = f'first_author:"{cited.surnames[0]}" year:{year - 1}-{year + 1}'
        try:
            _, found_papers = ads.search(Web.of(app), query, rows=10)
            records = [r.as_record() for r in found_papers]
        except ServiceError as exc:
            with lock:
                notes.append(f"not checked with NASA ADS: {exc}")
            return
        with lock:
            results[cited] = next((r for r in records if matches_author_year(cited, r) is not None), None)


def resolve_online(app: AppContext, ledger: CitationLedger, pending: list[Cited],
                   budget: float) -> tuple[dict[Cited, dict[str, Any] | None], list[str]]:
    """{cited: record (None: not found)} for what could be checked in `budget` seconds, and notes."""
    results: dict[Cited, dict[str, Any] | None] = {}
    for cited in pending:  # identifiers already looked up; author-year depends on what else is cited
        if cited.kind != "author-year" and _cache_key(cited) in ledger.online:
            results[cited] = ledger.online[_cache_key(cited)]
    asked = [c for c in pending if c not in results]
    notes: list[str] = []
    if asked:
        lock = threading.Lock()
        box: dict[Cited, dict[str, Any] | None] = {}
        worker = threading.Thread(target=_lookups, args=(app, asked, box, notes, lock), name="citation-lookups",
                                  daemon=True)
        worker.start()
        worker.join(max(0.0, budget))
        with lock:
            answered = dict(box)
            notes = list(notes)
        if worker.is_alive():
            notes.append(f"the online check stopped after {budget:g} s (config 'citations.resolve_timeout')")
        for cited, record in answered.items():
            if cited.kind != "author-year":
                ledger.online[_cache_key(cited)] = record
        results.update(answered)
    return results, notes
