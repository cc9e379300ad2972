"""run_bash: a shell command in the workspace, with a timeout and output cut past a size limit."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from astro_cli.security.sandbox import Sandbox, sandbox
from astro_cli.security.secrets import environment_without_secrets
from astro_cli.tools.base import ToolError, ToolResult
from astro_cli.tools.command import CommandOutcome, describe_holders, run_command
from astro_cli.tools.context import ToolContext
from astro_cli.tools.processes import ProcessGroups, process_groups
from astro_cli.tools.typed import as_tool, tool

if TYPE_CHECKING:
    from pathlib import Path

    from astro_cli.app import AppContext
    from astro_cli.config import Settings


@tool(name="run_bash", read_only=False, needs_permission=True, key_argument="command",
      needs=(Sandbox, ProcessGroups),
      description="Run a bash command in the workspace folder and return its output and exit code. "
      "Needs the user's permission; long output is cut.")
def run_bash(ctx: ToolContext, fence: Sandbox, groups: ProcessGroups, command: str,
             timeout: float | None = None) -> ToolResult:
    """Args:
        command: The command line.
        timeout: Seconds before the command is stopped.
    """
    if not command.strip():
        raise ToolError("No command was given.")
    return shell(ctx.settings, ctx.workspace_root, fence, groups, command, ctx.cancel, ctx.warn, timeout)


def run_shell(app: AppContext, command: str, cancel: threading.Event, warn: Callable[[str], None],
              timeout: float | None = None) -> ToolResult:
    """The REPL's `!command` (ui/shell_line.py): `shell` with the app's sandbox and process groups."""
    return shell(app.settings, app.workspace.root, sandbox(app), process_groups(app), command, cancel, warn, timeout)


def shell(settings: Settings, root: Path, fence: Sandbox, groups: ProcessGroups, command: str,
          cancel: threading.Event, warn: Callable[[str], None], timeout: float | None = None) -> ToolResult:
    """One command in the workspace, in the sandbox, without keys in its environment, bounded in time
    and output: run_bash's, and the REPL's `!command`. Permission is the caller's."""
    limit = float(timeout or settings.typed["bash.timeout"])
    limit = min(limit, settings.typed["bash.timeout"] * 4)
    said = fence.tell_once()
    if said:
        warn(said)
    with fence.holding() as held:  # a hook script not written yet cannot be planted
        outcome = run_command(
            fence.wrap(["bash", "-c", command], root, held=held),
            cwd=root,
            env=environment_without_secrets(os.environ),
            timeout=limit,
            cancel=cancel,
            groups=groups,
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
    app.services.provide(Sandbox, lambda: sandbox(app))  # what run_bash declares it needs
    app.services.provide(ProcessGroups, lambda: process_groups(app))
    app.tools.register(as_tool(run_bash))
