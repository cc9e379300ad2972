"""The paper library as one service: its papers' rows, their text chunks and files, and what is done with them.

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.research.found import FoundPaper
from astro_cli.research.identifiers import (
    arxiv_of_bibcode,
    arxiv_of_doi,
    doi_key,
    normalize_arxiv,
    normalize_doi,
)
from astro_cli.research.library.files import PaperFiles
from astro_cli.research.library.matching import disagreement, identifiers_text, keep_stored_identifiers
from astro_cli.research.library.storage import LibraryStore, NoteScope
from astro_cli.research.records import PAPER_COLUMNS, Chunk, Paper

if TYPE_CHECKING:
    from collections.abc import Sequence

    from astro_cli.config import Settings
    from astro_cli.extensions import ExtensionPoints
    from astro_cli.research.search.local_embed import LocalModels
    from astro_cli.research.source_entry import SourceEntry
    from astro_cli.research.sources.web import Web
    from astro_cli.security.paths import Confinement
    from astro_cli.security.secrets import Redactor
    from astro_cli.workspace import AstroHome, Workspace

log = logging.getLogger(__name__)

__all__ = ["LibraryCore", "LibraryParts", "LibraryConflict", "Upserted", "normalize_arxiv", "normalize_doi", "PAPER_FIELDS"]

PAPER_FIELDS = tuple(c for c in PAPER_COLUMNS if c != "outline")  # what a caller may give; parsing writes the outline


def now_iso() -> str:
    """When a row was added, to the millisecond: two adds within one second keep their order
    (library check names the older row of likely duplicates first, as the one to keep)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class LibraryConflict(ValueError):
    """A row already uses the id a new paper needs and names another paper (see `astro library check`)."""


@dataclass
class Upserted:
    """The stored paper, and the rows it was kept apart from because their identifiers disagree."""

    paper: Paper
    created: bool
    conflicts: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LibraryParts:
    """What the library is built from, handed in by its factory (research/library/feature.py
    `library_of`), never read from the app. The parts the app makes on first use (the redactor reads
    keys.yaml, the confinement the trust store) come as functions, so building a library costs nothing."""

    settings: Settings
    workspace: Workspace
    home: AstroHome
    store: LibraryStore
    files: PaperFiles
    web: Callable[[], Web]
    redactor: Callable[[], Redactor]
    confinement: Callable[[], Confinement]
    encoders: Callable[[], LocalModels]
    readers: Callable[[], ExtensionPoints]  # the text readers (PDF, LaTeX, Markdown and a plugin's)
    on_close: Callable[[Callable[[], None]], None]


