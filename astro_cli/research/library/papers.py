"""The local paper library: one row per paper in `papers`, its text chunks, and its files under papers/.

Papers reach the library under several names (an arXiv id with or without 'arXiv:' and a
version, a bibcode, a DOI); `get_paper` accepts any of them so the model and the user never
have to know which one was the canonical id. Two records are merged only when their identifiers
agree: different arXiv ids or different bibcodes are different papers, whatever else they share
(a wrong lookup answer must never turn one paper's row into another's).
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.research.identifiers import (
    arxiv_of_bibcode,
    arxiv_of_doi,
    doi_key,
    is_preprint_bibcode,
    normalize_arxiv,
    normalize_doi,
    same_bibcode_paper,
)
from astro_cli.research.library.storage import ChunkRow, LibraryStore, library_store, member_name

if TYPE_CHECKING:
    from astro_cli.app import AppContext

log = logging.getLogger(__name__)

__all__ = ["Library", "LibraryConflict", "Upserted", "normalize_arxiv", "normalize_doi", "PAPER_FIELDS"]

PAPER_FIELDS = (
    "id", "arxiv_id", "bibcode", "doi", "title", "authors", "year", "abstract", "pdf_path", "source_path",
    "citation_count", "url", "added_at", "parsed_at", "parsed_from", "pages",
    "journal_ref", "primary_class", "journal", "volume", "page", "pub_year", "added_by", "biblio",
    "content_sha256",
)


def now_iso() -> str:
    """When a row was added, to the millisecond: two adds within one second keep their order
    (library check names the older row of likely duplicates first, as the one to keep)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class LibraryConflict(ValueError):
    """A row already uses the id a new paper needs and names another paper (see `astro library check`)."""


@dataclass
class Upserted:
    """The stored row, and the rows it was kept apart from because their identifiers disagree."""

    paper: dict[str, Any]
    created: bool
    conflicts: list[str] = field(default_factory=list)


