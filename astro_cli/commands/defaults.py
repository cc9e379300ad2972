"""`astro sessions` alone lists, `astro config` alone shows: a group with a default sub-command.

As `git remote` lists the remotes and `llm keys` the keys, a group named alone runs its everyday
command and exits 0, instead of printing help and exiting 2. `--help` still shows the group's help.
"""

from __future__ import annotations

import typer


def command_group(default: str) -> typer.Typer:
    """A sub-command group that runs `default` (with its own defaults) when named alone."""
    app = typer.Typer(no_args_is_help=False)

    @app.callback(invoke_without_command=True)
    def run_default(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:
            command = ctx.command.get_command(ctx, default)  # type: ignore[attr-defined]
            with command.make_context(default, [], parent=ctx) as sub:  # its options at their defaults
                command.invoke(sub)

    return app


def listing_group() -> typer.Typer:
    """A group with no everyday command (`astro papers` needs a paper): named alone, it lists its
    sub-commands and exits 0, as `git stash` lists rather than failing."""
    app = typer.Typer(no_args_is_help=False)

    @app.callback(invoke_without_command=True)
    def list_commands(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:
            typer.echo(ctx.get_help())

    return app
