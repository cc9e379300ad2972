"""`astro hooks list`: the lifecycle hooks configured for this workspace, and plugins' callbacks."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from astro_cli.bootstrap import build_app, print_warnings, print_withheld, user_errors
from astro_cli.commands.defaults import command_group
from astro_cli.security.visible import markup_safe

if TYPE_CHECKING:
    from astro_cli.app import AppContext

app = command_group("list")  # `astro hooks` alone: `astro hooks list`

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHELL_SYNTAX = re.compile(r"[$`(){}<>|;&*?\[\]]")


def startup_problem(command: str, cwd: Path) -> str | None:
    """None when the command's program can be found; otherwise one sentence saying why it cannot start."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return f"the command cannot be parsed ({exc})"
    while words and _ASSIGNMENT.match(words[0]):
        words.pop(0)
    if not words:
        return None
    program = os.path.expanduser(os.path.expandvars(words[0]))
    if _SHELL_SYNTAX.search(program):
        return None  # shell syntax: only running it can tell
    found = subprocess.run(
        ["/bin/sh", "-c", 'command -v -- "$1" >/dev/null 2>&1', "sh", program],
        cwd=cwd, capture_output=True, timeout=10,
    )
    if found.returncode == 0:
        return None
    if "/" in program and Path(cwd, program).exists():
        return f"'{program}' is not executable (chmod +x it)"
    return f"'{program}' was not found" + ("" if "/" in program else " on PATH")


def _rows(ctx: AppContext) -> list[dict[str, Any]]:
    from astro_cli.hooks.runner import hook_runner

    rows = []
    for hook in hook_runner(ctx).hooks:
        row: dict[str, Any] = {"event": hook.event, "matcher": hook.matcher or "*", "where": hook.where}
        if hook.callback is not None:
            row.update(type="python", hook=hook.label, timeout=None, problem=None)
        else:
            row.update(type="command", hook=hook.command, timeout=hook.timeout,
                       problem=startup_problem(hook.command, ctx.workspace.root))
        rows.append(row)
    return rows


@app.command("list")
def list_hooks(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Show the configured hooks, plugin callbacks, and any hook that cannot be started."""
    from astro_cli.hooks.plugins import InstalledPlugins
    from astro_cli.hooks.runner import EVENTS, hook_runner

    with user_errors():
        ctx = build_app()
        print_warnings(ctx)
        print_withheld(ctx)
        ctx.install_features()
        runner = hook_runner(ctx)
        rows = _rows(ctx)
        plugins = [vars(p) for p in ctx.service(InstalledPlugins).infos]
        problems = list(runner.problems) + [
            f"{r['where']}: the {r['event']} hook `{r['hook']}` cannot be started: {r['problem']}."
            for r in rows if r["problem"]
        ]
        # An untrusted folder's hooks are not in the runner, but they are there: say so, and what they run.
        withheld = [item for item in ctx.trust.withheld if item.key == "hooks"]
        if as_json:
            typer.echo(json.dumps({"hooks": rows, "plugins": plugins, "problems": problems,
                                   "fail_closed": runner.fail_closed,
                                   "withheld": [{"where": i.where, "hooks": i.detail} for i in withheld]},
                                  indent=2, default=str))
            return
        from rich.console import Console
        from rich.table import Table

        from astro_cli.security.visible import rich_text

        console = Console(highlight=False, soft_wrap=True)
        if rows:
            order = {name: i for i, name in enumerate(EVENTS)}
            table = Table(title=rich_text(f"hooks for {ctx.workspace.root}"), title_justify="left")
            for column in ("event", "matcher", "hook", "timeout", "status"):
                table.add_column(column, overflow="fold")
            for row in sorted(rows, key=lambda r: order.get(r["event"], 99)):
                status = rich_text("cannot start", style="red") if row["problem"] else "ok"
                timeout = f"{row['timeout']:g} s" if row["timeout"] else ""
                # Commands and matchers are a folder's text, event names a config's: shown, never read as markup.
                table.add_row(rich_text(row["event"]), rich_text(row["matcher"]), rich_text(row["hook"]), timeout,
                              status)
            console.print(table)
        elif not withheld:
            console.print("No hooks are configured. Add them under `hooks:` in .astro/config.yaml or "
                          f"{ctx.home.config_path} (see docs/hooks.md).")
        for item in withheld:
            console.print(f"[yellow]Hooks configured in {markup_safe(item.where)}, not applied until `astro trust`:[/] "
                          f"{markup_safe(item.detail)}")
        for plugin in plugins:
            state = "loaded" if plugin["loaded"] else f"[red]failed[/]: {markup_safe(plugin['error'])}"
            extra = ", ".join([*(f"tool {t}" for t in plugin["tools"]), *(f"hook {h}" for h in plugin["hooks"]),
                               *plugin["prompt"], *(f"text reader {r}" for r in plugin["readers"]),
                               *(f"paper source {s}" for s in plugin.get("sources", [])),
                               *(f"slash command {c}" for c in plugin.get("slash", [])),
                               *(f"transcript section '{t}'" for t in plugin.get("sections", []))])
            console.print(f"plugin {markup_safe(plugin['name'])} ({markup_safe(plugin['value'])}): {state}"
                          + (f"; {markup_safe(extra)}" if extra else ""))
        console.print(f"fail_closed: {'true' if runner.fail_closed else 'false'} "
                      "(a hook that crashes or times out " + ("blocks" if runner.fail_closed else "only warns") + ")")
        for problem in problems:
            console.print(f"[yellow]problem:[/] {markup_safe(problem)}")
