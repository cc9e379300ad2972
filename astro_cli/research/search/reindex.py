"""Vectors for the papers that lack them: `astro library reindex`, and the same work in the background.

Embedding costs far more than keyword indexing (about 0.35 s a chunk for the local MiniLM on one
busy core, so 15-20 s for a paper), so `library add` indexes the words at once and leaves the
vectors to a detached `astro library reindex --background` process; a search that finds papers
without vectors starts one too. The papers without vectors are the queue and one indexer per
library drains it (index_lock.py): an add while it runs starts nothing, the indexer takes the new
paper before it ends; a killed indexer is replaced by the next add or search.
Until a paper has its vectors it ranks by BM25 alone, which search says.
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from astro_cli.research.search.index_lock import IndexLock
from astro_cli.research.search.index_lock import running as lock_running
from astro_cli.research.search.vectors import EmbeddingError
from astro_cli.security import writer
from astro_cli.security.children import python_child, workspace_environment
from astro_cli.security.writer import Place

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore

log = logging.getLogger(__name__)

MEASURED_CHUNKS = 8  # fewer chunks than this measure the model's loading more than its speed
REMOTE_SECONDS_PER_CHUNK = 0.05  # an API embeds a batch of 64 in a few seconds
LAZY_RETRY_SECONDS = 300.0  # after an indexer ended leaving papers without vectors, a search retries this late
STARTED, FINISHED = "reindex.started", "reindex.finished"  # stamps: when the last indexer started, ended
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
    """Seconds until `chunks` chunks have their vectors: for the local model, from the CPU per chunk
    this machine measured in earlier runs, its cores and its load now (embed_speed.py)."""
    from astro_cli.research.search.embed_speed import measured, wall_seconds
    from astro_cli.research.search.local_embed import is_local

    model = library.embedding_model
    if not model or not is_local(model):
        return chunks * REMOTE_SECONDS_PER_CHUNK
    return wall_seconds(measured(library.home.root, model, os.cpu_count() or 1), chunks)


def reindex(library: LibraryCore, papers: list[str] | None = None, progress: Progress | None = None,
            held: IndexLock | None = None) -> ReindexReport:
    """Embed every paper (or the given ones) that lacks vectors of the model in use, as the library's
    one indexer: with the lock `held` (handed over by start_background) or once the lock is free."""
    model = library.embedding_model
    report = ReindexReport(model)
    report.note = ("vectors are off (library.embedding_model), so there is nothing to make" if not model
                   else library.store.vectors_note())
    if report.note:
        if held:
            held.release()
        return report
    from astro_cli.research.search.embed_speed import cpu_seconds

    startup = cpu_seconds()  # what starting this process cost: a fresh indexer pays it again
    lock = held or IndexLock.take(library, wait=True)
    failed: set[str] = set()
    while lock is not None:
        try:
            broken = _drain(library, papers, progress, report, failed, startup)
        finally:
            lock.release()
        # An add that found the lock held left its paper to this process: look again now that it is free.
        left = [pid for pid, _ in pending(library) if pid not in failed]
        if broken or not left:
            break
        if papers is not None:  # a reindex of named papers hands the rest to the library's indexer
            start_background(library)
            break
        lock = IndexLock.take(library, wait=False)  # None: another indexer took it and will see them
    _stamp(library, FINISHED)  # an end of its own, not a kill: what is left failed (start_lazily)
    return report


def _drain(library: LibraryCore, papers: list[str] | None, progress: Progress | None, report: ReindexReport,
           failed: set[str], startup: float) -> bool:
    """Embed until no wanted paper is pending (papers added meanwhile too); True when the model itself is broken."""
    from astro_cli.research.search.embed import embed_paper
    from astro_cli.research.search.embed_speed import cpu_seconds

    before, done = cpu_seconds(), report.chunks
    try:
        return _drain_queue(library, papers, progress, report, failed, embed_paper)
    finally:
        _keep_speed(library, report.chunks - done, cpu_seconds() - before, startup)


def _keep_speed(library: LibraryCore, chunks: int, cpu: float, startup: float) -> None:
    """Keep this run's CPU per chunk for the next estimate (the local model's: an API's cost is not ours)."""
    from astro_cli.research.search.embed_speed import record
    from astro_cli.research.search.local_embed import is_local

    model = library.embedding_model
    if model and is_local(model) and chunks >= MEASURED_CHUNKS:
        record(library.home.root, model, chunks, cpu, startup)


def _drain_queue(library: LibraryCore, papers: list[str] | None, progress: Progress | None, report: ReindexReport,
                 failed: set[str], embed_paper: Callable[..., int]) -> bool:
    while True:
        todo = [(pid, n) for pid, n in pending(library) if pid not in failed and (papers is None or pid in papers)]
        if not todo:
            return False
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
                    return True  # no use trying every paper
                continue
            report.papers += 1
            report.chunks += chunks
        if progress:
            progress(report.chunks, report.chunks, "")


def running(library: LibraryCore) -> bool:
    """Is this library's indexer at work? (index_lock.py)"""
    return lock_running(library)


def start_background(library: LibraryCore) -> bool:
    """Make sure the library's indexer runs: start a detached `astro library reindex --background`
    holding the lock, unless one holds it already (it takes the new papers before it ends).
    False if it could not start. Its output goes to .astro/reindex.log (read it when vectors do not come)."""
    astro_dir = library.workspace.astro_dir
    try:
        lock = IndexLock.take(library, wait=False)
    except OSError as exc:
        log.debug("could not open the indexer's lock: %s", exc)
        return False
    if lock is None:
        return True
    try:
        _stamp(library, STARTED)
        with writer.open_append(Place(astro_dir, ("reindex.log",))) as out:
            child = python_child("astro_cli", ["library", "reindex", "--background", "--lock-fd", str(lock.fd)],
                                 _child_env(library))
            started = subprocess.Popen(  # noqa: S603 - our own interpreter and module, fixed arguments
                child.argv, cwd=child.cwd, env=child.env, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                start_new_session=True, close_fds=True, pass_fds=(lock.fd,),
            )
    except OSError as exc:
        log.debug("could not start a background reindex: %s", exc)
        lock.release()
        return False
    lock.mark(started.pid)
    lock.close()  # the child's copy of the open file keeps the lock
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
    """A search's nudge: make sure the indexer runs, unless the last one ended on its own a little
    while ago and left these papers (they failed: trying again at every search would not help).
    An indexer that died (killed) wrote no end, so the next search replaces it."""
    started, finished = _stamp_time(library, STARTED), _stamp_time(library, FINISHED)
    if finished is not None and (started is None or finished >= started) and time.time() - finished < LAZY_RETRY_SECONDS:
        return False
    return start_background(library)


def _stamp(library: LibraryCore, name: str) -> None:
    astro_dir = library.workspace.astro_dir
    try:
        writer.write_file(astro_dir / name, f"{time.time()}\n", root=astro_dir)
    except OSError as exc:
        log.debug("could not write %s: %s", name, exc)


def _stamp_time(library: LibraryCore, name: str) -> float | None:
    try:
        return float((library.workspace.astro_dir / name).read_text().strip())
    except (OSError, ValueError):
        return None
