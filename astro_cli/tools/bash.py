"""run_bash: a shell command in the workspace, with a timeout and output cut past a size limit."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import TYPE_CHECKING, Any

from astro_cli.security.secrets import environment_without_secrets
from astro_cli.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema

if TYPE_CHECKING:
    from astro_cli.app import AppContext

def cut_output(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = text[: limit // 2]
    tail = text[-limit // 2 :]
    return f"{head}\n[... {len(text) - limit} characters cut; {len(text)} in all ...]\n{tail}"


def run_bash(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    command = args.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ToolError("No command was given.")
    settings = ctx.app.settings
    timeout = float(args.get("timeout") or settings.get("bash.timeout"))
    timeout = min(timeout, settings.get("bash.timeout") * 4)
    process = subprocess.Popen(
        ["bash", "-c", command],
        cwd=ctx.workspace_root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=environment_without_secrets(os.environ),
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    while True:
        # Short waits so a cancelled call (Ctrl-C, a background task stopped at exit) kills the command.
        try:
            output, _ = process.communicate(timeout=0.2)
            break
        except subprocess.TimeoutExpired:
            if not ctx.cancel.is_set() and time.monotonic() < deadline:
                continue
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        text = cut_output(output.decode("utf-8", errors="replace"), settings.get("bash.max_output_chars"))
        note = "[cancelled]" if ctx.cancel.is_set() else f"[stopped after {timeout:g} s]"
        return ToolResult(f"{text}\n{note}", is_error=True)
    text = cut_output(output.decode("utf-8", errors="replace"), settings.get("bash.max_output_chars"))
    code = process.returncode
    footer = f"[exit code {code}]"
    return ToolResult(f"{text}\n{footer}" if text else footer, is_error=code != 0)


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
