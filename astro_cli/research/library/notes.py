"""Research notes: Markdown files under <workspace>/notes/ with YAML frontmatter, indexed with the library.

The file is the truth (the user can edit it in any editor); the database only indexes it. Each
note's stored stamp is its file's modification time, so `sync_notes` (run before each search)
re-indexes a note edited by hand, indexes a note dropped into the folder and forgets a deleted one
(and asks the index nothing when the folder is as the last sync left it).
In a library a group shares, each member's notes are indexed for everyone to search, and a sync
touches only the notes of this member's workspace (storage.note_scope).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.frontmatter import FrontmatterError, parse_frontmatter
from astro_cli.research.library.papers import now_iso
from astro_cli.research.records import Chunk

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore


class NoteError(Exception):
    """A note that cannot be saved (no title, no content); one sentence."""


@dataclass
class SavedNote:
    path: Path
    relative: str
    created: bool
    chunks: int
    warning: str | None = None


def slugify(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return slug[:60].rstrip("-") or "note"


def _stamp(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).isoformat()


def render_note(title: str, content: str, tags: list[str], papers: list[str], created: str) -> str:
    import yaml

    front = {"title": title, "tags": tags, "papers": papers, "created": created, "updated": now_iso()}
    header = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, default_flow_style=None).strip()
    return f"---\n{header}\n---\n\n{content.strip()}\n"


def read_note(path: Path) -> tuple[dict[str, Any], str]:
    """(frontmatter, body) of a Markdown note; a note without valid frontmatter has an empty one."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        front, body = parse_frontmatter(text)
    except FrontmatterError:
        return {}, text.strip()
    return front, body.strip()


def save_note(library: LibraryCore, title: str, content: str, tags: list[str] | None = None,
              papers: list[str] | None = None) -> SavedNote:
    """Write (or rewrite, when the title exists) a note and index it for rag_search."""
    title = (title or "").strip()
    if not title:
        raise NoteError("a note needs a title.")
    if not (content or "").strip():
        raise NoteError("a note needs content.")
    tags = [str(t).strip() for t in (tags or []) if str(t).strip()]
    # Papers are named by their canonical library id when the library knows them.
    papers = [_canonical(library, str(p)) for p in (papers or []) if str(p).strip()]
    root = library.workspace.root
    notes_dir = library.workspace.notes_dir
    row = library.store.note_titled(title, library.note_scope)
    stored = (root / row["path"]).resolve() if row else None
    if row and stored is not None and stored.is_relative_to(notes_dir.resolve()):
        path, created_at, created = root / row["path"], row["created_at"], False
    else:  # a new note (a row naming a file outside notes/ is data someone wrote: never a place to write)
        slug, n = slugify(title), 1
        path = notes_dir / f"{slug}.md"
        while path.exists() or path.is_symlink():  # never over a file or a link someone left there
            n += 1
            path = notes_dir / f"{slug}-{n}.md"
        created_at, created = now_iso(), True
    # Race-free and confined: a notes/ that is a link out of the workspace is refused, not written through.
    library.confinement.write_text(path, render_note(title, content, tags, papers, created_at), replace=not created)
    note_id, chunks = index_note(library, path)
    warning = _embed_note(library, note_id)
    return SavedNote(path, _relative(library, path), created, chunks, warning)


def _canonical(library: LibraryCore, name: str) -> str:
    """A paper a note cites, by its canonical library id when the library knows it."""
    paper = library.get_paper(name)
    return paper.id if paper is not None else name


def _relative(library: LibraryCore, path: Path) -> str:
    return path.relative_to(library.workspace.root).as_posix()


def _inside(library: LibraryCore, path: Path) -> bool:
    """A note that is a link to a file outside the workspace is not indexed (it would leak that file)."""
    return path.resolve().is_relative_to(library.workspace.root.resolve())


def index_note(library: LibraryCore, path: Path) -> tuple[int, int]:
    """(note id, chunks) after (re)indexing one note file, in one transaction."""
    from astro_cli.research.library.parse import split_text

    front, body = read_note(path)
    title = str(front.get("title") or _first_heading(body) or path.stem.replace("-", " "))
    relative = _relative(library, path)
    size = library.settings.typed["library.chunk_chars"]  # at least 200: config_schema declares it
    pieces = split_text(body, size) or [title]
    note_id = library.store.save_note(
        library.note_scope, relative, title, json.dumps(_as_list(front.get("tags"))),
        json.dumps(_as_list(front.get("papers"))), _stamp(path), str(front.get("created") or now_iso()),
        [Chunk(title, None, n, library.redactor.redact(piece)) for n, piece in enumerate(pieces)],
    )
    return note_id, len(pieces)


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def _first_heading(body: str) -> str | None:
    match = re.search(r"^#+\s+(.+)$", body, re.MULTILINE)
    return match.group(1).strip() if match else None


def _embed_note(library: LibraryCore, note_id: int) -> str | None:
    if not library.embedding_model:
        return None
    from astro_cli.research.search.embed import embed_paper
    from astro_cli.research.search.vectors import EmbeddingError

    try:
        embed_paper(library, note_id=note_id)
    except EmbeddingError as exc:
        return f"the note is searchable by its words, but no vector was made: {exc}"
    return None


def sync_notes(library: LibraryCore) -> int:
    """Bring the index in line with the notes folder; returns how many notes changed.

    The folder's files and their modification times are compared with what the last sync of this
    library saw: when nothing changed (the usual case, a search after a search), the index is not
    asked at all."""
    notes_dir = library.workspace.notes_dir
    found = sorted(notes_dir.rglob("*.md")) if notes_dir.is_dir() else []
    files = {_relative(library, p): p for p in found if p.is_file() and _inside(library, p)}
    seen = {relative: path.stat().st_mtime_ns for relative, path in files.items()}
    if seen == library.notes_seen:
        return 0
    changed = _sync(library, files)
    library.notes_seen = seen
    return changed


def _sync(library: LibraryCore, files: dict[str, Path]) -> int:
    store = library.store
    stored = {row["path"]: row for row in store.notes(library.note_scope)}
    changed = 0
    for relative, path in files.items():
        row = stored.get(relative)
        if row is None or row["updated_at"] != _stamp(path):
            note_id, _ = index_note(library, path)
            _embed_note(library, note_id)
            changed += 1
    gone = [int(row["id"]) for rel, row in stored.items() if rel not in files]
    if gone:
        store.delete_notes(gone)
        changed += len(gone)
    return changed
