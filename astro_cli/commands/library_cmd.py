"""`astro library search|list|remove` (and `add`, `export`): the local paper library, without a model."""

from __future__ import annotations

from typing import Any, Optional

import typer

from astro_cli.bootstrap import UserError, user_errors
from astro_cli.commands.defaults import command_group
from astro_cli.commands.library_context import library_app
from astro_cli.security.visible import visible, visible_json

app = command_group("list")  # `astro library` alone lists the papers


def has_library(ctx: Any) -> bool:
    from astro_cli.research.library.storage import has_library as exists

    return exists(ctx.settings, ctx.workspace)


def _library(ctx: Any) -> Any:
    from astro_cli.research.library.service import Library

    return Library.of(ctx)


@app.command("search")
def search(
    question: Optional[str] = typer.Argument(None, help="Words or a question; \"quoted phrases\" must match exactly."),
    query: Optional[list[str]] = typer.Option(None, "--query", "-q", help="Another phrasing of the question "
                                              "(repeatable, four phrasings at most); the rankings are fused."),
    k: int = typer.Option(8, "--k", "-k", help="How many passages to return."),
    paper: Optional[list[str]] = typer.Option(None, "--paper", "-p", help="Only this paper (repeatable)."),
    include_references: bool = typer.Option(False, "--include-references", help="Also search reference lists "
                                            "and acknowledgments."),
    full: bool = typer.Option(False, "--full", help="Show whole passages, not the part around the matches."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    for_model: bool = typer.Option(False, "--model-view", help="Print exactly what rag_search gives the model."),
) -> None:
    """Search the indexed papers and notes (what rag_search does), printed for a person."""
    from astro_cli.research.search.passages import SearchError, format_hits

    with user_errors():
        phrasings = [p for p in [question or "", *(query or [])] if p.strip()]
        if not phrasings:
            raise UserError("Give a question, e.g. astro library search \"acceptance fraction\" (or -q PHRASING).")
        ctx = library_app()
        if not has_library(ctx) and not ctx.workspace.notes_dir.is_dir():
            raise UserError("The library is empty. Add a paper with `astro library add ARXIV_ID` (or ask astro to).")
        _check_papers(ctx, paper or [])
        try:
            result = _library(ctx).search(phrasings, k=k, papers=paper or None, include_references=include_references)
        except SearchError as exc:
            raise UserError(str(exc)) from None
        _say_missing_model(ctx)
        if as_json:
            typer.echo(visible_json(result.as_dict(), indent=2))
        elif for_model:
            typer.echo(visible(format_hits(phrasings, result)))
        else:
            from rich.console import Console

            from astro_cli.ui.passages import print_hits

            print_hits(Console(highlight=False), result, full=full)


def _say_missing_model(ctx: Any) -> None:
    """Once per user: the default embedding model is not installed, so search is keywords alone."""
    from astro_cli.research.search.embedding_choice import missing_default_note_once

    note = missing_default_note_once(ctx.settings, ctx.home.root)
    if note:
        typer.echo(f"note: {note}.", err=True)


def _check_papers(ctx: Any, papers: list[str]) -> None:
    library = _library(ctx)
    for name in papers:
        if library.get_paper(name) is None:
            raise UserError(f"Paper '{name}' is not in the library; `astro library list` shows what is, "
                            f"`astro library add {name}` adds it.")


@app.command("list")
def list_papers(
    by: Optional[str] = typer.Option(None, "--by", help="Only the papers this member added (a shared library)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List the papers in the library, newest first (who added each, in a library the group shares)."""
    with user_errors():
        ctx = library_app()
        library = _library(ctx) if has_library(ctx) else None
        rows = library.list_papers(added_by=by) if library is not None else []
        if as_json:
            typer.echo(visible_json([row.as_dict() for row in rows], indent=2, default=str))
            return
        if not rows:
            if by and library is not None:
                members = ", ".join(f"{m['added_by']} ({m['papers']})" for m in library.store.members() if m["added_by"])
                typer.echo(f"No paper was added by {by}." + (f" Papers were added by: {members}." if members else ""))
            else:
                typer.echo("The library is empty. Add a paper with `astro library add ARXIV_ID` (or ask astro to).")
            return
        from rich.console import Console
        from rich.table import Table

        from astro_cli.security.visible import markup_safe, rich_text

        shared = library is not None and library.store.shared
        table = Table(title_justify="left")
        columns = ["id", "year", "first author", "title", "chunks", "parsed"] + (["added by"] if shared else [])
        for column in columns:
            table.add_column(column, no_wrap=column not in ("title", "first author"))
        for row in rows:
            authors = row.get("authors") or []
            cells = [
                row["id"], str(row.get("year") or ""), (authors[0] if authors else "") + (" et al." if len(authors) > 1 else ""),
                _title_with_mark(row), str(row.get("chunks") or 0),
                (row.get("parsed_from") or "") if row.get("parsed_at") else "no",
            ]
            if shared:
                cells.append(f"{row.get('added_by') or '?'}, {str(row.get('added_at') or '')[:10]}")
            table.add_row(*(rich_text(cell, tabs=True) for cell in cells))  # rows are data others write
        console = Console()
        if shared and library is not None:
            console.print(markup_safe(f"The group library at {library.store.where}: {len(rows)} paper(s)"
                                 + (f" added by {by}" if by else "")), highlight=False)
        console.print(table)
        for conflict in _library(ctx).conflicts():
            console.print(
                f"[yellow]conflict:[/] {markup_safe(conflict['a'])} and {markup_safe(conflict['b'])} have the "
                f"same {conflict['kind']} {markup_safe(conflict['value'])}; they are kept apart "
                "(`astro library check` tells more).",
                markup=True, highlight=False,
            )


@app.command("remove")
def remove(
    paper_id: str = typer.Argument(..., help="Paper id, arXiv id, bibcode or DOI."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
) -> None:
    """Remove a paper: its row, its indexed text and its files under papers/."""
    with user_errors():
        ctx = library_app()
        library = _library(ctx)
        paper = library.get_paper(paper_id) if has_library(ctx) else None
        if paper is None:
            raise UserError(f"Paper '{paper_id}' is not in the library; `astro library list` shows what is.")
        files = library.paper_files(paper)
        what = visible(f"{paper['id']} ({paper.get('title') or 'untitled'})")
        if files:
            what += f" and {len(files)} file(s) under papers/"
        if library.store.shared:
            what += f" from the group library at {library.store.where}, for every member"
        if not yes and not _confirm(f"Remove {what}?"):
            typer.echo("Nothing removed.")
            raise typer.Exit(1)
        library.remove(paper["id"])
        typer.echo(visible(f"Removed {what}."))


@app.command("check")
def check(
    dry_run: bool = typer.Option(False, "--dry-run", help="Only report; repair nothing."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Find rows whose identifiers disagree, chunks without a paper, files without a row; repair what is safe."""
    from astro_cli.research.library.doctor import check_library

    with user_errors():
        ctx = library_app()
        if not has_library(ctx):
            typer.echo("The library is empty: nothing to check.")
            return
        report = check_library(_library(ctx), repair=not dry_run)
        if as_json:
            typer.echo(visible_json({"papers": report.papers, "chunks": report.chunks,
                                     "findings": [f.as_dict() for f in report.findings]}, indent=2))
        else:
            from rich.console import Console

            from astro_cli.security.visible import markup_safe

            console = Console(highlight=False, soft_wrap=True)  # a finding is one line, whole, when piped
            console.print(f"{report.papers} paper(s), {report.chunks} chunk(s) checked.")
            styles = {"fixed": "green", "needs-you": "yellow", "note": "dim"}
            for finding in report.findings:
                console.print(f"[{styles[finding.kind]}]{finding.kind}:[/] {markup_safe(finding.text)}", markup=True)
            if not report.findings:
                console.print("[green]Everything is in order.[/]", markup=True)
        if report.needs_you:
            raise typer.Exit(1)


app.command("doctor", help="Same as `astro library check`.")(check)


@app.command("merge")
def merge(
    keep: str = typer.Argument(..., metavar="A", help="The row to keep (its id stays)."),
    drop: str = typer.Argument(..., metavar="B", help="The row folded into A, then removed."),
) -> None:
    """Make two rows of one paper one: A keeps its id and gains what only B had (ids, year, files, text)."""
    from astro_cli.research.library.duplicates import MergeRefused, merge_papers

    with user_errors():
        ctx = library_app()
        if not has_library(ctx):
            raise UserError("The library is empty: nothing to merge.")
        try:
            merged = merge_papers(_library(ctx), keep, drop)
        except MergeRefused as exc:
            raise UserError(str(exc)) from None
        ids = ", ".join(f"{label} {getattr(merged, k)}" for k, label in (("arxiv_id", "arXiv"), ("doi", "DOI"),
                                                              ("bibcode", "bibcode")) if getattr(merged, k))
        typer.echo(visible(f"Merged {drop} into {merged.id}: {merged.title or 'untitled'}"
                           + (f" ({ids})" if ids else "") + "."))


def _confirm(question: str) -> bool:
    """typer.confirm, with the end of input (Ctrl-D, a closed pipe) meaning no instead of 'Aborted!'."""
    try:
        return typer.confirm(question, default=False)
    except typer.Abort:
        typer.echo("")
        return False


# `add` and `export` reach the network; they live in library_net_cmd.py (the research tools' half).
from astro_cli.commands import library_migrate_cmd, library_net_cmd, library_reindex_cmd  # noqa: E402

library_net_cmd.register(app)
library_migrate_cmd.register(app)
library_reindex_cmd.register(app)


def _title_with_mark(row: dict[str, Any]) -> str:
    """The title, with Crossref's notice (RETRACTED 2009) after it when the paper has one."""
    from astro_cli.research.sources.remote_search import update_mark

    mark = update_mark(row)
    return (row.get("title") or "") + (f" ({mark.upper()})" if mark else "")
