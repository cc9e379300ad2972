"""Installs lifecycle hooks: the loop extension that fires them and the /hooks command.

Plugins (`hooks/plugins.py`) are a feature of their own that installs last of all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.agent.extensions import loop_extensions
from astro_cli.hooks.extension import HookExtension
from astro_cli.hooks.runner import EVENTS, hook_runner
from astro_cli.slash import SlashCommand, slash_commands

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.slash import SlashContext


def hooks_slash(ctx: SlashContext, args: str) -> None:
    from astro_cli.security.visible import markup_safe, visible

    runner = hook_runner(ctx.app)
    if not runner.hooks:
        ctx.console.print("No hooks are configured (config 'hooks'; `astro hooks list` shows details).")
    for event in EVENTS:
        for hook in (h for h in runner.hooks if h.event == event):
            matcher = f" [{hook.matcher}]" if hook.matcher else ""
            ctx.console.print(visible(f"{event}{matcher}: {hook.label}"), markup=False)  # a folder's command
    for problem in runner.problems:
        ctx.console.print(f"[yellow]problem:[/] {markup_safe(problem)}")


def install(app: AppContext) -> None:
    runner = hook_runner(app)
    loop_extensions(app).add(lambda: HookExtension(runner))
    slash_commands(app).register(SlashCommand("hooks", "list the lifecycle hooks and plugin callbacks", hooks_slash))
