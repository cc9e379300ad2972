"""The `astro` command line: wiring only. Each command's work lives in astro_cli/commands/."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any, Optional

import typer

from astro_cli import __version__
from astro_cli.argv import QUESTION_OPTION
from astro_cli.commands.builtin import builtin_commands
from astro_cli.commands.session_flags import (
    ADD_DIR,
    APPEND_SYSTEM_PROMPT,
    ATTACH,
    DISALLOWED_TOOLS,
    SESSION_ID,
    SYSTEM_PROMPT,
    new_session_id,
    session_flags,
)
from astro_cli.extensions import CliCommand, CliCommands

app = typer.Typer(
    name="astro",
    help="A research assistant for astrophysicists: NASA ADS, arXiv, SIMBAD and your papers, in the terminal.\n\n"
    "Run `astro` for the interactive session, `astro \"question\"` to start it with a question, or "
    "`astro -p \"question\"` (the same as `astro run \"question\"`) for one answer.\n\n"
    "A question that is also a command's name comes after --: `astro -- search`.",
    add_completion=False,
    no_args_is_help=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"astro {__version__}")
        raise typer.Exit()


def _debug_log() -> None:
    """--debug: the environment carries it (to the worker's child and astro's own sub-processes)."""
    import os

    from astro_cli.debuglog import enable_from_environment

    os.environ["ASTRO_DEBUG"] = "1"
    enable_from_environment(os.environ)


@app.callback(invoke_without_command=True)
def main(
    ctx: typer.Context,
    model: Optional[str] = typer.Option(None, "--model", "-m", help="litellm model string or an alias "
                                         "(sonnet, opus, gpt-4.1: `astro models`)."),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="Base URL of the model provider."),
    profile: Optional[str] = typer.Option(None, "--profile", help="default, small (for small local models) or auto."),
    continue_: bool = typer.Option(False, "--continue", "-c", help="Continue the latest session of this workspace."),
    resume: Optional[str] = typer.Option(None, "--resume", "-r", help="Resume the session with this id."),
    fork: bool = typer.Option(False, "--fork", help="Continue in a new session that starts as a copy "
                              "(of --resume ID, else of the latest session)."),
    max_steps: Optional[int] = typer.Option(None, "--max-steps", help="Tool-using steps per turn."),
    debug: bool = typer.Option(False, "--debug", help="Write a debug log to ASTRO_HOME/logs/astro.log (secrets "
                               "redacted); the same as ASTRO_DEBUG=1."),
    version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True, help="Show the version."),
    print_: bool = typer.Option(False, "--print", "-p", help="Answer the question and exit: the same as `astro run`."),
    question: Optional[str] = typer.Option(None, QUESTION_OPTION, hidden=True),
    system_prompt: Optional[str] = SYSTEM_PROMPT,
    append_system_prompt: Optional[str] = APPEND_SYSTEM_PROMPT,
    disallowed: Optional[list[str]] = DISALLOWED_TOOLS,
    add_dir: Optional[list[str]] = ADD_DIR,
    attach: Optional[list[str]] = ATTACH,
    session_id: Optional[str] = SESSION_ID,
) -> None:
    """Start the interactive session in the current folder (with a first QUESTION when one is given)."""
    if debug:
        _debug_log()
    if ctx.invoked_subcommand is not None:
        return
    if print_:  # astro_cli/argv.py makes `astro -p` into `astro run`; reached only when typer is called directly
        raise typer.BadParameter("give the question after -p: astro -p \"What is the Hubble tension?\"")
    from astro_cli.commands.repl_cmd import start_repl

    start_repl(
        flags=session_flags({"model": model, "api_base": api_base, "max_steps": max_steps, "profile": profile},
                            system_prompt, append_system_prompt, disallowed, add_dir),
        resume=resume,
        continue_latest=continue_,
        fork=fork,
        first_question=question,
        attachments=attach,
        new_id=new_session_id(session_id),
    )


def attach(typer_app: typer.Typer, commands: Iterable[CliCommand]) -> None:
    """Add each command or group to the command line (extensions.CliCommands: built-ins and plugins alike)."""
    for command in commands:
        loaded = command.load()
        if isinstance(loaded, typer.Typer):
            typer_app.add_typer(loaded, name=command.name, help=command.help)
        else:
            typer_app.command(command.name, help=command.help)(loaded)


BUILTIN = builtin_commands()
attach(app, BUILTIN)


def run_app(prog_name: str | None = None, commands: CliCommands | None = None) -> None:
    """The command line, with the plugins' commands in `commands` (main.py loads them when wanted)."""
    from astro_cli.help_text import plain_errors, plain_help

    if commands is not None:
        attach(app, (command for command in commands if command.name not in BUILTIN.names()))
    command = typer.main.get_command(app)
    plain_help(command)
    plain_errors()
    if json_output_asked(sys.argv[1:]):
        run_for_json(command, prog_name)
        return
    command(prog_name=prog_name)


def json_output_asked(args: list[str]) -> bool:
    """`--output-format json|stream-json` among the options (before any `--`)."""
    from astro_cli.argv import split_double_dash

    head, _ = split_double_dash(args)
    formats = [head[i + 1] for i, arg in enumerate(head[:-1]) if arg == "--output-format"]
    formats += [arg.split("=", 1)[1] for arg in head if arg.startswith("--output-format=")]
    return any(value in ("json", "stream-json") for value in formats)


def run_for_json(command: Any, prog_name: str | None) -> None:
    """A usage error (`--max-steps lots`, an unknown flag) still leaves one result object on stdout,
    as every other failure of `astro run --output-format json` does; the sentence goes to stderr too."""
    from typer.exceptions import Abort, TyperException

    try:
        code = command.main(prog_name=prog_name, standalone_mode=False)
    except TyperException as exc:  # click's usage errors (typer vendors click)
        from astro_cli.ui.oneshot import error_object

        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            sys.stderr.write(f"error: {exc.format_message()}\n")
        sys.stdout.write(json.dumps(error_object(exc.format_message(), exc.exit_code)) + "\n")
        sys.exit(exc.exit_code)
    except Abort:
        sys.stderr.write("Aborted!\n")
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
