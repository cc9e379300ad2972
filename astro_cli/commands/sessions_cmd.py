"""`astro sessions list|show|export`: the stored conversations of this workspace, without a model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from astro_cli.bootstrap import UserError, build_app, user_errors
from astro_cli.commands.defaults import command_group
from astro_cli.security.visible import visible, visible_json

if TYPE_CHECKING:
    from astro_cli.app import AppContext

app = command_group("list")  # `astro sessions` alone: `astro sessions list`


def _session(ctx: AppContext, session_id: str) -> dict[str, Any]:
    row = ctx.sessions.get(session_id)
    if row is None:
        raise UserError(ctx.sessions.not_found(session_id))
    return row


@app.command("list")
def list_sessions(
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    limit: int = typer.Option(30, "--limit", "-n", help="How many sessions to show."),
    include_failed: bool = typer.Option(
        False, "--all", "-a", help="Also list sessions that hold only questions the model provider failed on."
    ),
    query: Optional[str] = typer.Option(None, "--query", "-q", help="Only sessions whose questions or answers "
                                        "contain this text (as `llm logs -q`)."),
) -> None:
    """List sessions, newest first."""
    with user_errors():
        ctx = build_app()
        stored = ctx.workspace.db_path.exists()
        rows = ctx.sessions.list(limit=limit, include_failed=include_failed, text=query) if stored else []
        failed = 0 if include_failed or not stored or query else ctx.sessions.failed_count()
        if as_json:
            typer.echo(json.dumps(rows, indent=2, default=str))
            return
        note = (f"{failed} session(s) holding only failed attempts (no reply: a missing key, an unreachable "
                "provider) are not listed; --all lists them." if failed else "")
        if not rows and query:
            typer.echo(f"No session of this workspace mentions {query!r}.")
            return
        if not rows:
            typer.echo("No sessions yet in this workspace. Start one with `astro` or `astro run \"...\"`.")
            if note:
                typer.echo(note)
            return
        from rich.console import Console
        from rich.table import Table

        console = Console()
        wide = console.width >= 110  # the model column only where the question still has room
        table = Table(title_justify="left", expand=True, box=None, header_style="bold")
        table.add_column("id", no_wrap=True, style="cyan")
        table.add_column("updated", no_wrap=True)
        table.add_column("msgs", justify="right", no_wrap=True)
        table.add_column("tokens", justify="right", no_wrap=True)
        if wide:
            table.add_column("model", no_wrap=True, overflow="ellipsis", max_width=28)
        table.add_column("first question", no_wrap=True, overflow="ellipsis", ratio=1)
        from astro_cli.security.visible import rich_text

        for row in rows:  # a title is the first question, which may be pasted text: shown, never interpreted
            cells = [row["id"], row["updated_at"].replace("T", " ")[:16], str(row["messages"]), f"{row['tokens']:,}"]
            if wide:
                cells.append(row["model"] or "")
            table.add_row(*(rich_text(cell, tabs=True) for cell in [*cells, row["title"] or ""]))
        console.print(table)
        if note:
            console.print(note, style="dim", markup=False, highlight=False)


@app.command("show")
def show(session_id: str = typer.Argument(..., help="Session id (a unique prefix works).")) -> None:
    """Show a session's messages, tool calls and results."""
    from astro_cli.ui.transcript import print_transcript

    with user_errors():
        ctx = build_app().install_features()  # features add sections (tasks, compactions) to the transcript
        row = _session(ctx, session_id)
        print_transcript(ctx, row)


@app.command("export")
def export(
    session_id: str = typer.Argument(..., help="Session id (a unique prefix works)."),
    fmt: str = typer.Option("md", "--format", "-f", help="md or json."),
) -> None:
    """Export a session as Markdown or JSON on stdout."""
    from astro_cli.ui.transcript import transcript_json, transcript_markdown

    with user_errors():
        if fmt not in ("md", "json"):
            raise UserError(f"Unknown format '{fmt}'; use md or json.")
        ctx = build_app().install_features()
        row = _session(ctx, session_id)
        if fmt == "json":
            typer.echo(visible_json(transcript_json(ctx, row), indent=2, default=str))
        else:
            typer.echo(visible(transcript_markdown(ctx, row)))


@app.command("cite")
def cite(
    session_id: str = typer.Argument(..., help="Session id (a unique prefix works)."),
    bibtex: bool = typer.Option(True, "--bibtex", help="BibTeX, the default (and the only format so far)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
) -> None:
    """BibTeX for the papers the session's answers cited, in order of first citation."""
    import sys

    from astro_cli.bootstrap import EXIT_FAILED
    from astro_cli.citations.cite import NothingCited, session_bibtex
    from astro_cli.research.sources.http import ServiceError

    with user_errors():
        ctx = build_app()
        row = _session(ctx, session_id) if ctx.workspace.db_path.exists() else None
        if row is None:
            raise UserError(f"No session '{session_id}' in this workspace; `astro sessions list` shows them.")
        try:
            text, notes = session_bibtex(ctx, row["id"])
        except (NothingCited, ServiceError) as exc:
            raise UserError(str(exc), EXIT_FAILED) from None
        from rich.console import Console

        err = Console(stderr=True, highlight=False, soft_wrap=True)
        if output is not None:
            from astro_cli.security.writer import write_file

            write_file(output, text)  # where the person asked; a link at that name is replaced, not followed
            err.print(visible(f"wrote {text.count(chr(10) + '@') + text.startswith('@')} entries to {output}"),
                      markup=False)
        else:
            sys.stdout.write(visible(text))
        for note in notes:
            err.print(visible(f"note: {note}"), markup=False)
