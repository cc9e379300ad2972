"""`astro library migrate --to postgresql://... | sqlite:PATH`: copy the library elsewhere.

The source is the library astro uses now (the workspace's SQLite file, or `library.database_url`).
Registered into the `astro library` group by `register(app)`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from astro_cli.bootstrap import UserError, user_errors
from astro_cli.commands.library_context import library_app

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


def migrate(
    to: str = typer.Option(..., "--to", help="postgresql://USER@HOST/DATABASE (the group's server), or "
                           "sqlite:PATH (a local file, e.g. sqlite:.astro/astro.db to copy back)."),
) -> None:
    """Copy papers, their text, vectors and your notes into another library (safe to run again)."""
    from astro_cli.research.library.copy import copy_library, open_target
    from astro_cli.research.library.service import Library
    from astro_cli.research.library.storage import has_library
    from astro_cli.research.library.storage.pg_connect import redact_url

    with user_errors():
        app = library_app()
        if not has_library(app.settings, app.workspace):
            raise UserError("The library is empty: there is nothing to copy.")
        library = Library.of(app)
        source = library.store
        target = open_target(library, to)
        typer.echo(f"Copying the library at {source.where} to {target.where} ...", err=True)
        with _Bar() as progress:
            report = copy_library(library, source, target, progress)
        typer.echo(f"Copied to {redact_url(report.target)}: {report.papers} paper(s), the text of {report.texts} "
                   f"({report.chunks} chunks), {report.vectors} vector(s), {report.notes} note(s).")
        if report.kept:
            typer.echo(f"{report.kept} paper(s) already had their text there; theirs was kept.")
        if report.vectors_note:
            typer.echo(f"note: vectors were not copied: {report.vectors_note}.", err=True)
        for problem in report.problems:
            typer.echo(f"warning: {problem}", err=True)


class _Bar:
    """A progress bar over the papers on stderr when it is a terminal; a line every 10% otherwise."""

    def __enter__(self) -> Callable[[int, int, str], None]:
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self.shown = -1
        if sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("papers"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                     TextColumn("{task.description}"), transient=True)
            self.progress.start()
        return self.update

    def update(self, done: int, total: int, paper: str) -> None:
        if self.progress is not None:
            if self.task is None:
                self.task = self.progress.add_task(paper, total=total)
            self.progress.update(self.task, completed=done, description=paper)
            return
        tenth = done * 10 // max(total, 1)
        if tenth != self.shown and total >= 20:
            self.shown = tenth
            typer.echo(f"{done}/{total} papers", err=True)

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()




def register(group: typer.Typer) -> None:
    group.command("migrate")(migrate)
