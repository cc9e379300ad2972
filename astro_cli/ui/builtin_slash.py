"""The REPL's own slash commands, registered into the same table features use (`slash_commands(app)`).

/help /exit /clear /model /status /sessions /resume /cost /tools /config /sources /tool (alias /expand).
They talk to the REPL only through SlashContext (its actions and `state["turn_log"]`), so a
feature's command and a built-in one are equal citizens of the table.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from astro_cli.security.visible import clipped, one_line, rich_text, visible
from astro_cli.slash import SlashCommand, SlashContext, slash_commands
from astro_cli.ui.render import format_cost, usage_line
from astro_cli.ui.status_cmd import status

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.ui.turnlog import TurnLog

KEYS_HELP = (
    "Enter sends · Esc-Enter (or Alt-Enter, or a line ending in \\) adds a new line · Tab completes "
    "commands · Ctrl-C cancels the running turn or clears the line · Ctrl-D quits"
)


def _help(ctx: SlashContext, args: str) -> None:
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for name, command in sorted(slash_commands(ctx.app).items()):
        # Usage is written either whole ("/bg [cancel bg-N]") or as the arguments alone ("[N]").
        usage = command.usage if command.usage.startswith("/") else f"/{name} {command.usage}".rstrip()
        table.add_row(rich_text(usage), rich_text(command.help))
    ctx.console.print(table)
    ctx.console.print(Text(KEYS_HELP, style="dim"))


def _exit(ctx: SlashContext, args: str) -> None:
    ctx.exit()


def _clear(ctx: SlashContext, args: str) -> None:
    ctx.new_session()


def _model(ctx: SlashContext, args: str) -> None:
    session = ctx.session
    name = args.strip()
    if not name:
        current = session.model if session else ctx.app.settings.typed["model"]
        ctx.console.print(Text.assemble("model: ", (visible(str(current)), "bold"),
                                        " (change it with /model NAME, any litellm model string)"))
        return
    if " " in name:
        ctx.console.print("[yellow]A model name has no spaces, e.g. /model anthropic/claude-sonnet-4-5[/]")
        return
    if session is None:
        ctx.console.print("[yellow]No session is open to switch the model of.[/]")
        return
    from astro_cli.agent.model_aliases import resolve

    name = resolve(name)  # `/model sonnet`: the alias's current model
    session.switch_model(name, "/model in the REPL")  # /clear keeps it, /resume takes the resumed one's
    ctx.console.print(Text.assemble("model for the next turns: ", (visible(name), "bold")))


def _sessions(ctx: SlashContext, args: str) -> None:
    rows = ctx.app.sessions.list(limit=20)
    if not rows:
        ctx.console.print("no sessions yet")
        return
    current = ctx.session.session_id if ctx.session else None
    table = Table(box=None, padding=(0, 2, 0, 0))
    for column in ("id", "updated", "messages", "tokens", "cost", "title"):
        table.add_column(column, no_wrap=column != "title", style="cyan" if column == "id" else None)
    for row in rows:
        mark = " *" if row["id"] == current else ""
        table.add_row(
            row["id"] + mark, row["updated_at"].replace("T", " ")[:16], str(row["messages"]),
            f"{row['tokens']:,}", format_cost(row["cost_usd"]) if row["tokens"] else "", rich_text(row["title"] or ""),
        )
    ctx.console.print(table)
    ctx.console.print(Text("* this session · /resume ID switches to another", style="dim"))


def _resume(ctx: SlashContext, args: str) -> None:
    if not args.strip():
        _sessions(ctx, "")
        return
    ctx.switch_session(args.strip())


def _cost(ctx: SlashContext, args: str) -> None:
    if ctx.session is None:
        return
    totals = ctx.app.sessions.usage_totals(ctx.session.session_id)
    if not totals["requests"]:
        ctx.console.print("no model requests in this session yet")
        return
    requests = f"{totals['requests']} request" + ("s" if totals["requests"] != 1 else "")
    ctx.console.print(usage_line(totals, label=f"session {ctx.session.session_id}: {requests} ·"))
    if totals["cost_usd"] is None:
        ctx.console.print(Text("litellm has no price for this model, so the cost is unknown", style="dim"))
    elif totals.get("unpriced"):
        ctx.console.print(Text("litellm has no price for some of these requests, so the cost is a lower bound", style="dim"))


def _tools(ctx: SlashContext, args: str) -> None:
    tools = ctx.session.visible_tools() if ctx.session else ctx.app.tools.ordered()
    policy = ctx.session.permissions if ctx.session else None
    table = Table(box=None, padding=(0, 2, 0, 0))
    table.add_column("tool", style="bold cyan", no_wrap=True)
    table.add_column("permission", no_wrap=True)
    table.add_column("what it does")
    for tool in tools:
        if policy is not None and policy.denies(tool.name):
            permission = "[red]denied[/]"
        elif not tool.needs_permission:
            permission = "[dim]-[/]"
        elif policy is not None and policy.allows(tool.name):
            permission = "[green]allowed[/]"
        else:
            permission = "[yellow]asks[/]"
        table.add_row(rich_text(tool.name), permission, rich_text(tool.summary))
    ctx.console.print(table)


def _config(ctx: SlashContext, args: str) -> None:
    from astro_cli.config_schema import SCHEMA

    settings, wanted = ctx.app.settings, args.strip()
    if wanted and wanted != "all" and wanted not in SCHEMA:
        from astro_cli.suggest import did_you_mean

        ctx.console.print(Text(f"No setting '{visible(wanted)}'{did_you_mean(wanted, SCHEMA)}; "
                               "/config all lists every setting.", style="yellow"))
        return
    if wanted in SCHEMA:
        names = [wanted]
    elif wanted == "all":
        names = list(SCHEMA)
    else:
        names = [n for n in SCHEMA if n == "model" or settings.source(n) != "default"]
    table = Table(box=None, padding=(0, 2, 0, 0))
    table.add_column("setting", style="cyan", no_wrap=True)
    table.add_column("value")
    table.add_column("from", style="dim")
    for name in names:
        value, source = settings.get(name), settings.source(name)
        if name == "model":
            value, source = _model_in_use(ctx, value, source)
        table.add_row(name, rich_text(value if isinstance(value, str) else json.dumps(value)), rich_text(source))
    ctx.console.print(table)
    if wanted in SCHEMA:
        ctx.console.print(Text(SCHEMA[wanted].help, style="dim"))
    elif wanted != "all":
        ctx.console.print(Text("the model in use and the settings that differ from the defaults; /config all lists "
                               "every one, /config KEY one", style="dim"))
    ctx.console.print(Text(f"user config: {ctx.app.home.config_path}\nproject config: {ctx.app.workspace.config_path}", style="dim"))


def _model_in_use(ctx: SlashContext, configured: Any, source: str) -> tuple[Any, str]:
    """The model that is used, and why: the session's own (it owns the choice), else what a new session picks."""
    from astro_cli.agent.model_choice import model_choice

    choice = model_choice(ctx.app)  # the configured model with its source, or "picked from OPENAI_API_KEY"
    if ctx.session is not None:
        current = ctx.session.llm.current
        if current.switched:
            return current.name, current.origin
        if choice is None or choice.model != current.name:
            return current.name, "this session"
    return (choice.model, choice.origin) if choice is not None else (configured, source)


