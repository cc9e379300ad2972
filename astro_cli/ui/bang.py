"""`!cmd` in the REPL: run a shell command yourself, as Claude Code's bash mode does.

It goes through exactly what the model's run_bash goes through: the permission policy (a denied
run_bash is refused; one that needs asking asks), the tool's own sandbox, timeout and output bound.
The command and its output join the conversation as a user message, so the next question can
refer to them ("why did this fail?").
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from rich.text import Text

from astro_cli.security.visible import visible

if TYPE_CHECKING:
    from rich.console import Console

    from astro_cli.agent.loop import AgentSession

TOOL = "run_bash"


def run_bang(session: AgentSession, console: Console, command: str) -> None:
    from astro_cli.agent.tool_runner import DEFAULT_TOOL_TIMEOUT
    from astro_cli.tools.context import ToolContext
    from astro_cli.tools.execute import execute

    if not command.strip():
        console.print(Text("!COMMAND runs a shell command (as run_bash does); e.g. !ls data", style="dim"))
        return
    tool = session.app.tools.get(TOOL)
    if tool is None or TOOL not in {t.name for t in session.visible_tools()}:
        console.print(Text(f"{TOOL} is not available in this session, so !commands cannot run.", style="yellow"))
        return
    arguments = {"command": command}
    decision = session.permissions.check(tool, arguments)
    if not decision.allowed:
        console.print(Text(f"not run: {decision.reason}", style="yellow"))
        return
    ctx = ToolContext(app=session.app, session_id=session.session_id, agent=session.agent,
                      cancel=threading.Event(), emit=session.bus.emit, states=session.states)
    run = execute(tool, ctx, arguments, tool.timeout or DEFAULT_TOOL_TIMEOUT, interrupt=session.cancel)
    result = run.result
    output = result.content if result is not None else f"{TOOL} did not finish ({run.ending})."
    console.print(Text(visible(output), style="red" if result is None or result.is_error else ""))
    session.append({"role": "user", "content": f"I ran this shell command myself:\n$ {command}\n{output}"})