class LibraryCore:
    """What every step of the library is handed: the store (storage/: SQLite or PostgreSQL), the
    paper files, the settings, and the papers' rows as `Paper` records. It holds its parts, never the
    app (`LibraryParts`, built once per app by the feature's factory); the steps (download, parse,
    embed, search, content, notes) take it instead."""

    def __init__(self, parts: LibraryParts) -> None:
        self.parts = parts
        self.settings = parts.settings
        self.workspace = parts.workspace
        self.home = parts.home
        self.store = parts.store
        self.files = parts.files
        # The notes folder as the last sync saw it (relative path -> mtime): a search after a search
        # finds it unchanged and asks the index nothing (notes.py).
        self.notes_seen: dict[str, int] | None = None

    def with_store(self, store: LibraryStore) -> LibraryCore:
        """This library over another store (`library migrate` copies from one to the other)."""
        import copy

        other = copy.copy(self)
        other.store = store
        other.notes_seen = None
        return other

    # --- what the steps share --------------------------------------------------------------
    @property
    def redactor(self) -> Redactor:
        return self.parts.redactor()

    @property
    def confinement(self) -> Confinement:
        return self.parts.confinement()

    @property
    def web(self) -> Web:
        """How the sources (arXiv, ADS, Crossref) are reached: settings, User-Agent, the arXiv throttle."""
        return self.parts.web()

    @property
    def encoders(self) -> LocalModels:
        """The local embedding models, loaded once per process."""
        return self.parts.encoders()

    @property
    def readers(self) -> ExtensionPoints:
        """The text readers (PDF, LaTeX, Markdown and any a plugin adds)."""
        return self.parts.readers()

    def on_close(self, closer: Callable[[], None]) -> None:
        self.parts.on_close(closer)

    @property
    def shared(self) -> bool:
        """Is the library on a group's server (other people's astro writes to it too)?"""
        return bool(self.settings.typed["library.database_url"])

    @property
    def member(self) -> str:
        """Who is adding: `library.member`, else the login name."""
        from astro_cli.research.library.storage import member_name

        return member_name(self.settings)

    @property
    def note_scope(self) -> NoteScope:
        """The notes a sync of this workspace may change: this member's, of this folder, on this machine."""
        import socket

        return NoteScope(self.member, f"{socket.gethostname()}:{self.workspace.root}")

    @property
    def embedding_model(self) -> str | None:
        """The model whose vectors the library makes and searches, or None for BM25 alone."""
        from astro_cli.research.search.embedding_choice import embedding_model

        return embedding_model(self.settings)

    @property
    def papers_dir(self) -> Path:
        return self.files.papers_dir

    def files_folder(self) -> Path:
        return self.files.folder()

    # --- papers ----------------------------------------------------------------------------
    def upsert_paper(self, meta: FoundPaper | Mapping[str, Any]) -> Paper:
        """Insert a paper or merge new metadata into the row that names the same paper; the row."""
        return self.upsert(meta).paper

    def upsert(self, meta: FoundPaper | Mapping[str, Any], pdf_path: str | None = None,
               source_path: str | None = None) -> Upserted:
        """Insert a paper or merge new metadata into the row that already names it: a paper as the
        services found it (with the files it was stored as), or some of a row's columns by name.

        An existing row keeps its id (its chunks point at it): callers use the returned paper's id.
        Fields the new metadata leaves empty keep their stored value; a stored identifier is never
        replaced by a different one (only an arXiv bibcode or DOI by the journal's, once published).
        Two processes adding the same paper at once: the database's unique id lets one insert win;
        the other finds the row on its next look and merges into it. The paper comes back from the
        statement that wrote it, never from another read.
        """
        given = {**meta.row(), "pdf_path": pdf_path, "source_path": source_path} \
            if isinstance(meta, FoundPaper) else dict(meta)
        clean = self._clean(given)
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
                        f"({identifiers_text(clashing.as_dict())}); run `astro library check` to repair it."
                    )
                row = {**clean, "id": paper_id}
                row.setdefault("added_at", now_iso())
                row.setdefault("added_by", self.member)
                inserted = self.store.insert_paper(row)
                if inserted is not None:
                    return Upserted(inserted, True, conflicts)
                continue  # someone added it this very moment: merge into their row
            for key in ("id", "added_at", "added_by"):
                clean.pop(key, None)
            keep_stored_identifiers(existing.as_dict(), clean)
            if "biblio" in clean and existing.biblio:  # facts merge: new ones win, old ones stay
                clean["biblio"] = json.dumps({**existing.biblio, **json.loads(clean["biblio"])},
                                             ensure_ascii=False, sort_keys=True)
            updated = self.store.update_paper(existing.id, clean) if clean else existing
            return Upserted(updated or existing, False, conflicts)
        raise LibraryConflict(f"The paper {clean.get('id') or clean.get('arxiv_id')} kept changing while it was "
                              "being added; try again.")

    def redacted_chunks(self, chunks: Sequence[Chunk]) -> list[Chunk]:
        """Chunks with every known secret redacted: text is redacted before it is stored (a group
        library's members and a later model read it), not only before a model sees it."""
        redact = self.redactor.redact
        return [replace(c, text=redact(c.text), section=redact(c.section) if c.section else c.section)
                for c in chunks]

    def _clean(self, meta: dict[str, Any]) -> dict[str, Any]:
        clean = {k: v for k, v in meta.items() if k in PAPER_FIELDS and v not in (None, "", [])}
        clean = {k: self.redactor.redact_data(v) if k not in ("pdf_path", "source_path") else v
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
                clean[key] = self.files.stored_path(clean[key])
        for key in ("year", "citation_count", "pages", "pub_year"):
            if key in clean:
                try:
                    clean[key] = int(clean[key])
                except (TypeError, ValueError):
                    clean.pop(key)
        return {k: v for k, v in clean.items() if v not in (None, "")}

    def _same_paper(self, clean: dict[str, Any]) -> tuple[Paper | None, list[str]]:
        """The paper `clean` describes, and the rows that share a name but are not it."""
        names = [("hash", clean.get("content_sha256")), ("arxiv", clean.get("arxiv_id")),
                 ("bibcode", clean.get("bibcode")), ("doi", clean.get("doi")), ("id", clean.get("id"))]
        conflicts: list[str] = []
        seen: set[str] = set()
        for kind, value in names:
            if not value:
                continue
            for paper in self.store.papers_named(kind, str(value)):
                if paper.id in seen:
                    continue
                seen.add(paper.id)
                why = disagreement(paper.as_dict(), clean)
                if why is None:
                    return paper, conflicts
                conflicts.append(f"kept apart from {paper.id}: {why}")
        return None, conflicts

    def get_by_id(self, paper_id: str) -> Paper | None:
        return self.store.paper(paper_id)

    # --- files -----------------------------------------------------------------------------
    def file_roots(self) -> tuple[Path, ...]:
        return self.files.roots()

    def confined(self, path: Path) -> Path | None:
        return self.files.confined(path)

    def resolve_file(self, stored: str | None) -> Path | None:
        return self.files.resolve(stored)

    def paper_files(self, paper: Paper) -> list[Path]:
        return self.files.of(paper)

    def has_files(self, paper: Paper) -> bool:
        return self.files.present(paper)

    # --- reading ---------------------------------------------------------------------------
    def get_paper(self, id_or_alias: str) -> Paper | None:
        """The paper named by its id, arXiv id (any prefix or version, or its arXiv bibcode or DOI),
        bibcode or DOI."""
        raw = (id_or_alias or "").strip()
        if not raw:
            return None
        arxiv = arxiv_of_bibcode(raw) or arxiv_of_doi(raw) or normalize_arxiv(raw)
        return self.store.paper_by_alias(raw, arxiv, doi_key(raw))

    def knows(self, identifier: str) -> Paper | None:
        """The library's paper for an identifier the citation check met, or None."""
        return self.get_paper(identifier)

    def papers_by_year(self, first: int, last: int) -> list[Paper]:
        """Papers first posted or published between two years (author-year citations are matched on them)."""
        return self.store.papers_in_years(first, last)

    def conflicts(self) -> list[dict[str, str]]:
        """Pairs of rows that share a DOI, a bibcode or an arXiv id: kept apart, and shown to the user."""
        return [{k: str(v) for k, v in row.items()} for row in self.store.paper_conflicts()]

    def list_papers(self, added_by: str | None = None) -> list[Paper]:
        """Every paper (or those one member added), newest first, with how many chunks it has indexed
        and what it conflicts with."""
        notes: dict[str, list[str]] = {}
        for conflict in self.conflicts():
            for me, other in ((conflict["a"], conflict["b"]), (conflict["b"], conflict["a"])):
                notes.setdefault(me, []).append(f"same {conflict['kind']} {conflict['value']} as {other}")
        return [paper.but(conflicts=tuple(notes.get(paper.id, [])))
                for paper in self.store.papers_with_counts(added_by)]

    def remove(self, paper_id: str) -> bool:
        """Delete the paper's row, chunks, vectors and its files under papers/ (the command confirms)."""
        paper = self.get_paper(paper_id)
        if paper is None:
            return False
        files = self.paper_files(paper)
        self.store.delete_paper(paper.id)
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

    # --- facts for citations ---------------------------------------------------------------
    @staticmethod
    def source_entry(paper: Paper) -> SourceEntry:
        """What /sources lists for a paper the model used: its `PaperRef` (first authors and year for
        author-year citations), the same form a search hit's paper has."""
        from astro_cli.research.source_entry import SourceEntry

        return SourceEntry(paper.ref())