class Library:
    """Reads and writes papers through the library's store (research/storage: SQLite or PostgreSQL);
    chunks are written by the parser (research/library/parse.py)."""

    def __init__(self, app: AppContext, store: LibraryStore | None = None) -> None:
        self.app = app
        self.store = store if store is not None else library_store(app)

    @property
    def papers_dir(self) -> Path:
        """Where the papers' files are kept: `library.files_path` (a folder the group shares, say), else papers/."""
        configured = self.app.settings.get("library.files_path")
        return Path(configured).expanduser().resolve() if configured else self.app.workspace.papers_dir

    def files_folder(self) -> Path:
        """The papers' folder, made ready for writing (papers/ is refused when a link leads it elsewhere)."""
        if self.app.settings.get("library.files_path"):
            folder = self.papers_dir
        else:
            folder = self.app.confinement.folder(self.app.workspace.papers_dir, "The papers")
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    # --- papers ----------------------------------------------------------------------------
    def upsert_paper(self, meta: dict[str, Any]) -> dict[str, Any]:
        """Insert a paper or merge new metadata into the row that names the same paper; the row."""
        return self.upsert(meta).paper

    def upsert(self, meta: dict[str, Any]) -> Upserted:
        """Insert a paper or merge new metadata into the row that already names it.

        An existing row keeps its id (its chunks point at it): callers use the returned row's id.
        Fields the new metadata leaves empty keep their stored value; a stored identifier is never
        replaced by a different one (only an arXiv bibcode or DOI by the journal's, once published).
        Two processes adding the same paper at once: the database's unique id lets one insert win;
        the other finds the row on its next look and merges into it.
        """
        clean = self._clean(meta)
        for _attempt in range(3):
            existing, conflicts = self._same_paper(clean)
            if existing is None:
                paper_id = str(clean.get("id") or clean.get("arxiv_id") or clean.get("bibcode")
                               or clean.get("doi") or "")
                if not paper_id:
                    raise ValueError("a paper needs an id, an arXiv id, a bibcode or a DOI")
                clashing = self.get_by_id(paper_id)
                if clashing is not None:
                    raise LibraryConflict(
                        f"The library row {paper_id} carries the identifiers of another paper "
                        f"({_identifiers_text(clashing)}); run `astro library check` to repair it."
                    )
                row = {**clean, "id": paper_id}
                row.setdefault("added_at", now_iso())
                row.setdefault("added_by", member_name(self.app))
                if self.store.insert_paper(row):
                    return Upserted(self.get_by_id(paper_id), True, conflicts)  # type: ignore[arg-type]
                continue  # someone added it this very moment: merge into their row
            paper_id = existing["id"]
            for key in ("id", "added_at", "added_by"):
                clean.pop(key, None)
            _keep_stored_identifiers(existing, clean)
            if "biblio" in clean and existing.get("biblio"):  # facts merge: new ones win, old ones stay
                clean["biblio"] = json.dumps({**existing["biblio"], **json.loads(clean["biblio"])},
                                             ensure_ascii=False, sort_keys=True)
            if clean:
                self.store.update_paper(paper_id, clean)
            return Upserted(self.get_by_id(paper_id), False, conflicts)  # type: ignore[arg-type]
        raise LibraryConflict(f"The paper {clean.get('id') or clean.get('arxiv_id')} kept changing while it was "
                              "being added; try again.")

    def redacted_chunks(self, chunks: list[ChunkRow]) -> list[ChunkRow]:
        """Chunks with every known secret redacted: text is redacted before it is stored (a group
        library's members and a later model read it), not only before a model sees it."""
        redact = self.app.redactor.redact
        return [replace(c, text=redact(c.text), section=redact(c.section) if c.section else c.section)
                for c in chunks]

    def _clean(self, meta: dict[str, Any]) -> dict[str, Any]:
        clean = {k: v for k, v in meta.items() if k in PAPER_FIELDS and v not in (None, "", [])}
        clean = {k: self.app.redactor.redact_data(v) if k not in ("pdf_path", "source_path") else v
                 for k, v in clean.items()}  # metadata is stored text too
        if "arxiv_id" in clean:
            clean["arxiv_id"] = normalize_arxiv(clean["arxiv_id"])
        if "doi" in clean:
            clean["doi"] = normalize_doi(clean["doi"])
        if clean.get("id"):
            arxiv = normalize_arxiv(str(clean["id"]))
            if clean.get("arxiv_id") and arxiv == clean["arxiv_id"]:
                clean["id"] = arxiv  # the canonical id carries no 'arXiv:' or version
        if isinstance(clean.get("biblio"), dict):
            clean["biblio"] = json.dumps(clean["biblio"], ensure_ascii=False, sort_keys=True)
        if "authors" in clean:
            authors = clean["authors"]
            clean["authors"] = json.dumps(list(authors) if not isinstance(authors, str) else [authors])
        for key in ("pdf_path", "source_path"):
            if key in clean:
                clean[key] = self._stored_path(clean[key])
        for key in ("year", "citation_count", "pages", "pub_year"):
            if key in clean:
                try:
                    clean[key] = int(clean[key])
                except (TypeError, ValueError):
                    clean.pop(key)
        return {k: v for k, v in clean.items() if v not in (None, "")}

    def _same_paper(self, clean: dict[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
        """The row naming the same paper as `clean`, and the rows that share a name but are not it."""
        names = [("hash", clean.get("content_sha256")), ("arxiv", clean.get("arxiv_id")),
                 ("bibcode", clean.get("bibcode")), ("doi", clean.get("doi")), ("id", clean.get("id"))]
        conflicts: list[str] = []
        seen: set[str] = set()
        for kind, value in names:
            if not value:
                continue
            for row in self.store.papers_named(kind, str(value)):
                if row["id"] in seen:
                    continue
                seen.add(row["id"])
                disagreement = _disagreement(row, clean)
                if disagreement is None:
                    return self._decode(row), conflicts
                conflicts.append(f"kept apart from {row['id']}: {disagreement}")
        return None, conflicts

    def get_by_id(self, paper_id: str) -> dict[str, Any] | None:
        row = self.store.paper(paper_id)
        return self._decode(row) if row else None

    def _stored_path(self, raw: str | Path) -> str:
        """Paths inside the workspace are stored relative to it, so a moved workspace keeps working."""
        path = Path(raw)
        if not path.is_absolute():
            return str(path)  # already relative to the workspace (a row copied from another library)
        try:
            return str(path.resolve().relative_to(self.app.workspace.root.resolve()))
        except ValueError:
            return str(path)

    def file_roots(self) -> tuple[Path, ...]:
        """The only folders a paper's files are read from (resolved): the workspace's papers/ and
        `library.files_path`. A local file the user adds is copied into them (local_add.py)."""
        roots = (self.app.workspace.papers_dir.resolve(), self.papers_dir)
        return tuple(dict.fromkeys(roots))

    def confined(self, path: Path) -> Path | None:
        """`path` resolved (links followed), or None when it lies outside the paper folders or in a
        key store: a row's path comes from a database other people write (a group library, a
        shipped .astro/astro.db), so it is never trusted to name a file."""
        resolved = path.resolve()
        if not any(resolved == root or resolved.is_relative_to(root) for root in self.file_roots()):
            return None
        guard = self.app.confinement  # key stores and astro's own state, even inside a paper folder
        return None if guard.is_secret(resolved) or guard.is_protected(resolved) else resolved

    def resolve_file(self, stored: str | None) -> Path | None:
        """The real path of a stored pdf_path / source_path, or None when it names no file astro may read.

        In a shared library the row may name another member's file: the same name in this member's
        papers folder (or `library.files_path`) is the same paper's file. Either way the path must
        lead into the paper folders (see `confined`); a row naming anything else is logged and ignored.
        """
        if not stored:
            return None
        path = Path(stored)
        nominal = path if path.is_absolute() else self.app.workspace.root / path
        candidates = [self.confined(nominal), self.confined(self.papers_dir / path.name)]
        if candidates[0] is None:
            log.warning("paper file %r lies outside the paper folders; it is not read", stored)
        found = next((c for c in candidates if c is not None and c.exists()), None)
        return found or next((c for c in candidates if c is not None), None)

    def get_paper(self, id_or_alias: str) -> dict[str, Any] | None:
        """The paper named by its id, arXiv id (any prefix or version, or its arXiv bibcode or DOI),
        bibcode or DOI."""
        raw = (id_or_alias or "").strip()
        if not raw:
            return None
        arxiv = arxiv_of_bibcode(raw) or arxiv_of_doi(raw) or normalize_arxiv(raw)
        row = self.store.paper_by_alias(raw, arxiv, doi_key(raw))
        return self._decode(row) if row else None

    def knows(self, identifier: str) -> dict[str, Any] | None:
        """The library's paper for an identifier the citation check met, or None."""
        return self.get_paper(identifier)

    def papers_by_year(self, first: int, last: int) -> list[dict[str, Any]]:
        """Papers first posted or published between two years (author-year citations are matched on them)."""
        return [self._decode(row) for row in self.store.papers_in_years(first, last)]

    def conflicts(self) -> list[dict[str, str]]:
        """Pairs of rows that share a DOI, a bibcode or an arXiv id: kept apart, and shown to the user."""
        return [dict(row) for row in self.store.paper_conflicts()]

    def list_papers(self, added_by: str | None = None) -> list[dict[str, Any]]:
        """Every paper (or those one member added), newest first, with how many chunks it has indexed
        and what it conflicts with."""
        papers = [self._decode(row) for row in self.store.papers_with_counts(added_by)]
        notes: dict[str, list[str]] = {}
        for conflict in self.conflicts():
            for me, other in ((conflict["a"], conflict["b"]), (conflict["b"], conflict["a"])):
                notes.setdefault(me, []).append(f"same {conflict['kind']} {conflict['value']} as {other}")
        for paper in papers:
            paper["conflicts"] = notes.get(paper["id"], [])
        return papers

    def remove(self, paper_id: str) -> bool:
        """Delete the paper's row, chunks, vectors and its files under papers/ (the command confirms)."""
        paper = self.get_paper(paper_id)
        if paper is None:
            return False
        files = self.paper_files(paper)
        self.store.delete_paper(paper["id"])
        root = self.papers_dir.resolve()
        for path in files:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            parent = path.parent
            if parent != root and parent.is_relative_to(root) and parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()  # a per-paper folder left empty
        return True

    def paper_files(self, paper: dict[str, Any]) -> list[Path]:
        """The paper's files that live under papers/ (files elsewhere are the user's and stay)."""
        root = self.papers_dir.resolve()
        found: list[Path] = []
        for key in ("pdf_path", "source_path"):
            path = self.resolve_file(paper.get(key))
            if path is None or not path.exists():
                continue
            resolved = path.resolve()
            if resolved != root and resolved.is_relative_to(root):
                found.append(resolved)
        return found

    def has_files(self, paper: dict[str, Any]) -> bool:
        """Is the paper's PDF or source on this machine? (In a shared library, often not: the text is.)"""
        return any((p := self.resolve_file(paper.get(key))) is not None and p.exists()
                   for key in ("pdf_path", "source_path"))

    @staticmethod
    def _decode(row: dict[str, Any]) -> dict[str, Any]:
        out = dict(row)
        try:
            out["authors"] = json.loads(out.get("authors") or "[]")
        except json.JSONDecodeError:
            out["authors"] = []
        try:
            out["biblio"] = json.loads(out.get("biblio") or "{}")
        except (json.JSONDecodeError, TypeError):
            out["biblio"] = {}
        return out

    # --- facts for citations ---------------------------------------------------------------
    @staticmethod
    def source_entry(paper: dict[str, Any]) -> dict[str, Any]:
        """What /sources lists for a paper the model used (first authors and year for author-year citations)."""
        entry = {key: paper.get(key) for key in ("id", "title", "bibcode", "arxiv_id", "doi", "url", "year")}
        authors = list(paper.get("authors") or [])
        entry["authors"] = authors[:SOURCE_AUTHORS]
        if len(authors) > SOURCE_AUTHORS:
            entry["n_authors"] = len(authors)
        return entry


SOURCE_AUTHORS = 3  # enough to match "A & B 2013" and "A et al. 2013"


def _disagreement(row: dict[str, Any], clean: dict[str, Any]) -> str | None:
    """Why `row` cannot be the paper `clean` describes, or None when nothing speaks against it."""
    arxiv = clean.get("arxiv_id")
    if arxiv and row.get("arxiv_id") and row["arxiv_id"] != arxiv:
        return f"it has arXiv id {row['arxiv_id']}, not {arxiv}" + _shared(row, clean)
    bibcode = clean.get("bibcode")
    if bibcode and row.get("bibcode") and not same_bibcode_paper(row["bibcode"], bibcode,
                                                                arxiv or row.get("arxiv_id")):
        return f"it has bibcode {row['bibcode']}, not {bibcode}" + _shared(row, clean)
    if not (arxiv and row.get("arxiv_id")) and not (bibcode and row.get("bibcode")):
        # Linked by the DOI or the id alone: a DOI on both sides that differs means two papers.
        doi = clean.get("doi")
        if doi and row.get("doi") and doi_key(doi) != doi_key(row["doi"]) and row["id"] != clean.get("id"):
            return f"it has DOI {row['doi']}, not {doi}"
    return None


def _shared(row: dict[str, Any], clean: dict[str, Any]) -> str:
    if clean.get("doi") and doi_key(clean["doi"]) == doi_key(row.get("doi")):
        return f" (both give DOI {row['doi']})"
    if clean.get("bibcode") and clean["bibcode"] == row.get("bibcode"):
        return f" (both give bibcode {row['bibcode']})"
    return ""


def _keep_stored_identifiers(row: dict[str, Any], clean: dict[str, Any]) -> None:
    """A matched row keeps its identifiers; a preprint's bibcode or arXiv DOI gives way to the journal's."""
    bibcode = clean.get("bibcode")
    if bibcode and row.get("bibcode") and bibcode != row["bibcode"]:
        if not (is_preprint_bibcode(row["bibcode"]) and not is_preprint_bibcode(bibcode)):
            clean.pop("bibcode")
    doi = clean.get("doi")
    if doi and row.get("doi") and doi_key(doi) != doi_key(row["doi"]):
        if not (arxiv_of_doi(row["doi"]) and not arxiv_of_doi(doi)):
            clean.pop("doi")
    if clean.get("arxiv_id") and row.get("arxiv_id"):
        clean.pop("arxiv_id")  # equal, or the row would not have matched


def _identifiers_text(row: dict[str, Any]) -> str:
    parts = [f"{label} {row[key]}" for key, label in (("arxiv_id", "arXiv"), ("bibcode", "bibcode"), ("doi", "DOI"))
             if row.get(key)]
    return ", ".join(parts) or "no identifiers"
