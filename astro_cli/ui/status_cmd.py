"""`/status`: the session's model, the profile it was given and why, the local server it talks to,
the last turn's steps, the session's tokens and the last prompt as the server processed it.

While a turn runs the REPL takes no command, so the spinner shows the prompt processing live
("processing prompt 5,548 tokens (1,200 cached)…"); `/status` shows the last request's figures
afterwards (agent/model_activity.py keeps them).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from rich.table import Table

from astro_cli.agent.profiles import profile_reason
from astro_cli.security.visible import rich_text
from astro_cli.slash import SlashContext
from astro_cli.ui.render import usage_line


def status(ctx: SlashContext, args: str) -> None:
    session = ctx.session
    if session is None:
        ctx.console.print("no session is open")
        return
    settings, config, current = ctx.app.settings, session.llm.config, session.llm.current
    rows: list[tuple[str, str]] = [("model", f"{current.name} ({current.origin or 'this session'})")]
    why = profile_reason(settings.typed["profile"], settings.source("profile"), session.model, config.context_window)
    rows.append(("profile", f"{session.profile} ({why})"))
    if config.server_kind or config.context_window:
        window = f" · context window {config.context_window:,} tokens" if config.context_window else ""
        rows.append(("server", f"{config.server_kind or 'a local server'} at {_address(config.api_base)}{window}"))
    elif config.api_base:
        rows.append(("server", _address(config.api_base)))
    activity = ctx.activity
    if activity is not None and activity.step:
        rows.append(("steps", f"{activity.step} of {activity.max_steps} in the last turn"))
    totals = ctx.app.sessions.usage_totals(session.session_id)
    if totals["requests"]:
        requests = f"{totals['requests']} request" + ("s" if totals["requests"] != 1 else "")
        rows.append(("tokens", usage_line(totals, label=f"{requests} ·").plain))
    else:
        rows.append(("tokens", "no model requests in this session yet"))
    if activity is not None and activity.last_prompt is not None:
        rows.append(("last prompt", activity.last_prompt.line()))
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
    table.add_column(style="cyan", no_wrap=True)
    table.add_column()
    for name, value in rows:
        table.add_row(name, rich_text(value))  # the model and server may come from a project's config
    ctx.console.print(table)


def _address(url: str | None) -> str:
    """The server's address without any user or password written into it."""
    try:
        parts = urlsplit(url or "")
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a port that is no number
        return "(an address that is not a URL)"
    if not parts.hostname:
        return "(none)" if not url else "(an address that is not a URL)"
    return f"{parts.scheme}://{parts.hostname}{port}{parts.path}"
