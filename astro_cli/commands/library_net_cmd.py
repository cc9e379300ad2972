"""`astro library add ID` and `astro library export --bibtex [IDS]`: the library's network half.

`add` is what the download_paper tool does, with a progress bar on a terminal, and then indexes
the paper (parse_paper) so `astro library search` finds it at once; given a local file (a PDF, an
e-print tarball or a .tex) it stores that instead (research/library/local_add.py). `export` prints BibTeX on
stdout. Both are registered into the `astro library` group by `register(app)`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

import typer

from astro_cli.bootstrap import EXIT_FAILED, UserError, user_errors
from astro_cli.commands.library_context import library_app
from astro_cli.security.visible import visible

if TYPE_CHECKING:
    from pathlib import Path

    from rich.console import Console
    from rich.progress import Progress, TaskID

    from astro_cli.app import AppContext


def add(
    paper_id: str = typer.Argument(..., help="arXiv id (1001.0012, astro-ph/0601001), ADS bibcode or DOI; or a "
                                   "local file: ./paper.pdf, ./source.tar.gz, ./main.tex, ./paper.md (OCR Markdown)."),
    source: bool = typer.Option(True, "--source/--no-source", help="Also fetch the LaTeX source when arXiv has it."),
    parse: bool = typer.Option(True, "--parse/--no-parse", help="Index the text right away (parse_paper)."),
    title: Optional[str] = typer.Option(None, "--title", help="A local file's title (else read from it)."),
    author: Optional[list[str]] = typer.Option(None, "--author", help="A local file's author (repeatable)."),
    year: Optional[int] = typer.Option(None, "--year", help="A local file's year."),
    arxiv_id: Optional[str] = typer.Option(None, "--arxiv", help="A local file's arXiv id."),
    doi: Optional[str] = typer.Option(None, "--doi", help="A local file's DOI."),
    bibcode: Optional[str] = typer.Option(None, "--bibcode", help="A local file's ADS bibcode."),
) -> None:
    """Add a paper to the library, then index it: downloaded from arXiv (PDF and LaTeX source), or a local file."""
    from rich.console import Console

    from astro_cli.research.library.local_add import looks_like_path

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    given = {"title": title, "authors": author or None, "year": year, "arxiv_id": arxiv_id, "doi": doi,
             "bibcode": bibcode}
    with user_errors():
        if looks_like_path(paper_id):
            _add_local(paper_id, given, parse, err)
            return
        if any(v for v in given.values()):
            raise UserError("--title, --author, --year, --arxiv, --doi and --bibcode describe a local file; "
                            "a downloaded paper takes its metadata from arXiv and ADS.")
        _add_download(paper_id, source, parse, err)


def _add_download(paper_id: str, source: bool, parse: bool, err: Console) -> None:
    from astro_cli.research.library.service import Library
    from astro_cli.research.sources.http import ServiceError

    app = library_app()
    library = Library.of(app)
    with _progress_bar() as progress:
        try:
            result = library.add(paper_id, with_source=source, progress=progress,
                              on_wait=lambda text: err.print(visible(f"note: {text}"), markup=False))
        except ServiceError as exc:
            raise UserError(str(exc), EXIT_FAILED) from None
    paper = result.paper
    where = _relative(app, result.pdf)
    verb = "is already in the library" if result.already else "added"
    typer.echo(visible(f"{paper.id} {verb}: {paper.title or 'untitled'} ({where})"))
    if result.source is not None:
        typer.echo(f"LaTeX source: {_relative(app, result.source)}")
    for note in result.notes:
        err.print(visible(note if note.startswith("warning:") else f"note: {note}"), markup=False)
    if parse and not paper.parsed_at:
        _index(library, paper, err)  # the stored paper itself, not its id to read again


def _add_local(raw: str, given: dict[str, Any], parse: bool, err: Console) -> None:
    from pathlib import Path

    from astro_cli.research.library.local_add import add_local
    from astro_cli.research.library.service import Library
    from astro_cli.research.text.file_metadata import LocalFileError

    app = library_app()
    library = Library.of(app)
    try:
        added = add_local(library, Path(raw), given)
    except LocalFileError as exc:
        raise UserError(f"{exc}.", EXIT_FAILED) from None
    paper = added.paper
    authors = paper.authors
    who = (f" ({authors[0]}{' et al.' if len(authors) > 1 else ''}{', ' + str(paper.year) if paper.year else ''})"
           if authors else "")  # a file that names no author
    verb = "added" if added.created else "updated (already in the library)"
    typer.echo(visible(f"{paper.id} {verb} from {raw}: {paper.title or 'untitled'}{who if authors else ''}"))
    typer.echo(f"Stored as {_relative(app, added.stored)}; correct the title or authors with --title / --author.")
    from astro_cli.research.sources.remote_search import update_mark

    mark = update_mark({"biblio": paper.biblio})
    if mark:  # Crossref's notice (issue 43): a retracted paper must not be read as a sound one
        err.print(visible(f"warning: Crossref marks {paper.doi} {mark}."), markup=False)
    if not paper.year:
        paper = _asked_year(library, paper)
    missing = [flag for flag, key in (("--year", "year"), ("--author", "authors")) if not getattr(paper, key)]
    if missing:  # a citation needs them: say which flag completes the row (adding the file again updates it)
        err.print(f"warning: no {' or '.join(m.removeprefix('--') for m in missing)} could be read from {raw}; "
                  f"`astro library add {raw} {' '.join(m + ' ...' for m in missing)}` completes the row "
                  "(BibTeX needs them).", markup=False)
    if parse:
        _index(library, paper, err, force=True)


def _asked_year(library: Any, paper: Any) -> Any:
    """At a terminal, ask for the year the file did not give (Enter skips); the paper as now stored."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return paper
    try:
        answer = typer.prompt("The file gives no year; which year is it? (Enter to skip)", default="",
                              show_default=False).strip()
    except (typer.Abort, EOFError):
        return paper
    if not re.fullmatch(r"(19|20)\d\d", answer):
        return paper
    return library.upsert({"id": paper.id, "year": int(answer)}).paper


