"""REPL command /agents: the agent definitions the model may delegate to."""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.delegation.agents import agent_catalog
from astro_cli.slash import SlashCommand, slash_commands

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.slash import SlashContext


def agents_slash(ctx: SlashContext, args: str) -> None:
    from rich.table import Table
    from rich.text import Text

    from astro_cli.security.visible import rich_text

    catalog = agent_catalog(ctx.app)
    agents, problems = catalog.all(), catalog.problems()
    if not agents and not problems:
        ctx.console.print("No agent definitions yet: write one in .astro/agents/NAME.md (see docs/delegation.md).")
        return
    if agents:
        table = Table(title_justify="left", show_edge=False)
        for column in ("agent", "from", "tools", "steps", "model", "description"):
            table.add_column(column, overflow="fold")
        for agent in sorted(agents.values(), key=lambda a: a.name):
            tools = ", ".join(agent.tools) if agent.tools is not None else "all"
            table.add_row(rich_text(agent.name), agent.layer, rich_text(tools), str(agent.max_steps or "default"),
                          rich_text(agent.model or "inherit"), rich_text(agent.description))
        ctx.console.print(table)
    for reason in problems.values():
        ctx.console.print(Text.assemble(("skipped: ", "yellow"), rich_text(reason)))


def install_slash(app: AppContext) -> None:
    slash_commands(app).register(SlashCommand("agents", "list the agent definitions subagents can use", agents_slash))
