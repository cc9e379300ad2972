"""Vectors for the papers that lack them: `astro library reindex`, and the same work in the background.

Embedding costs far more than keyword indexing (about 0.35 s a chunk for the local MiniLM on one
busy core, so 15-20 s for a paper), so `library add` indexes the words at once and leaves the
vectors to a detached `astro library reindex --background` process; a search that finds papers
without vectors starts one too (lazily, at most every few minutes). One lock file per workspace
keeps two of them from embedding the same chunks: the second waits, then finds what is left.
Until a paper has its vectors it ranks by BM25 alone, which search says.
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from astro_cli.research.search.vectors import EmbeddingError
from astro_cli.security import writer
from astro_cli.security.children import python_child, workspace_environment
from astro_cli.security.writer import Place

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore

log = logging.getLogger(__name__)

LOCAL_SECONDS_PER_CHUNK = 0.2  # docs/library.md: the local model on 2 shared cores, whole chunks (0.1 s quiet, stop 40)
REMOTE_SECONDS_PER_CHUNK = 0.05  # an API embeds a batch of 64 in a few seconds
LAZY_RETRY_SECONDS = 300.0  # a search starts a background reindex at most this often
Progress = Callable[[int, int, str], None]  # (chunks done, chunks in all, paper id)


@dataclass
class ReindexReport:
    model: str | None
    papers: int = 0
    chunks: int = 0
    problems: list[str] = field(default_factory=list)
    note: str | None = None  # why nothing could be done (vectors off, a server without pgvector)


def pending(library: LibraryCore) -> list[tuple[str, int]]:
    """(paper id, chunks) of the papers without vectors of the model in use; empty when vectors are off."""
    from astro_cli.research.library.storage import has_library

    model = library.embedding_model
    if not model or not has_library(library.settings, library.workspace):
        return []
    return library.store.papers_without_vectors(model)


def estimate_seconds(library: LibraryCore, chunks: int) -> float:
    from astro_cli.research.search.local_embed import is_local

    per_chunk = LOCAL_SECONDS_PER_CHUNK if is_local(library.embedding_model) else REMOTE_SECONDS_PER_CHUNK
    return chunks * per_chunk


def reindex(library: LibraryCore, papers: list[str] | None = None, progress: Progress | None = None) -> ReindexReport:
    """Embed every paper (or the given ones) that lacks vectors of the model in use."""
    from astro_cli.research.search.embed import embed_paper

    model = library.embedding_model
    report = ReindexReport(model)
    if not model:
        report.note = "vectors are off (library.embedding_model), so there is nothing to make"
        return report
    note = library.store.vectors_note()
    if note:
        report.note = note
        return report
    with _workspace_lock(library):
        failed: set[str] = set()
        while True:  # papers added while this runs are picked up before it ends
            todo = [(pid, n) for pid, n in pending(library) if pid not in failed and (papers is None or pid in papers)]
            if not todo:
                return report
            total = report.chunks + sum(n for _, n in todo)
            for paper_id, chunks in todo:
                if progress:
                    progress(report.chunks, total, paper_id)
                try:
                    embed_paper(library, paper_id)
                except EmbeddingError as exc:
                    failed.add(paper_id)
                    report.problems.append(f"{paper_id}: {exc}")
                    if len(failed) >= 3 and not report.papers:
                        return report  # the model itself is broken: no use trying every paper
                    continue
                report.papers += 1
                report.chunks += chunks
            if progress:
                progress(report.chunks, report.chunks, "")


@contextmanager
def _workspace_lock(library: LibraryCore) -> Iterator[None]:
    """One reindexer per workspace at a time; the next one waits for it."""
    import fcntl

    path = _lock_path(library)
    with writer.open_append(Place(path.parent, (path.name,))) as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _lock_path(library: LibraryCore) -> Path:
    return library.workspace.astro_dir / "reindex.lock"


def running(library: LibraryCore) -> bool:
    """Is a reindex of this workspace under way (its lock held by another process)?"""
    import fcntl

    path = _lock_path(library)
    if not path.exists():
        return False
    with writer.open_append(Place(path.parent, (path.name,))) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


def start_background(library: LibraryCore) -> bool:
    """Start a detached `astro library reindex --background` for this workspace; False if it could not start.
    Its output goes to .astro/reindex.log (read it when vectors do not come)."""
    astro_dir = library.workspace.astro_dir
    try:
        astro_dir.mkdir(parents=True, exist_ok=True)
        writer.write_file(astro_dir / "reindex.started", f"{time.time()}\n", root=astro_dir)
        with writer.open_append(Place(astro_dir, ("reindex.log",))) as out:
            child = python_child("astro_cli", ["library", "reindex", "--background"], _child_env(library))
            subprocess.Popen(  # noqa: S603 - our own interpreter and module, fixed arguments
                child.argv, cwd=child.cwd, env=child.env, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                start_new_session=True, close_fds=True,
            )
    except OSError as exc:
        log.debug("could not start a background reindex: %s", exc)
        return False
    return True


# The settings that decide which library and which model: the child must use the ones this process
# uses, even when they came from a flag or a test's AppContext rather than a file it would read.
_Carried = Literal["library.embedding_model", "library.embedding_api_base", "library.database_url",
                   "library.files_path"]
_CARRIED: tuple[_Carried, ...] = ("library.embedding_model", "library.embedding_api_base", "library.database_url",
                                  "library.files_path")


def _child_env(library: LibraryCore) -> dict[str, str]:
    from astro_cli.config_schema import SCHEMA

    # It runs from `/` (security/children.py): the workspace is named, not taken from the current folder.
    env = {**workspace_environment(os.environ, library.workspace.root), "ASTRO_WORKER": "0",
           "ASTRO_HOME": str(library.home.root)}
    for name in _CARRIED:
        value = library.embedding_model if name == "library.embedding_model" else library.settings.typed[name]
        if value:
            env[SCHEMA[name].env_var] = str(value)
    return env


def start_lazily(library: LibraryCore) -> bool:
    """A search's nudge: start a background reindex unless one runs or one started a little while ago."""
    stamp = library.workspace.astro_dir / "reindex.started"
    try:
        if stamp.exists() and time.time() - stamp.stat().st_mtime < LAZY_RETRY_SECONDS:
            return False
    except OSError:
        return False
    if running(library):
        return False
    return start_background(library)
