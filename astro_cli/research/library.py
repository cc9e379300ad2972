"""The local paper library: one row per paper in `papers`, its text chunks, and its files under papers/.

Papers reach the library under several names (an arXiv id with or without 'arXiv:' and a
version, a bibcode, a DOI); `get_paper` accepts any of them so the model and the user never
have to know which one was the canonical id.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.store.db import Database

PAPER_FIELDS = (
    "id", "arxiv_id", "bibcode", "doi", "title", "authors", "year", "abstract", "pdf_path", "source_path",
    "citation_count", "url", "added_at", "parsed_at", "parsed_from", "pages",
)
_ARXIV_PREFIX = re.compile(r"^(?:arxiv:|https?://(?:export\.)?arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE)
_VERSION = re.compile(r"v\d+$")
_DOI_PREFIX = re.compile(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def normalize_arxiv(raw: str | None) -> str | None:
    """'arXiv:1001.0012v2', 'https://arxiv.org/abs/1001.0012' and '1001.0012' all name 1001.0012."""
    if not raw:
        return None
    text = _ARXIV_PREFIX.sub("", str(raw).strip())
    text = text.removesuffix(".pdf")
    return _VERSION.sub("", text) or None


def normalize_doi(raw: str | None) -> str | None:
    if not raw:
        return None
    return _DOI_PREFIX.sub("", str(raw).strip()).lower() or None


class Library:
    """Reads and writes papers; chunks are written by the parser (see research/parse.py)."""

    def __init__(self, app: AppContext) -> None:
        self.app = app

    @property
    def db(self) -> Database:
        return self.app.db

    @property
    def papers_dir(self) -> Path:
        return self.app.workspace.papers_dir

    # --- papers ----------------------------------------------------------------------------
    def upsert_paper(self, meta: dict[str, Any]) -> dict[str, Any]:
        """Insert a paper or merge new metadata into the row that already names it.

        An existing row keeps its id (its chunks point at it): callers use the returned row's id.
        Fields the new metadata leaves empty keep their stored value.
        """
        clean = {k: v for k, v in meta.items() if k in PAPER_FIELDS and v not in (None, "", [])}
        if "arxiv_id" in clean:
            clean["arxiv_id"] = normalize_arxiv(clean["arxiv_id"])
        if "doi" in clean:
            clean["doi"] = normalize_doi(clean["doi"])
        if "authors" in clean:
            authors = clean["authors"]
            clean["authors"] = json.dumps(list(authors) if not isinstance(authors, str) else [authors])
        for key in ("pdf_path", "source_path"):
            if key in clean:
                clean[key] = self._stored_path(clean[key])
        for key in ("year", "citation_count", "pages"):
            if key in clean:
                try:
                    clean[key] = int(clean[key])
                except (TypeError, ValueError):
                    clean.pop(key)
        with self.db.lock:
            existing = self._find_row(clean)
            if existing is None:
                paper_id = str(clean.get("id") or clean.get("arxiv_id") or clean.get("bibcode") or clean.get("doi") or "")
                if not paper_id:
                    raise ValueError("a paper needs an id, an arXiv id, a bibcode or a DOI")
                if clean.get("arxiv_id") and normalize_arxiv(paper_id) == clean["arxiv_id"]:
                    paper_id = clean["arxiv_id"]  # the canonical id carries no 'arXiv:' or version
                clean["id"] = paper_id
                clean.setdefault("added_at", now_iso())
                self.db["papers"].insert(clean)
                paper_id = clean["id"]
            else:
                paper_id = existing["id"]
                clean.pop("id", None)
                clean.pop("added_at", None)
                if clean:
                    self.db["papers"].update(paper_id, clean)
        return self.get_paper(paper_id)  # type: ignore[return-value]

    def _stored_path(self, raw: str | Path) -> str:
        """Paths inside the workspace are stored relative to it, so a moved workspace keeps working."""
        path = Path(raw)
        try:
            return str(path.resolve().relative_to(self.app.workspace.root.resolve()))
        except ValueError:
            return str(path)

    def resolve_file(self, stored: str | None) -> Path | None:
        """The absolute path of a stored pdf_path / source_path."""
        if not stored:
            return None
        path = Path(stored)
        return path if path.is_absolute() else self.app.workspace.root / path

    def _find_row(self, meta: dict[str, Any]) -> dict[str, Any] | None:
        for key in ("id", "arxiv_id", "bibcode", "doi"):
            value = meta.get(key)
            if value:
                row = self.get_paper(str(value))
                if row is not None:
                    return row
        return None

    def get_paper(self, id_or_alias: str) -> dict[str, Any] | None:
        """The paper named by its id, arXiv id (any prefix or version), bibcode or DOI."""
        raw = (id_or_alias or "").strip()
        if not raw:
            return None
        arxiv = normalize_arxiv(raw)
        doi = normalize_doi(raw)
        rows = self.db.query(
            "SELECT * FROM papers WHERE id = ? OR id = ? OR arxiv_id = ? OR bibcode = ? OR lower(doi) = ? "
            "ORDER BY (id = ?) DESC LIMIT 1",
            (raw, arxiv, arxiv, raw, doi, raw),
        )
        return self._decode(rows[0]) if rows else None

    def list_papers(self) -> list[dict[str, Any]]:
        """Every paper, newest first, with how many chunks it has indexed."""
        rows = self.db.query(
            "SELECT p.*, (SELECT count(*) FROM chunks c WHERE c.paper_id = p.id) AS chunks "
            "FROM papers p ORDER BY p.added_at DESC, p.id"
        )
        return [self._decode(row) for row in rows]

    def remove(self, paper_id: str) -> bool:
        """Delete the paper's row, chunks, vectors and its files under papers/ (the command confirms)."""
        paper = self.get_paper(paper_id)
        if paper is None:
            return False
        files = self.paper_files(paper)
        with self.transaction():
            self.db.execute("DELETE FROM chunks WHERE paper_id = ?", (paper["id"],))
            self.db.execute("DELETE FROM papers WHERE id = ?", (paper["id"],))
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

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing: a paper is never left half-indexed or half-removed."""
        with self.db.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

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

    @staticmethod
    def _decode(row: dict[str, Any]) -> dict[str, Any]:
        out = dict(row)
        try:
            out["authors"] = json.loads(out.get("authors") or "[]")
        except json.JSONDecodeError:
            out["authors"] = []
        return out

    # --- facts for citations ---------------------------------------------------------------
    @staticmethod
    def source_entry(paper: dict[str, Any]) -> dict[str, Any]:
        """What /sources lists for a paper the model used."""
        return {key: paper.get(key) for key in ("id", "title", "bibcode", "arxiv_id", "url")}