def _index(library: Any, paper: Any, err: Console, force: bool = False) -> None:
    """Index the new paper; a failure here leaves the stored paper in place and says how to retry."""
    from astro_cli.research.library.parse import ParseError
    from astro_cli.research.search.embedding_choice import missing_default_note_once

    try:
        report = library.parse(paper, force=force, vectors="background")
    except ParseError as exc:
        err.print(visible(f"warning: the paper is stored but was not indexed: {exc}"), markup=False)
        return
    origin = report.origin.removeprefix("the ") or report.parsed_from
    if report.vectors_in is not None:
        typer.echo(f"Indexed {report.chunks} chunks from the {origin} for keywords now; their meanings (vectors) "
                   f"follow in the background in ~{max(1, round(report.vectors_in))} s.")
    else:
        typer.echo(f"Indexed {report.chunks} chunks from the {origin}.")
    if report.warning:
        err.print(visible(f"note: {report.warning}."), markup=False)
    note = missing_default_note_once(library.settings, library.home.root)
    if note:
        err.print(f"note: {note}.", markup=False)


def _relative(app: AppContext, path: Path) -> str:
    try:
        return str(path.relative_to(app.workspace.root))
    except ValueError:
        return str(path)


class _progress_bar:  # noqa: N801 - used as a context manager like a function
    """A rich progress bar on stderr when it is a terminal; a no-op callback otherwise."""

    def __enter__(self) -> Callable[[str, int, int | None], None] | None:
        if not sys.stderr.isatty():
            return None
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

        self.progress: Progress = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                                 TransferSpeedColumn(), transient=True)
        self.progress.start()
        self.tasks: dict[str, TaskID] = {}

        def update(label: str, done: int, total: int | None) -> None:
            task = self.tasks.get(label)
            if task is None:
                task = self.tasks[label] = self.progress.add_task(label, total=total)
            self.progress.update(task, completed=done, total=total)

        return update

    def __exit__(self, *exc: object) -> None:
        if hasattr(self, "progress"):
            self.progress.stop()


def export(
    ids: Optional[list[str]] = typer.Argument(None, help="Papers to export (default: the whole library)."),
    bibtex: bool = typer.Option(True, "--bibtex", help="BibTeX, the default (and the only format so far)."),
) -> None:
    """Print BibTeX for library papers: NASA ADS's export with a token, else built from arXiv metadata."""
    from rich.console import Console

    from astro_cli.research.bibtex.export import export as export_bibtex
    from astro_cli.research.library.service import Library

    with user_errors():
        app = library_app()
        from astro_cli.research.library.storage import has_library

        if not has_library(app.settings, app.workspace):
            raise UserError("The library is empty; add papers with `astro library add ID`.", EXIT_FAILED)
        library = Library.of(app)
        if ids:
            papers = []
            for raw in ids:
                paper = library.get_paper(raw)
                if paper is None:
                    raise UserError(f"Paper '{raw}' is not in the library; `astro library list` shows what is.")
                papers.append(paper)
        else:
            papers = library.list_papers()
        if not papers:
            raise UserError("The library is empty; add papers with `astro library add ID`.", EXIT_FAILED)
        text, notes = export_bibtex(library, papers)
        err = Console(stderr=True, highlight=False, soft_wrap=True)
        for note in notes:
            err.print(visible(f"note: {note}"), markup=False)
        sys.stdout.write(visible(text))




def register(group: typer.Typer) -> None:
    """Add `add` and `export` to the `astro library` group."""
    group.command("add")(add)
    group.command("export")(export)