def _turn_log(ctx: SlashContext) -> TurnLog | None:
    return ctx.state.get("turn_log")


SOURCE_MARKS = {"cited": "green", "cited, found online": "green", "consulted": "dim", "unverified": "yellow"}


def _sources(ctx: SlashContext, args: str) -> None:
    log = _turn_log(ctx)
    sources = log.marked_sources() if log else []
    if not sources:
        ctx.console.print("no sources")
        return
    for number, (source, mark) in enumerate(sources, 1):
        line = Text(f"{number}. ", style="dim")
        line.append(f"[{mark}] ", style=SOURCE_MARKS.get(mark, "dim"))
        line.append(one_line(str(source.get("title") or source.get("id") or "untitled"), 300), style="bold")
        refs = [str(source[k]) for k in ("bibcode",) if source.get(k)]
        if source.get("arxiv_id"):
            refs.append(f"arXiv:{source['arxiv_id']}")
        if source.get("url"):
            refs.append(str(source["url"]))
        if not refs and source.get("kind") in ("bibcode", "arxiv", "doi") and source.get("title"):
            refs.append(("arXiv:" if source["kind"] == "arxiv" else "") + str(source["id"]))  # a cited id
        if refs:
            line.append("  " + one_line(" · ".join(refs), 300), style="cyan")
        ctx.console.print(line)


