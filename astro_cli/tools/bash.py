"""run_bash: a shell command in the workspace, with a timeout and output cut past a size limit."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astro_cli.security.sandbox import sandbox
from astro_cli.security.secrets import environment_without_secrets
from astro_cli.tools.base import Tool, ToolError, ToolResult, object_schema
from astro_cli.tools.command import CommandOutcome, describe_holders, run_command
from astro_cli.tools.context import ToolContext
from astro_cli.tools.processes import process_groups

if TYPE_CHECKING:
    from astro_cli.app import AppContext


def run_bash(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    command = args.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ToolError("No command was given.")
    return run_shell(ctx.app, command, ctx.cancel, ctx.warn, args.get("timeout"))


def run_shell(app: AppContext, command: str, cancel: threading.Event, warn: Callable[[str], None],
              timeout: float | None = None) -> ToolResult:
    """One command in the workspace, in the sandbox, without keys in its environment, bounded in time
    and output: run_bash's, and the REPL's `!command` (ui/shell_line.py). Permission is the caller's."""
    settings = app.settings
    limit = float(timeout or settings.typed["bash.timeout"])
    limit = min(limit, settings.typed["bash.timeout"] * 4)
    fence = sandbox(app)
    said = fence.tell_once()
    if said:
        warn(said)
    root = app.workspace.root
    with fence.holding() as held:  # a hook script not written yet cannot be planted
        outcome = run_command(
            fence.wrap(["bash", "-c", command], root, held=held),
            cwd=root,
            env=environment_without_secrets(os.environ),
            timeout=limit,
            cancel=cancel,
            groups=process_groups(app),
            keep_bytes=4 * settings.typed["bash.max_output_chars"],
        )
    return _result(outcome, settings.typed["bash.max_output_chars"], limit)


def _result(outcome: CommandOutcome, limit: int, timeout: float) -> ToolResult:
    """The output, then what happened: exit code, or why astro stopped it and what it left behind."""
    notes = []
    if outcome.cancelled:
        notes.append("[cancelled]")
    elif outcome.timed_out:
        notes.append(f"[stopped after {timeout:g} s]")
    else:
        notes.append(f"[exit code {outcome.returncode}]")
    if outcome.stopped_holders:
        notes.append(f"[a process it started outside its group still held its output and was stopped: "
                     f"{describe_holders(outcome.stopped_holders)}]")
    if outcome.left_running:
        verb = "could not be stopped" if (outcome.timed_out or outcome.cancelled) else "is still running"
        notes.append(f"[a process it started {verb}; its output is no longer collected: "
                     f"{describe_holders(outcome.left_running)}]")
    text = outcome.output.text(limit)
    footer = "\n".join(notes)
    is_error = outcome.timed_out or outcome.cancelled or outcome.returncode != 0
    return ToolResult(f"{text}\n{footer}" if text else footer, is_error=is_error)


def install(app: AppContext) -> None:
    app.tools.register(Tool(
        name="run_bash",
        description="Run a bash command in the workspace folder and return its output and exit code. "
        "Needs the user's permission; long output is cut.",
        parameters=object_schema({
            "command": {"type": "string", "description": "The command line."},
            "timeout": {"type": "number", "description": "Seconds before the command is stopped."},
        }, ["command"]),
        run=run_bash, read_only=False, needs_permission=True, key_argument="command",
        timeout=None,
    ))
