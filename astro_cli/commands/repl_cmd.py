"""`astro` with no sub-command: build the app, settle trust and the first run, then run the REPL.

The REPL itself (reading lines, running slash commands and turns, rendering) lives in `ui/`.
"""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from astro_cli.security.visible import visible
from astro_cli.ui.prompt_input import PromptReader
from astro_cli.ui.repl import Repl, default_reader

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.ui.prompt_input import Reader


def start_repl(
    flags: dict[str, Any] | None = None, resume: str | None = None, continue_latest: bool = False, fork: bool = False,
    first_question: str | None = None, attachments: list[str] | None = None, new_id: str | None = None,
) -> None:
    """Entry point of `astro` (`astro "question"` opens with that question as the first turn):
    configuration errors end with one sentence and exit code 2."""
    import typer

    from astro_cli.agent.open_model import warm_up_in_background
    from astro_cli.bootstrap import EXIT_USAGE, UserError, build_app, print_warnings, user_errors
    from astro_cli.local_model.server import ensure_served
    from astro_cli.store.db_errors import DatabaseUnusable
    from astro_cli.ui.first_run import first_run, needs_model

    with user_errors():
        app = build_app(flags)
        try:
            print_warnings(app)
            warm_up_in_background()
            console = Console(highlight=False)
            reader = default_reader(app)
            if settle_trust(app, console, reader):
                app.close()
                app = build_app(flags)  # the trusted settings apply from the first session on
                reader = default_reader(app)  # its completions read the new app's commands
            if isinstance(reader, PromptReader) and needs_model(app):  # a person at a terminal
                if not first_run(app, console, reader):
                    raise typer.Exit(EXIT_USAGE)
            ensure_served(app)  # the model astro runs itself answers before the first turn
            repl = Repl(app, console, reader=reader)
            signal.signal(signal.SIGTERM, repl.terminate)
            try:
                repl.open(resume=resume, continue_latest=continue_latest, fork=fork, new_id=new_id)
            except DatabaseUnusable as exc:
                if not (exc.damaged and repl.offer_fresh_database(exc)):
                    raise
                repl.open()
            _start_worker_in_background()
            if attachments and not (first_question and first_question.strip()):
                raise UserError("-a attaches a file to a question: astro -a FILE \"what does it say?\"")
            if first_question and first_question.strip():
                from astro_cli.attachments import attached_question

                text = attached_question(app, first_question, attachments or [],
                                         lambda line: console.print(Text(visible(line), style="dim")))
                repl.queue(text, shown=first_question if attachments else None)
            repl.run()
        finally:
            app.close()  # ends every command astro started, foreground and background
        if repl.terminated:
            raise KeyboardInterrupt  # exit code 130, as for `astro run`


def _start_worker_in_background() -> None:
    """The warm worker, started as the REPL opens (a thread: the prompt does not wait), so the next
    `astro run` skips the seconds of importing litellm."""
    import threading

    from astro_cli.worker.lifecycle import start_after_in_process_run

    threading.Thread(target=start_after_in_process_run, kwargs={"wait_for_exit": False}, daemon=True,
                     name="astro-worker-start").start()


def settle_trust(app: AppContext, console: Console, reader: Reader) -> bool:
    """Before anything of the project runs: ask once about its risky settings (a terminal only).

    True when the researcher trusted them just now. Piped input is never taken as an answer: the
    settings are then ignored, as `astro run` does, with one line saying so.
    """
    from astro_cli.security.trust import TrustStore
    from astro_cli.ui.trust_prompt import ask_trust, withheld_notice

    state = app.trust
    if state.unanswered and isinstance(reader, PromptReader):
        return ask_trust(state, TrustStore(app.home.root), console, reader.ask)
    notice = withheld_notice(state)
    if notice:
        console.print(Text(notice, style="dim"))
    return False