def _tool(ctx: SlashContext, args: str) -> None:
    log = _turn_log(ctx)
    if log is None or not log.calls:
        ctx.console.print("the last turn called no tools")
        return
    if not args.strip():
        for call in log.calls:
            status = "running" if call.ok is None else ("ok" if call.ok else "error")
            agent = f"[{call.agent}] " if call.agent != "main" else ""
            ctx.console.print(Text(f"  {call.index} {one_line(agent + call.name, 80)} {one_line(call.key_argument, 60)}"
                                   f" · {status}"))
        ctx.console.print(Text(f"/tool N shows call N in full (1-{len(log.calls)})", style="dim"))
        return
    try:
        record = log.get(int(args.strip().lstrip("#")))
    except ValueError:
        record = None
    if record is None:
        ctx.console.print(Text(f"No call {one_line(args.strip(), 40)}; the last turn made calls 1-{len(log.calls)}.",
                               style="yellow"))
        return
    status = "running" if record.ok is None else ("ok" if record.ok else "error")
    duration = f" · {record.duration:.2f}s" if record.duration is not None else ""
    ctx.console.print(Text(f"call {record.index}: {one_line(record.name, 80)} · {status}{duration}", style="bold"))
    ctx.console.print(Text("arguments:", style="dim"))
    ctx.console.print(Text(visible(json.dumps(record.arguments, indent=2, ensure_ascii=False, default=str))))
    ctx.console.print(Text("result:", style="dim"))
    ctx.console.print(Text(visible(record.content or "(empty)")))
    if record.data:
        data = json.dumps(record.data, ensure_ascii=False, default=str)
        ctx.console.print(Text("data: " + visible(clipped(data, 2000)), style="dim"))


BUILTINS: list[SlashCommand] = [
    SlashCommand("help", "list the commands and keys", _help),
    SlashCommand("exit", "leave astro (Ctrl-D does the same)", _exit),
    SlashCommand("quit", "same as /exit", _exit),
    SlashCommand("clear", "start a new session (the current one stays stored)", _clear),
    SlashCommand("model", "show the model, or switch to NAME for the next turns", _model, usage="/model [NAME]"),
    SlashCommand("status", "the model, its profile and server, steps, tokens and the last prompt's processing",
                 status),
    SlashCommand("sessions", "list the sessions of this workspace", _sessions),
    SlashCommand("resume", "switch to a stored session (a unique id prefix works)", _resume, usage="/resume ID"),
    SlashCommand("cost", "tokens and cost of this session so far", _cost),
    SlashCommand("tools", "the tools the model can use, and which ask permission", _tools),
    SlashCommand("config", "the model and the settings that differ from the defaults (all, or one KEY)", _config, usage="/config [all|KEY]"),
    SlashCommand("sources", "the sources of the last answer: cited, consulted or unverified", _sources),
    SlashCommand("tool", "show call N of the last turn in full (arguments and result)", _tool, usage="/tool [N]"),
    SlashCommand("expand", "same as /tool N", _tool, usage="/expand [N]"),
]


def register_builtins(app: AppContext) -> None:
    """Add the built-ins without replacing a feature's command of the same name."""
    for command in BUILTINS:
        slash_commands(app).register_default(command)
