"""`astro memory list|show|add|edit|forget`: the project's memory files, without a model."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from astro_cli.bootstrap import UserError, build_app, print_warnings, user_errors
from astro_cli.commands.defaults import command_group
from astro_cli.security.visible import rich_text, visible, visible_json

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.memory.store import MemoryStore

app = command_group("list")  # `astro memory` alone: `astro memory list`


def _store(ctx: AppContext) -> MemoryStore:
    from astro_cli.memory.service import MemoryService

    return MemoryService.for_app(ctx, watch=False).store


def _editor() -> str:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise UserError("Set $EDITOR (for example `export EDITOR=nano`) to write memories in an editor.")
    return editor


def _run_editor(editor: str, path: Path) -> None:
    import shlex
    import subprocess

    try:
        code = subprocess.run([*shlex.split(editor), str(path)]).returncode
    except OSError as exc:
        raise UserError(f"The editor '{editor}' could not be started ({exc.strerror or exc}).") from None
    if code != 0:
        raise UserError(f"The editor exited with status {code}; nothing was saved.")


def _in_editor(initial: str, suffix: str = ".md") -> tuple[str, Path]:
    """The text the editor left in a scratch file. The scratch is removed when the editor failed before
    anything was typed; what a failed editor left is kept, and the error says where."""
    import tempfile

    editor = _editor()  # before any scratch file: no editor, nothing left in /tmp
    fd, name = tempfile.mkstemp(prefix="astro-memory-", suffix=suffix)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(initial)
    path = Path(name)
    try:
        _run_editor(editor, path)
    except UserError as exc:
        if path.read_text(encoding="utf-8") == initial:
            path.unlink(missing_ok=True)
            raise
        raise UserError(f"{exc} Your text is kept in {path}.") from None
    return path.read_text(encoding="utf-8"), path


def _save(ctx: AppContext, slug: str, kind: str, description: str, body: str, replaces: str | None = None) -> str:
    from astro_cli.memory.format import MemoryFileError, MemoryInputError

    store = _store(ctx)
    try:
        result = store.save(slug, kind, description, body, replaces)
    except (MemoryInputError, MemoryFileError) as exc:
        message = str(exc)
        raise UserError(message[0].upper() + message[1:]) from None
    return result.message(ctx.workspace.root)


@app.command("list")
def list_memories(
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    history: bool = typer.Option(False, "--all", help="Include earlier versions (<slug>_vN)."),
) -> None:
    """List memories, newest first."""
    from astro_cli.memory.service import memory_row, sorted_memories

    with user_errors():
        ctx = build_app()
        store = _store(ctx)
        memories = sorted_memories(store.load_all(), include_history=history)
        now = store.clock()
        print_warnings(ctx)
        if as_json:
            typer.echo(visible_json([memory_row(m, now) for m in memories], indent=2))
            return
        if not memories:
            typer.echo("No memories yet in this workspace. Add one with `astro memory add SLUG --type T --description D`.")
            return
        from rich.console import Console
        from rich.table import Table

        table = Table(title_justify="left")
        for column in ("type", "slug", "description", "age"):
            table.add_column(column, no_wrap=column != "description")
        for memory in memories:
            row = memory_row(memory, now)
            description = f"{memory.description} {memory.mark}".rstrip()
            table.add_row(*(rich_text(cell) for cell in (memory.type, memory.slug, description)),
                          f"{row['age_days']:d} d")  # memory files may come from a shared repository
        Console().print(table, markup=False)


@app.command("show")
def show(slug: str = typer.Argument(..., help="The memory's slug (its file name without .md).")) -> None:
    """Print a memory file as it is stored."""
    from astro_cli.memory.format import MemoryFileError, read_memory

    with user_errors():
        ctx = build_app()
        path = _store(ctx).path_of(slug)
        if "/" in slug or not path.is_file():
            raise UserError(f"No memory '{slug}' in this workspace; `astro memory list` shows them.")
        typer.echo(visible(path.read_text(encoding="utf-8")), nl=False)
        try:
            read_memory(path)
        except MemoryFileError as exc:
            ctx.warn(f"memory/{path.name} is skipped by astro: {exc}")
        print_warnings(ctx)


@app.command("add")
def add(
    slug: str = typer.Argument(..., help="File name of the memory, e.g. planck-2018-cosmology."),
    content: Optional[str] = typer.Argument(None, help="The memory's text; '-' or nothing reads stdin (or opens $EDITOR)."),
    kind: str = typer.Option(..., "--type", "-t", help="preference, feedback, project or reference."),
    description: str = typer.Option(..., "--description", "-d", help="One line saying what the memory is."),
    replaces: Optional[str] = typer.Option(None, "--replaces", help="Slug of a memory this one supersedes."),
    editor: bool = typer.Option(False, "--editor", "-e", help="Write the content in $EDITOR."),
) -> None:
    """Add a memory (or update it: the previous text is kept as a version)."""
    with user_errors():
        ctx = build_app()
        if editor or (content is None and (sys.stdin is None or sys.stdin.isatty())):
            content, scratch = _in_editor(f"<!-- {slug}: {description} -->\n\n")
            content = content.replace(f"<!-- {slug}: {description} -->", "", 1)
            scratch.unlink(missing_ok=True)
        elif content is None or content == "-":
            content = sys.stdin.read()
        typer.echo(_save(ctx, slug, kind, description, content, replaces))


@app.command("edit")
def edit(slug: str = typer.Argument(..., help="The memory's slug.")) -> None:
    """Edit a memory in $EDITOR; the result is checked, and the previous text kept as a version."""
    from astro_cli.memory.format import MemoryFileError, parse_memory

    with user_errors():
        ctx = build_app()
        path = _store(ctx).path_of(slug)
        if "/" in slug or not path.is_file():
            raise UserError(f"No memory '{slug}' in this workspace; `astro memory list` shows them.")
        before = path.read_text(encoding="utf-8")
        after, scratch = _in_editor(before)
        if after == before:
            scratch.unlink(missing_ok=True)
            typer.echo(f"No change to '{slug}'.")
            return
        try:
            edited = parse_memory(after, path)
        except MemoryFileError as exc:
            raise UserError(f"The edit was not saved: {exc} Your text is kept in {scratch}.") from None
        try:
            typer.echo(_save(ctx, slug, edited.type, edited.description, edited.body))
        except UserError as exc:
            raise UserError(f"The edit was not saved: {exc} Your text is kept in {scratch}.") from None
        scratch.unlink(missing_ok=True)


@app.command("forget")
def forget(slug: str = typer.Argument(..., help="The memory's slug.")) -> None:
    """Move a memory and its versions to memory/archive/: out of the prompt and the index, not deleted."""
    from astro_cli.memory.format import MemoryInputError

    with user_errors():
        ctx = build_app()
        try:
            moved = _store(ctx).forget(slug)
        except MemoryInputError as exc:
            message = str(exc)
            raise UserError(message[0].upper() + message[1:]) from None
        names = ", ".join(p.name for p in moved)
        typer.echo(f"Forgot '{slug}': moved {names} to memory/archive/ (move it back to restore it).")
