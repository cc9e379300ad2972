"""Giving each citation of an answer a status: verified, resolved or unverified.

- verified: a tool returned the paper in this session (see ledger.py), or it is in the library;
  an author-year citation is verified when a returned or library paper has that first author
  (and second, for "A & B") and a year within one of it (arXiv posting and journal year differ);
- resolved: not seen, but NASA ADS (else arXiv) confirms it exists (resolve.py);
- unverified: neither.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.citations.author_year import matches_author_year
from astro_cli.citations.extract import Cited, find_citations_at, unique
from astro_cli.citations.ledger import CitationLedger
from astro_cli.research.identifiers import record_keys

if TYPE_CHECKING:
    from astro_cli.app import AppContext

STATUSES = ("verified", "resolved", "unverified", "malformed")


@dataclass
class Citation:
    cited: Cited
    status: str
    title: str | None = None
    paper: str | None = None  # the library id, or the paper's arXiv id / bibcode / DOI
    record: dict[str, Any] = field(default_factory=dict)  # what is known of the paper (for /cite)
    detail: str | None = None  # why it is not verified, when there is more to say

    def as_dict(self) -> dict[str, Any]:
        from astro_cli.research.sources.remote_search import update_mark

        out: dict[str, Any] = {"id": self.cited.ident, "kind": self.cited.kind, "status": self.status,
                               "title": self.title, "paper": self.paper}
        if self.cited.version:
            out["version"] = self.cited.version
        if self.detail:
            out["detail"] = self.detail
        mark = update_mark(self.record)  # issue 30: Crossref's notice, e.g. "retracted 2021"
        return {**out, "mark": mark} if mark else out


@dataclass
class CheckResult:
    citations: list[Citation]
    notes: list[str] = field(default_factory=list)
    found_at: list[tuple[int, Cited]] | None = None  # each citation with its offset in the answer (claims.py)

    @property
    def unverified(self) -> list[Citation]:
        return [c for c in self.citations if c.status in ("unverified", "malformed")]

    def counts(self) -> dict[str, int]:
        return {status: sum(1 for c in self.citations if c.status == status) for status in STATUSES}


# --- the check -------------------------------------------------------------------------------------
def _paper_id(record: dict[str, Any]) -> str | None:
    return record.get("id") or record.get("arxiv_id") or record.get("bibcode") or record.get("doi") or None


def latest_version(record: dict[str, Any]) -> int | None:
    """The newest arXiv version a record names (its abs URL or file: `.../1111.2011v2`), if any."""
    found = [int(m) for key in ("url", "pdf_path", "arxiv_version", "version")
             for m in re.findall(r"v(\d+)(?:\b|_|\.pdf)", str(record.get(key) or ""))]
    if isinstance(record.get("arxiv_version"), int):
        found.append(int(record["arxiv_version"]))
    return max(found) if found else None


def _version_problem(cited: Cited, record: dict[str, Any]) -> str | None:
    """Why a cited arXiv version cannot be confirmed (None: no version cited, or it exists)."""
    if not cited.version or cited.version == 1:
        return None
    latest = latest_version(record)
    if latest is None:
        return f"version v{cited.version} could not be confirmed"
    return None if cited.version <= latest else f"arXiv:{cited.ident} has no version v{cited.version} (latest v{latest})"


def _author_year_match(cited: Cited, records: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, str | None]:
    """(the one paper that fits, None) or (None, why not: ambiguous)."""
    papers: list[tuple[set[tuple[str, str]], int, dict[str, Any]]] = []  # one per paper, by any shared id
    for record in records:
        distance = matches_author_year(cited, record)
        if distance is None:
            continue
        keys = {(k, v.lower()) for k, v in record_keys(record)} | {
            ("name", str(record.get(k)).lower()) for k in ("id", "title") if record.get(k)}
        same = next((p for p in papers if p[0] & keys), None)
        if same is None:
            papers.append((keys, distance, record))
        else:
            same[0].update(keys)
            if distance < same[1]:
                papers[papers.index(same)] = (same[0], distance, record)
    if not papers:
        return None, None
    best = min(d for _, d, _ in papers)
    fits = [r for _, d, r in papers if d == best]
    if len(fits) > 1:
        return None, f"ambiguous: {len(fits)} papers fit {cited.ident}"
    return fits[0], None


def check_locally(app: AppContext, ledger: CitationLedger, cited: Cited) -> Citation | None:
    """Verified from the session's tool records or the library; None when neither knows it."""
    from astro_cli.research.library.service import Library
    from astro_cli.research.library.storage import has_library

    if cited.kind == "malformed":
        return Citation(cited, "malformed", detail="not a valid arXiv id, bibcode or DOI")
    library = Library.of(app) if has_library(app.settings, app.workspace) else None
    if cited.kind == "author-year":
        return _check_author_year(app, ledger, library, cited)
    found = ledger.find(cited.lookup)
    row = library.knows(cited.lookup) if library is not None else None
    if found is None and row is None:
        return None
    stored = row.as_dict() if row is not None else {}
    record = {**(found.entry.as_dict() if found else {}),
              **{k: v for k, v in stored.items() if v not in (None, "", [])}}
    paper = row.id if row is not None else (found.paper_id if found else None)
    problem = _version_problem(cited, record)
    if problem and latest_version(record) is not None:
        return Citation(cited, "unverified", record.get("title"), paper, record, detail=problem)
    if problem:
        return None  # the version is looked up online
    return Citation(cited, "verified", record.get("title"), paper, record)


