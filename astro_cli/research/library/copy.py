"""`astro library migrate --to URL`: copy the library into a group's PostgreSQL server, or back to SQLite.

What is copied: every paper's row (who added it and when), its chunks (the text), its vectors when
both sides keep vectors, and this member's notes of this workspace. Not copied: sessions, tasks,
memory and skills (they stay in the workspace) and the papers' files (the text is in the library;
a member without a file gets it again from arXiv when a tool needs it).

Idempotent and resumable: a paper's row is merged with the target's by the library's own rules (the
same paper under any of its identifiers is one row, and rows whose identifiers disagree are kept
apart and reported), and its chunks are written in one transaction, only when the target holds
none for it. Run it again after an interruption and it goes on where it stopped; run it twice
and the second run copies nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from astro_cli.research.library.papers import LibraryConflict, LibraryCore
from astro_cli.research.library.storage import LibraryStore, LibraryUnavailable
from astro_cli.research.records import Chunk, Paper

Progress = Callable[[int, int, str], None]  # (papers done, papers in all, the paper being copied)
INDEX_FIELDS = ("parsed_at", "parsed_from", "pages", "outline")


class CopyError(LibraryUnavailable):
    """A target astro cannot copy to; one sentence."""


@dataclass
class CopyReport:
    target: str
    papers: int = 0  # rows written or merged
    texts: int = 0  # papers whose chunks were copied
    kept: int = 0  # papers whose text the target already had (theirs stays)
    chunks: int = 0
    vectors: int = 0
    notes: int = 0
    problems: list[str] = field(default_factory=list)
    vectors_note: str | None = None


def open_target(library: LibraryCore, target: str) -> LibraryStore:
    """A store for `postgresql://...` or `sqlite:PATH` (a new file gets astro's whole schema)."""
    from astro_cli.research.library.storage import open_postgres
    from astro_cli.research.library.storage.pg_connect import is_postgres_url, redact_url

    text = target.strip()
    if is_postgres_url(text):
        return open_postgres(text, library.workspace, library.web.keys, library.redactor, library.on_close)
    if text.lower().startswith("sqlite:"):
        from astro_cli.research.library.storage.sqlite_store import SqliteStore
        from astro_cli.store.db import Database

        path = Path(text[len("sqlite:"):]).expanduser()
        if not str(path) or path.is_dir():
            raise CopyError(f"'{text}' names no file; write sqlite:PATH, e.g. sqlite:.astro/astro.db.")
        try:
            database = Database(path.resolve())
        except Exception as exc:  # noqa: BLE001 - sqlite3 raises several kinds; one sentence for each
            raise CopyError(f"The SQLite file {path} cannot be used: {exc}.") from None
        library.on_close(database.close)
        return SqliteStore(database, label=str(path.resolve()))
    raise CopyError(f"'{redact_url(text)}' is neither postgresql://USER@HOST/DATABASE nor sqlite:PATH.")


def copy_library(library: LibraryCore, source: LibraryStore, target: LibraryStore,
                 progress: Progress | None = None) -> CopyReport:
    if source.where == target.where:
        raise CopyError(f"The library is already at {target.where}; name another place to copy it to.")
    report = CopyReport(target.where)
    mine, theirs = library.with_store(source), library.with_store(target)
    papers = mine.list_papers()
    for done, paper in enumerate(papers):
        if progress:
            progress(done, len(papers), paper.id)
        _copy_paper(source, theirs, paper, report)
    if progress:
        progress(len(papers), len(papers), "")
    _copy_notes(library, source, target, report)
    return report


def _copy_paper(source: LibraryStore, theirs: LibraryCore, paper: Paper, report: CopyReport) -> None:
    meta = {k: v for k, v in paper.as_dict().items() if k not in (*INDEX_FIELDS, "chunks", "conflicts")}
    try:
        stored = theirs.upsert(meta)
    except LibraryConflict as exc:
        report.problems.append(f"{paper.id} was not copied: {exc}")
        return
    report.papers += 1
    report.problems += [f"{paper.id} was {text} in {report.target}" for text in stored.conflicts]
    target_id = stored.paper.id
    if not paper.chunks:
        return
    if theirs.store.chunk_count(target_id):
        report.kept += 1
        return
    chunks = source.chunks_of(paper.id)
    fields: dict[str, Any] = {k: getattr(paper, k) for k in INDEX_FIELDS if getattr(paper, k) is not None}
    theirs.store.replace_chunks(target_id, theirs.redacted_chunks(chunks), fields)
    report.texts += 1
    report.chunks += len(chunks)
    report.vectors += _copy_vectors(source, theirs.store, paper.id, target_id, report)


def _copy_vectors(source: LibraryStore, target: LibraryStore, source_id: str, target_id: str,
                  report: CopyReport) -> int:
    vectors = source.vectors_of(source_id)
    if not vectors:
        return 0
    report.vectors_note = report.vectors_note or target.vectors_note()
    if report.vectors_note:
        return 0  # the target keeps no vectors: said once, in the report
    ids = target.chunk_ids(target_id)
    by_model: dict[str, tuple[list[int], list[list[float]]]] = {}
    for ord_, model, vector in vectors:
        if ord_ in ids:
            chunk_ids, values = by_model.setdefault(model, ([], []))
            chunk_ids.append(ids[ord_])
            values.append(vector)
    for model, (chunk_ids, values) in by_model.items():
        target.store_vectors(chunk_ids, values, model)
    return sum(len(ids_) for ids_, _ in by_model.values())


def _copy_notes(library: LibraryCore, source: LibraryStore, target: LibraryStore, report: CopyReport) -> None:
    """This member's notes of this workspace (the files are the truth; each side indexes its own)."""
    scope = library.note_scope
    for row in source.note_rows(scope):
        chunks = [Chunk(r["section"], None, int(r["ord"]), r["text"]) for r in source.note_chunks(int(row["id"]))]
        target.save_note(scope, row["path"], row["title"], row["tags"], row["papers"], row["updated_at"],
                         row["created_at"], chunks)
        report.notes += 1
