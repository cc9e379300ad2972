"""Giving each citation of an answer a status: verified, resolved or unverified.

- verified: a tool returned the paper in this session (see ledger.py), or it is in the library;
  an author-year citation is verified when a returned or library paper has that first author
  (and second, for "A & B") and a year within one of it (arXiv posting and journal year differ);
- resolved: not seen, but NASA ADS (else arXiv) confirms it exists (resolve.py);
- unverified: neither.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

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
        return {"id": self.cited.ident, "kind": self.cited.kind, "status": self.status, "title": self.title,
                "paper": self.paper}


@dataclass
class CheckResult:
    citations: list[Citation]
    notes: list[str] = field(default_factory=list)

    @property
    def unverified(self) -> list[Citation]:
        return [c for c in self.citations if c.status == "unverified"]

    def counts(self) -> dict[str, int]:
        return {status: sum(1 for c in self.citations if c.status == status) for status in STATUSES}


# --- author-year ---------------------------------------------------------------------------------
def _norm(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return " ".join(re.sub(r"[^a-z\s-]", "", plain).split())


@lru_cache(maxsize=4096)
def _variants(author: str) -> frozenset[str]:
    """An author's last name as it may be cited: whole ('van leeuwen') and without particles ('leeuwen')."""
    from astro_cli.research.bibtex_text import surname

    last = _norm(surname(author))
    return frozenset({last, last.split()[-1]}) if last else frozenset()


def matches_author_year(cited: Cited, record: dict[str, Any]) -> int | None:
    """How far the record's year is from the citation's (0 or 1) when the authors match; None otherwise."""
    authors = list(record.get("authors") or [])
    years = [int(str(y)) for y in (record.get("year"), record.get("pub_year")) if str(y or "").isdigit()]
    if not authors or not years or cited.year is None:
        return None
    distance = min(abs(cited.year - y) for y in years)
    if distance > 1:
        return None
    for index, name in enumerate(cited.surnames):
        if index >= len(authors):
            return None
        wanted, author = _norm(name), _norm(authors[index])
        # The name parser runs only for an author whose name contains the cited one at all.
        if wanted not in author or (wanted != author and wanted not in _variants(authors[index])):
            return None
    return distance


def _best(cited: Cited, records: list[dict[str, Any]]) -> dict[str, Any] | None:
    scored = [(d, r) for r in records if (d := matches_author_year(cited, r)) is not None]
    return min(scored, key=lambda item: item[0])[1] if scored else None


# --- the check -------------------------------------------------------------------------------------
def _paper_id(record: dict[str, Any]) -> str | None:
    return record.get("id") or record.get("arxiv_id") or record.get("bibcode") or record.get("doi") or None


def check_locally(app: AppContext, ledger: CitationLedger, cited: Cited) -> Citation | None:
    """Verified from the session's tool results or the library; None when neither knows it."""
    from astro_cli.research.library import Library
    from astro_cli.research.storage import has_library

    library = Library(app) if has_library(app) else None
    if cited.kind == "author-year":
        seen = _best(cited, [p.record for p in ledger.described()])
        if seen is None and cited.year is not None and library is not None:
            seen = _best(cited, library.papers_by_year(cited.year - 1, cited.year + 1))
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

