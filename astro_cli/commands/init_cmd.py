"""`astro init`: lay out a research folder (skills/, memory/, papers/, notes/, .astro/config.yaml).

Running astro in a folder without this works too (folders appear on first write); init is for
people who want to see and edit the layout and the project settings from the start.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from astro_cli.bootstrap import build_app, user_errors
from astro_cli.security.trust import TrustStore

CONFIG_TEMPLATE = """\
# Project settings for astro (this folder only). `astro config show` lists every key.
# model: anthropic/claude-sonnet-4-5
# max_steps: 25
# language: English
# permissions:
#   allow: []        # e.g. [run_bash] to run commands without asking
#   deny: []
"""


def init_command() -> None:
    """Create the workspace layout in the current folder (existing files are left alone)."""
    with user_errors():
        ctx = build_app(workspace=os.getcwd())  # this folder, even inside another workspace (as `git init`)
        ws = ctx.workspace
        created: list[str] = []
        for folder in (ws.root / "skills", ws.memory_dir, ws.papers_dir, ws.notes_dir, ws.astro_dir):
            if not folder.exists():
                folder.mkdir(parents=True)
                created.append(_rel(folder, ws.root) + "/")
        if not ws.config_path.exists():
            from astro_cli.security.writer import write_file

            write_file(ws.config_path, CONFIG_TEMPLATE, root=ws.root)
            created.append(_rel(ws.config_path, ws.root))
        ctx.keep_database = True
        ctx.db  # noqa: B018 - creates the database with its schema
        # A folder the researcher lays out is theirs: trusted (later changes are asked about). A folder that
        # already carried risky settings of its own (a clone) is not trusted behind the researcher's back.
        if not ctx.trust.withheld:
            TrustStore(ctx.home.root).trust(ws.root, ctx.trust.items)
        if created:
            typer.echo(f"Initialised {ws.root}: created {', '.join(created)}.")
        else:
            typer.echo(f"{ws.root} is already an astro workspace; nothing changed.")
        if ctx.trust.withheld:
            from astro_cli.ui.trust_prompt import withheld_notice

            typer.echo(f"Note: {withheld_notice(ctx.trust)}")
        typer.echo("Next: `astro` to start a session, or `astro run \"your question\"`.")
        ctx.close()


def _rel(path: Path, root: Path) -> str:
    return str(path.relative_to(root))
