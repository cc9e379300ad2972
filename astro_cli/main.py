"""Process entry point.

`astro --version` is answered before typer (or anything heavier) is imported, so it stays
well under 0.15 s. `astro run` and `astro library search` first offer themselves to the warm worker
(astro_cli/worker), a client that imports nothing heavy; everything else, and any command the
worker does not take, goes to the typer app in cli.py in this process.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~8 ms): the thin client stays light
if TYPE_CHECKING:
    from astro_cli.extensions import CliCommands

# Commands worth a warm process: a model run (litellm) and a library search (numpy and the local
# embedding model, preloaded by the worker). Others start fast enough on their own.
WORKER_COMMANDS = (("run",), ("library", "search"))
EXIT_INTERRUPTED = 130  # bootstrap.EXIT_INTERRUPTED, not imported here: this module stays light


def main() -> None:
    if sys.argv[1:2] == ["--debug"]:
        # A global option that the environment carries: `astro --debug run` may still go to the
        # warm worker, whose child turns the log on from the environment it adopts.
        os.environ["ASTRO_DEBUG"] = "1"
        del sys.argv[1]
    if sys.argv[1:] in (["--version"], ["-V"]):
        from astro_cli import __version__

        print(f"astro {__version__}")
        return
    from astro_cli.argv import SUBCOMMANDS, mistyped_command, rewrite, wants_plugin_commands

    commands = None
    if wants_plugin_commands(sys.argv[1:]):  # a plugin's command, a question, the REPL, --help
        from astro_cli.commands.builtin import builtin_commands
        from astro_cli.plugin_commands import add_plugin_commands

        commands = builtin_commands()
        add_plugin_commands(commands)
    names = commands.names() if commands is not None else SUBCOMMANDS
    meant = mistyped_command(sys.argv[1:], names)
    if meant is not None:
        _refuse_typo(sys.argv[1:], meant)
    # `astro "question"` opens the REPL with it; `astro -p "question"` is `astro run "question"`.
    sys.argv[1:] = rewrite(sys.argv[1:], names)
    from astro_cli.litellm_model.defaults import litellm_environment_defaults

    # Never let litellm fetch its cost map from the network when it is imported later.
    litellm_environment_defaults(os.environ)
    if any(tuple(sys.argv[1 : 1 + len(command)]) == command for command in WORKER_COMMANDS):
        _offer_to_worker()
    run_command_line(commands=commands)


def _refuse_typo(args: list[str], meant: str) -> None:
    from astro_cli.argv import typo_sentence

    print(typo_sentence(args, meant), file=sys.stderr)
    sys.exit(2)


def run_command_line(prog_name: str | None = None, commands: CliCommands | None = None) -> None:
    """The ordinary command line, in this process (a worker's child calls this too)."""
    from astro_cli.debuglog import enable_from_environment

    enable_from_environment(os.environ)
    from astro_cli.cli import run_app

    run_app(prog_name=prog_name, commands=commands)


def _offer_to_worker() -> None:
    import time

    from astro_cli.debuglog import enable_from_environment
    from astro_cli.worker.client import try_worker

    enable_from_environment(os.environ)
    asked = time.perf_counter()
    outcome = try_worker(sys.argv)
    if isinstance(outcome, int):
        sys.exit(outcome)
    import logging

    logging.getLogger("astro_cli.worker.client").debug(
        "astro %s stays in this process: %s (asking took %.1f ms)", sys.argv[1], outcome.reason, (time.perf_counter() - asked) * 1000
    )
    try:
        run_command_line()
    except SystemExit as exc:
        if exc.code == EXIT_INTERRUPTED:
            from astro_cli.process_exit import INTERRUPTED_WITHIN, exit_now

            # What it had is stored; nothing more to wait for, not even a thread blocked on the provider.
            exit_now(EXIT_INTERRUPTED, within=INTERRUPTED_WITHIN)
        raise
    finally:
        # Only a run that needed the model (litellm) or a search by meaning (numpy) is worth a worker for the next.
        if outcome.start_worker and ("litellm" in sys.modules or "numpy" in sys.modules):
            from astro_cli.worker.lifecycle import start_after_in_process_run

            start_after_in_process_run()


if __name__ == "__main__":
    main()
