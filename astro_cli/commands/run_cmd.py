"""`astro run "QUESTION"`: one question, one answer, exit with a code that says how it went."""

from __future__ import annotations

import signal
import sys
from enum import Enum
from typing import Optional

import typer

from astro_cli.bootstrap import (
    EXIT_BUDGET,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROVIDER,
    EXIT_USAGE,
    UserError,
    build_app,
    print_warnings,
    print_withheld,
    user_errors,
)


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    stream_json = "stream-json"  # Claude Code's messages (ui/claude_stream.py)
    astro_events = "astro-events"  # astro's own events, more of them (agent/events.py)


EXIT_BY_REASON = {
    "answered": EXIT_OK,
    "max_tokens": EXIT_OK,  # an answer, cut at the token limit after continuations (marked in the result)
    "provider_error": EXIT_PROVIDER,
    "config_error": EXIT_USAGE,
    "max_steps": EXIT_BUDGET,
    "interrupted": EXIT_INTERRUPTED,
    "paused": EXIT_FAILED,
}


def run_command(
    question: Optional[str] = typer.Argument(None, help="The question; '-' or nothing reads it from stdin."),
    attach: Optional[list[str]] = typer.Option(None, "--attach", "-a", help="Attach a file (text, PDF, LaTeX, "
                                               "FITS or VOTable table) to the question (repeatable)."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="litellm model string."),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="Base URL of the model provider."),
    profile: Optional[str] = typer.Option(None, "--profile", help="default, small (for small local models) or auto."),
    output_format: OutputFormat = typer.Option(OutputFormat.text, "--output-format", help="text, json, stream-json (Claude Code's messages) or astro-events (astro's own events)."),
    continue_: bool = typer.Option(False, "--continue", "-c", help="Continue the latest session of this workspace."),
    resume: Optional[str] = typer.Option(None, "--resume", "-r", help="Resume the session with this id."),
    fork: bool = typer.Option(False, "--fork", help="Continue in a new session that starts as a copy "
                              "(of --resume ID, else of the latest session)."),
    max_steps: Optional[int] = typer.Option(None, "--max-steps", help="Tool-using steps before a final answer."),
    allow: Optional[list[str]] = typer.Option(None, "--allow", help="Allow a tool that needs permission (repeatable)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Allow every tool that needs permission."),
) -> None:
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.attachments import attached_question
    from astro_cli.ui.oneshot import OneShotPrinter

    printer = OneShotPrinter(output_format.value)
    printer.starting()  # "starting…" on a terminal while a cold start imports litellm
    with user_errors(report=printer.failed):  # json: one result object on stdout even for a bad setting
        if question is None or question == "-":
            if sys.stdin is None or sys.stdin.isatty():
                raise UserError("Give a question: astro run \"What is the Hubble tension?\"")
            question = sys.stdin.read()
        if not question.strip():
            raise UserError("The question is empty.")
        app = build_app({"model": model, "api_base": api_base, "max_steps": max_steps, "profile": profile})
        printer.inline_images = str(app.settings.typed["plots.inline"])
        printer.redactor = app.redactor  # the answer on stdout is redacted as the stored one is
        try:
            question = attached_question(app, question, attach or [], printer.note)
            print_warnings(app)
            print_withheld(app)
            bus = EventBus()
            bus.subscribe(printer.handle)
            session = open_session(
                app, bus, permission_policy(app, allow=allow, yes=yes), resume=resume, continue_latest=continue_,
                fork=fork,
            )
            printer.opened(session)
            # SIGTERM stops the turn as Ctrl-C would: the partial answer is kept, the exit code is 130.
            signal.signal(signal.SIGTERM, lambda signum, frame: session.interrupter.interrupt(signum))
            state = session.run_turn(question)
            session.stop("run finished")
            code = EXIT_BY_REASON.get(state.stop_reason, EXIT_FAILED)
            printer.finish(state, exit_code=code)
        finally:
            app.close()
    raise typer.Exit(code)

