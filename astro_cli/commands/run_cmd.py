"""`astro run "QUESTION"`: one question, one answer, exit with a code that says how it went."""

from __future__ import annotations

import logging
import signal
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Optional

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

if TYPE_CHECKING:
    from astro_cli.ui.oneshot import OneShotPrinter


log = logging.getLogger(__name__)
PIPE_WAIT = 3.0  # seconds a silent pipe is waited for when a question is given (as `claude -p`)


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
    "max_budget": EXIT_BUDGET,
    "interrupted": EXIT_INTERRUPTED,
    "paused": EXIT_FAILED,
}


def run_command(
    question: Optional[str] = typer.Argument(None, help="The question; '-' or nothing reads it from stdin."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="litellm model string or an alias (sonnet, "
                                         "opus, gpt-4.1: `astro models`)."),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="Base URL of the model provider."),
    profile: Optional[str] = typer.Option(None, "--profile", help="default, small (for small local models) or auto."),
    output_format: OutputFormat = typer.Option(OutputFormat.text, "--output-format", help="text, json, stream-json (Claude Code's messages) or astro-events (astro's own events)."),
    continue_: bool = typer.Option(False, "--continue", "-c", help="Continue the latest session of this workspace."),
    resume: Optional[str] = typer.Option(None, "--resume", "-r", help="Resume the session with this id."),
    fork: bool = typer.Option(False, "--fork", help="Continue in a new session that starts as a copy "
                              "(of --resume ID, else of the latest session)."),
    max_steps: Optional[int] = typer.Option(None, "--max-steps", help="Tool-using steps before a final answer."),
    allow: Optional[list[str]] = typer.Option(None, "--allow", "--allowedTools", help="Allow a tool that needs "
                                              "permission (repeatable)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Allow every tool that needs permission."),
    system_prompt: Optional[str] = SYSTEM_PROMPT,
    append_system_prompt: Optional[str] = APPEND_SYSTEM_PROMPT,
    disallowed: Optional[list[str]] = DISALLOWED_TOOLS,
    add_dir: Optional[list[str]] = ADD_DIR,
    attach: Optional[list[str]] = ATTACH,
    session_id: Optional[str] = SESSION_ID,
    max_budget_usd: Optional[float] = typer.Option(None, "--max-budget-usd", min=0, help="Stop once the model "
                                                   "requests of this run have cost this many dollars (exit 4)."),
    no_persistence: bool = typer.Option(False, "--no-session-persistence", help="Leave no transcript: the "
                                        "session is not kept and cannot be resumed (papers and notes it saved stay)."),
    verbose: bool = typer.Option(False, "--verbose", hidden=True, help="Accepted as `claude -p` takes it; "
                                 "stream-json is always complete."),
) -> None:
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.attachments import attached_question
    from astro_cli.ui.oneshot import OneShotPrinter

    printer = OneShotPrinter(output_format.value)
    printer.starting()  # "starting…" on a terminal while a cold start imports litellm
    with user_errors(report=printer.failed):  # json: one result object on stdout even for a bad setting
        question = with_piped_input(question)
        app = build_app(session_flags({"model": model, "api_base": api_base, "max_steps": max_steps,
                                       "profile": profile}, system_prompt, append_system_prompt, disallowed, add_dir))
        say_where_the_workspace_is(app.workspace.root, printer)
        asked = question
        printer.inline_images = str(app.settings.typed["plots.inline"])
        printer.redactor = app.redactor  # the answer on stdout is redacted as the stored one is
        try:
            question = attached_question(app, question, attach or [], printer.note)
            print_warnings(app)
            print_withheld(app)
            from astro_cli.local_model.server import ensure_served

            ensure_served(app)  # the model astro runs itself (config local_model_path)
            bus = EventBus()
            bus.subscribe(printer.handle)
            budget = None
            if max_budget_usd is not None:
                from astro_cli.agent.extensions import loop_extensions
                from astro_cli.commands.budget import BudgetExtension

                budget = BudgetExtension(max_budget_usd)
                loop_extensions(app).add(lambda: budget)
            session = open_session(
                app, bus, permission_policy(app, allow=allow, yes=yes), resume=resume, continue_latest=continue_,
                fork=fork, new_id=new_session_id(session_id),
            )
            printer.opened(session)
            # SIGTERM stops the turn as Ctrl-C would: the partial answer is kept, the exit code is 130.
            signal.signal(signal.SIGTERM, lambda signum, frame: session.interrupter.interrupt(signum))
            state = session.run_turn(question, title=asked.strip().splitlines()[0] if attach else None)
            if budget is not None and budget.spent is not None:
                state.stop_reason, state.error = "max_budget", budget.sentence()
            session.stop("run finished")
            if no_persistence:
                app.sessions.forget(session.session_id)
            code = EXIT_BY_REASON.get(state.stop_reason, EXIT_FAILED)
            printer.finish(state, exit_code=code)
        finally:
            app.close()
    raise typer.Exit(code)


def with_piped_input(question: str | None) -> str:
    """The question, after what was piped in (`cat obs.txt | astro -p "summarise this"`), as `claude -p`
    and `llm` join them; piped input alone is the question when none is given (or it is `-`)."""
    asked = question if question not in (None, "-") else None
    piped = read_piped(wait=PIPE_WAIT if asked is not None else None)
    if asked is None and not piped and (sys.stdin is None or sys.stdin.isatty()):
        raise UserError("Give a question: astro run \"What is the Hubble tension?\"")
    if asked is None:  # stdin alone is the question, byte for byte (CRLF and the last newline kept)
        if not piped.strip():
            raise UserError("The question is empty.")
        return piped
    joined = "\n\n".join(part.strip("\n") for part in (piped, asked) if part.strip())
    if not joined.strip():
        raise UserError("The question is empty.")
    return joined


def read_piped(wait: float | None) -> str:
    """What stdin holds when it is a pipe or a file (never a terminal or /dev/null).

    With a question given, a pipe that stays silent for `wait` seconds is left unread, as `claude -p`
    does (a job runner may hand astro an open pipe nobody writes to); without one, it is waited for."""
    import os
    import select
    import stat

    if sys.stdin is None or sys.stdin.isatty():
        return ""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError):
        return sys.stdin.read() if wait is None else ""
    if not (stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)):
        return "" if wait is not None else sys.stdin.read()
    if wait is not None and not stat.S_ISREG(mode) and not select.select([sys.stdin], [], [], wait)[0]:
        log.debug("stdin is a pipe with nothing in it after %.0f s: the question goes alone", wait)
        return ""
    return sys.stdin.read()


def say_where_the_workspace_is(root: Path, printer: OneShotPrinter) -> None:
    """One line on stderr when the workspace is a folder above this one: its sessions and library are used."""
    from astro_cli.workspace import found_above

    if found_above(root):
        printer.note(f"workspace: {root} (found above this folder)")

