"""`astro library reindex [IDS]`: make the vectors the library's papers lack (research/search/reindex.py).

A library made before vectors were on by default (or with another model) gets them here; with a
progress bar over the chunks on a terminal. `--background` is how `library add` and a search
start it detached: no bar, a line for the log. Registered into the `astro library` group.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Optional

import typer

from astro_cli.bootstrap import EXIT_FAILED, UserError, user_errors
from astro_cli.commands.library_context import library_app

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from astro_cli.research.library.papers import LibraryCore
    from astro_cli.research.search.index_lock import IndexLock


def reindex(
    ids: Optional[list[str]] = typer.Argument(None, help="Only these papers (default: every paper without vectors)."),
    background: bool = typer.Option(False, "--background", hidden=True, help="Run quietly (started by astro)."),
    lock_fd: Optional[int] = typer.Option(None, "--lock-fd", hidden=True,
                                          help="The indexer's lock, handed over open by the process that started this."),
) -> None:
    """Make the vectors for searching by meaning that papers lack (the default local model, or library.embedding_model)."""
    from astro_cli.research.library.service import Library
    from astro_cli.research.library.storage import has_library
    from astro_cli.research.search.embedding_choice import embedding_model, missing_default_note
    from astro_cli.research.search.reindex import estimate_seconds, pending
    from astro_cli.research.search.reindex import reindex as run_reindex

    with user_errors():
        app = library_app()
        model = embedding_model(app.settings)
        if model is None:
            note = missing_default_note(app.settings)
            raise UserError(f"No vectors can be made: {note}." if note else
                            "Vectors are off (library.embedding_model is 'off'); search uses keywords alone.")
        if not has_library(app.settings, app.workspace):
            typer.echo("The library is empty: there is nothing to index.")
            return
        library = Library.of(app)
        if background:  # the library's one indexer (index_lock.py): with the lock handed over, or none at all
            held = _background_lock(library, lock_fd)
            if held is None:
                typer.echo("Another indexer of this library is at work; it makes the vectors.")
                return
            report = run_reindex(library, None, None, held)
            typer.echo(f"Made the vectors of {report.papers} paper(s), {report.chunks} chunks ({model}).")
            for problem in report.problems:
                typer.echo(f"warning: {problem}", err=True)
            return
        wanted = None
        if ids:
            wanted = []
            for raw in ids:
                paper = library.get_paper(raw)
                if paper is None:
                    raise UserError(f"Paper '{raw}' is not in the library; `astro library list` shows what is.")
                wanted.append(paper.id)
        todo = [(pid, n) for pid, n in pending(library) if wanted is None or pid in wanted]
        if not todo:
            typer.echo(f"Every paper already has its vectors ({model}).")
            return
        chunks = sum(n for _, n in todo)
        typer.echo(f"Embedding {chunks} chunks of {len(todo)} paper(s) with {model} "
                   f"(~{max(1, round(estimate_seconds(library, chunks)))} s) ...", err=True)
        with _ChunkBar(enabled=True) as progress:
            report = run_reindex(library, wanted, progress)
        if report.note:
            raise UserError(f"No vectors were made: {report.note}.", EXIT_FAILED)
        typer.echo(f"Made the vectors of {report.papers} paper(s), {report.chunks} chunks ({model}).")
        for problem in report.problems:
            typer.echo(f"warning: {problem}", err=True)
        if report.problems and not report.papers:
            raise typer.Exit(EXIT_FAILED)


def _background_lock(library: LibraryCore, fd: int | None) -> IndexLock | None:
    """The lock handed over as `fd`, else taken if free; None when another indexer holds it."""
    from astro_cli.research.search.index_lock import IndexLock

    held = IndexLock.inherited(library, fd) if fd is not None else None
    return held or IndexLock.take(library, wait=False)


class _ChunkBar:
    """A progress bar over the chunks on stderr when it is a terminal; nothing otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.progress: Progress | None = None
        self.task: TaskID | None = None

    def __enter__(self) -> Callable[[int, int, str], None]:
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("chunks"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                     TextColumn("{task.description}"), transient=True)
            self.progress.start()
        return self.update

    def update(self, done: int, total: int, paper: str) -> None:
        if self.progress is None:
            return
        if self.task is None:
            self.task = self.progress.add_task(paper, total=total)
        self.progress.update(self.task, completed=done, total=total, description=paper)

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()


def register(group: typer.Typer) -> None:
    group.command("reindex")(reindex)
