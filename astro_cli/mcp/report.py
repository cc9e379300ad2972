"""What `astro mcp list` and `/mcp` show: each server, its status, where it was configured, its tools.

Everything here came from configuration files and from the servers themselves, so it is printed as
plain Text with control characters escaped; each tool's schema is counted in tokens (what it costs
in every request).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from astro_cli.agent.permissions import matches
from astro_cli.mcp.manager import McpManager
from astro_cli.mcp.state import FAILED, INVALID, READY, SKIPPED, STARTING, STOPPED
from astro_cli.mcp.tools import build_tools
from astro_cli.security.visible import one_line, visible
from astro_cli.slash import Output

if TYPE_CHECKING:
    from astro_cli.mcp.state import ServerState

STYLES = {READY: "green", STARTING: "yellow", FAILED: "red", STOPPED: "red", SKIPPED: "yellow", INVALID: "red"}
NO_SERVERS = (
    "No MCP servers are configured. Add one with `astro mcp add NAME -- COMMAND ARGS...` "
    "(or `astro mcp add NAME URL --transport http`), or put a .mcp.json in the workspace."
)


def status_text(state: ServerState) -> Text:
    text = Text(state.status, style=STYLES.get(state.status, "dim"))
    if state.status == READY:
        took = f", started in {state.startup_seconds:.1f} s" if state.startup_seconds is not None else ""
        server = f", server {state.server_version}" if state.server_version not in ("", state.name) else ""
        count = len(state.tools)
        text.append(visible(f" ({count} tool{'' if count == 1 else 's'}{took}{server})"), style="dim")
    elif state.reason:
        text.append(visible(f": {one_line(state.reason, 300)}"))
    return text


def render(manager: McpManager, console: Output, show_tools: bool = True) -> None:
    """One block per server: name and status, then where it was configured and what it runs."""
    if not manager.servers and not manager.config.problems:
        console.print(Text(NO_SERVERS))
        return
    for state in manager.servers:
        console.print(Text.assemble((visible(state.name), "bold cyan"), "  ", status_text(state)))
        detail = f"  {state.spec.transport} · {one_line(state.spec.target, 100)} · configured in {state.spec.where}"
        console.print(Text(visible(detail), style="dim"))
    for problem in manager.config.problems:
        console.print(Text(visible(problem), style="yellow"))
    if show_tools:
        render_tools(manager, console)


def render_tools(manager: McpManager, console: Output) -> None:
    """Each ready server's tools as the model sees them, with the schema tokens each adds to a request."""
    from astro_cli.agent.model_choice import model_choice
    from astro_cli.agent.tokens import TokenCounter

    choice = model_choice(manager.app)  # the model a session would use, picked from a key if need be
    counter = TokenCounter(choice.model if choice is not None else None)
    for state in manager.servers:
        if state.status != READY:
            continue
        tools, _ = build_tools(state.name, state.tools, manager.call, manager.tool_timeout, manager.max_output_chars)
        if not tools:
            console.print(Text(f"{visible(state.name)}: no tools", style="dim"))
            continue
        table = Table(box=None, padding=(0, 2, 0, 0), title=f"tools of {visible(state.name)}", title_justify="left",
                      title_style="bold")
        table.add_column("tool", style="cyan", no_wrap=True)
        table.add_column("tokens", justify="right", style="dim")
        table.add_column("summary")
        deny = manager.app.settings.typed["permissions.deny"] or []
        for tool in tools:
            if matches(tool.name, deny):
                table.add_row(visible(tool.name), "-", Text("denied by 'permissions.deny': not offered to the model", "dim"))
                continue
            tokens = counter.text(json.dumps(tool.schema()))
            table.add_row(visible(tool.name), str(tokens), visible(tool.summary))
        console.print(table)
    console.print(Text("tokens: what each tool's schema adds to every request (counted with "
                       f"{counter.text_method}); summary: its line in the system prompt. MCP tools ask permission "
                       "before they run; `--allow 'mcp__NAME__*'` or config 'permissions.allow' pre-approves them.",
                       style="dim"))
