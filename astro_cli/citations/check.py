"""Giving each citation of an answer a status: verified, resolved or unverified.

- verified: a tool returned the paper in this session (see ledger.py), or it is in the library;
  an author-year citation is verified when a returned or library paper has that first author
  (and second, for "A & B") and a year within one of it (arXiv posting and journal year differ);
- resolved: not seen, but NASA ADS (else arXiv) confirms it exists (resolve.py);
- unverified: neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.citations.author_year import best_match
from astro_cli.citations.extract import Cited, find_citations
from astro_cli.citations.ledger import CitationLedger

if TYPE_CHECKING:
    from astro_cli.app import AppContext

STATUSES = ("verified", "resolved", "unverified")


@dataclass
class Citation:
    cited: Cited
    status: str
    title: str | None = None
    paper: str | None = None  # the library id, or the paper's arXiv id / bibcode / DOI
    record: dict[str, Any] = field(default_factory=dict)  # what is known of the paper (for /cite)

    def as_dict(self) -> dict[str, Any]:
        from astro_cli.research.remote_search import update_mark

        out = {"id": self.cited.ident, "kind": self.cited.kind, "status": self.status, "title": self.title,
               "paper": self.paper}
        mark = update_mark(self.record)  # issue 30: Crossref's notice, e.g. "retracted 2021"
        return {**out, "mark": mark} if mark else out


@dataclass
class CheckResult:
    citations: list[Citation]
    notes: list[str] = field(default_factory=list)

    @property
    def unverified(self) -> list[Citation]:
        return [c for c in self.citations if c.status == "unverified"]

    def counts(self) -> dict[str, int]:
        return {status: sum(1 for c in self.citations if c.status == status) for status in STATUSES}


# --- the check -------------------------------------------------------------------------------------
def _paper_id(record: dict[str, Any]) -> str | None:
    return record.get("id") or record.get("arxiv_id") or record.get("bibcode") or record.get("doi") or None


def check_locally(app: AppContext, ledger: CitationLedger, cited: Cited) -> Citation | None:
    """Verified from the session's tool results or the library; None when neither knows it."""
    from astro_cli.research.library import Library
    from astro_cli.research.storage import has_library

    library = Library(app) if has_library(app) else None
    if cited.kind == "author-year":
        seen = best_match(cited, [p.record for p in ledger.described()])
        if seen is None and cited.year is not None and library is not None:
            seen = best_match(cited, library.papers_by_year(cited.year - 1, cited.year + 1))
        return Citation(cited, "verified", seen.get("title"), _paper_id(seen), seen) if seen else None
    found = ledger.find(cited.lookup)
    if found is not None:
        row = library.knows(cited.lookup) if library is not None else None
        record = {**found.record, **(row or {})}
        return Citation(cited, "verified", record.get("title"), (row or {}).get("id") or found.paper_id, record)
    row = library.knows(cited.lookup) if library is not None else None
    if row is not None:
        return Citation(cited, "verified", row.get("title"), row["id"], row)
    return None


def check_answer(app: AppContext, ledger: CitationLedger, text: str, resolve: bool,
                 budget: float) -> CheckResult:
    """The status of every citation in `text`, in the order the answer cites them."""
    from astro_cli.research.storage import LibraryUnavailable

    found = find_citations(text)
    citations: list[Citation | None] = []
    pending: list[Cited] = []
    notes: list[str] = []
    for cited in found:
        try:
            local = check_locally(app, ledger, cited)
        except LibraryUnavailable as exc:  # the group library's server is away: the rest still counts
            if not notes:
                notes.append(f"The library was not consulted: {exc}")
            local = None
        citations.append(local)
        if local is None:
            pending.append(cited)
    online: dict[Cited, dict[str, Any] | None] = {}
    if pending and resolve:
        from astro_cli.citations.resolve import resolve_online

        online, online_notes = resolve_online(app, ledger, pending, budget)
        notes += online_notes
    out: list[Citation] = []
    for cited, local in zip(found, citations):
        if local is not None:
            out.append(local)
            continue
        record = online.get(cited)
        if record:
            out.append(Citation(cited, "resolved", record.get("title"), _paper_id(record), record))
        else:
            out.append(Citation(cited, "unverified"))
    return CheckResult(out, notes)

