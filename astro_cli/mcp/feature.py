"""The MCP feature: configured servers start with the first session that calls a model, their tools join
the registry before each request, and failures reach the researcher as notices.

With no server configured, `install` registers only the `/mcp` command (which says how to add one):
no loop extension, no thread, and the SDK is never imported.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from astro_cli.agent import events as ev
from astro_cli.agent.extensions import LoopExtension, loop_extensions
from astro_cli.mcp.servers import is_configured
from astro_cli.mcp.state import STARTING
from astro_cli.slash import SlashCommand, SlashContext, slash_commands

if TYPE_CHECKING:
    from astro_cli.agent.extensions import SessionView, TurnView
    from astro_cli.app import AppContext


class McpExtension(LoopExtension):
    def __init__(self, app: AppContext) -> None:
        self.app = app

    def on_session_start(self, session: SessionView) -> None:
        from astro_cli.mcp.manager import mcp_manager

        manager = mcp_manager(self.app)
        if manager.startable and "litellm" not in sys.modules:
            # The servers start in their own processes; litellm's import (about 4 s) need not wait for them.
            from astro_cli.agent.open_model import warm_up_in_background

            warm_up_in_background()
        manager.start()  # in the background: the REPL's prompt does not wait

    def before_request(self, state: TurnView) -> None:
        from astro_cli.mcp.manager import mcp_manager

        manager = mcp_manager(self.app)
        session = state.session
        starting = [s.name for s in manager.servers if s.status == STARTING]
        if starting and not session.delegated:
            session.bus.emit(ev.Notice(level="info", text=f"waiting for MCP server(s) {', '.join(starting)} to start"))
        manager.wait_started()
        manager.sync_tools(self.app.tools)
        if not session.delegated:  # a subagent's notices would be lost: the session the user sees reports them
            for text in manager.take_notices():
                session.bus.emit(ev.Notice(level="warning", text=text))


def mcp_slash(ctx: SlashContext, args: str) -> None:
    """/mcp: the servers of this session, their status and tools; `/mcp restart NAME` reconnects one."""
    from rich.text import Text

    from astro_cli.mcp.manager import mcp_manager
    from astro_cli.mcp.report import NO_SERVERS, render
    from astro_cli.security.visible import one_line, visible

    if not is_configured(ctx.app):
        ctx.console.print(Text(NO_SERVERS))
        return
    manager = mcp_manager(ctx.app)
    words = args.split()
    if words[:1] == ["restart"]:
        if len(words) != 2:
            ctx.console.print(Text("usage: /mcp restart NAME", style="yellow"))
            return
        from astro_cli.tools.base import ToolError

        try:
            manager.restart(words[1])
        except ToolError as exc:
            ctx.console.print(Text(visible(str(exc)), style="yellow"))
            return
        ctx.console.print(Text(f"restarting {one_line(words[1], 80)}…", style="dim"))
        manager.wait_started()
    elif words:
        ctx.console.print(Text("usage: /mcp, or /mcp restart NAME", style="yellow"))
        return
    render(manager, ctx.console)
    for text in manager.take_notices():
        ctx.console.print(Text(visible(text), style="yellow"))


def install(app: AppContext) -> None:
    slash_commands(app).register(SlashCommand("mcp", "MCP servers: status and tools (restart NAME reconnects one)", mcp_slash,
                                    usage="/mcp [restart NAME]"))
    if is_configured(app):
        loop_extensions(app).add(lambda: McpExtension(app))
