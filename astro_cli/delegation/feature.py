"""Installs delegation: the subagent and team tools, the sub-agents prompt section, /agents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.agent.extensions import LoopExtension, loop_extensions
from astro_cli.delegation.agents import agent_catalog
from astro_cli.delegation.slash import install_slash
from astro_cli.delegation.subagent import subagent_tool_definition
from astro_cli.delegation.team import team_tools
from astro_cli.prompt.registry import ORDER_SUBAGENTS

if TYPE_CHECKING:
    from astro_cli.agent.extensions import SessionView
    from astro_cli.app import AppContext


class TeamCleanup(LoopExtension):
    """When the lead's session closes, its teammates are told to stop (the record keeps what they sent)."""

    def on_session_stop(self, session: SessionView, reason: str) -> None:
        from astro_cli.delegation.team import TeamManager

        manager = session.states.find(TeamManager)
        if manager is not None:
            manager.cancel_all()


def install(app: AppContext) -> None:
    app.tools.register(subagent_tool_definition())
    for tool in team_tools():
        app.tools.register(tool)
    app.prompt.add("sub-agents", ORDER_SUBAGENTS, provider=agent_catalog(app).section)
    loop_extensions(app).add(TeamCleanup)
    install_slash(app)