def _check_author_year(app: AppContext, ledger: CitationLedger, library: Any, cited: Cited) -> Citation | None:
    if cited.paired:  # "(2010, arXiv:1011.0428)": the cite is that paper, and must fit it
        kind, ident = cited.paired.split(":", 1)
        partner = check_locally(app, ledger, Cited(ident, kind))
        if partner is None or partner.status != "verified":
            return None
        record = partner.record
        if matches_author_year(cited, record) is None and record.get("authors"):
            return Citation(cited, "unverified", record.get("title"), partner.paper, record,
                            detail=f"{cited.paired.split(':', 1)[1]} is not by {cited.ident}")
        return Citation(cited, "verified", record.get("title"), partner.paper, record)
    records = [p.entry.as_dict() for p in ledger.described()]
    if cited.year is not None and library is not None:
        records += [p.as_dict() for p in library.papers_by_year(cited.year - 1, cited.year + 1)]
    seen, why = _author_year_match(cited, records)
    if why:
        return Citation(cited, "unverified", detail=why)
    return Citation(cited, "verified", seen.get("title"), _paper_id(seen), seen) if seen else None


def check_answer(app: AppContext, ledger: CitationLedger, text: str, resolve: bool,
                 budget: float) -> CheckResult:
    """The status of every citation in `text`, in the order the answer cites them."""
    from astro_cli.research.library.storage import LibraryUnavailable

    positioned = find_citations_at(text)
    found = unique(positioned)
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
        if local is None and not cited.paired:
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
        problem = _version_problem(cited, record) if record else None
        if cited.paired:
            out.append(_paired_online(cited, online))
        elif record and not problem:
            out.append(Citation(cited, "resolved", record.get("title"), _paper_id(record), record))
        else:
            unconfirmed = f"version v{cited.version} could not be confirmed" if cited.version and not record else None
            out.append(Citation(cited, "unverified", detail=problem or unconfirmed))
    return CheckResult(_with_partners(out), notes, positioned)


def _with_partners(citations: list[Citation]) -> list[Citation]:
    """An author-year written with an id (`Cowan & Agol (2010, arXiv:1001.0012v9)`) is that id's paper: it is
    not verified when the id, as written (its version too), is not."""
    ids = {f"{c.cited.kind}:{c.cited.ident}": c for c in citations if c.cited.kind != "author-year"}
    out = []
    for citation in citations:
        partner = ids.get(citation.cited.paired or "")
        if partner is not None and citation.status in ("verified", "resolved") and partner.status in (
                "unverified", "malformed"):
            citation = Citation(citation.cited, "unverified", citation.title, citation.paper, citation.record,
                                detail=partner.detail or f"{partner.cited.label} could not be confirmed")
        out.append(citation)
    return out



def _paired_online(cited: Cited, online: dict[Cited, dict[str, Any] | None]) -> Citation:
    """An author-year written with an id no tool returned: resolved when the id's record fits it."""
    kind, ident = (cited.paired or ":").split(":", 1)
    record = next((r for c, r in online.items() if r and c.kind == kind and c.ident == ident), None)
    if record and matches_author_year(cited, record) is not None:
        return Citation(cited, "resolved", record.get("title"), _paper_id(record), record)
    detail = f"{ident} is not by {cited.ident}" if record else None
    return Citation(cited, "unverified", detail=detail)
