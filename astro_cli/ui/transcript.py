"""A stored session as people read it: in the terminal, as Markdown, as JSON.

Features add to what a session shows (its task list, where compactions happened) by registering
a TranscriptSection on the app (`transcript_sections(app)`, astro_cli/transcript_sections.py).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from astro_cli.security.visible import visible
from astro_cli.transcript_sections import render_sections

if TYPE_CHECKING:
    from astro_cli.app import AppContext


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def transcript_json(ctx: AppContext, row: dict[str, Any]) -> dict[str, Any]:
    messages = ctx.sessions.messages(row["id"])
    return {
        "session": row,
        "messages": [
            {"seq": m.seq, "turn": m.turn, "kind": m.kind, "created_at": m.created_at, "meta": m.meta, **m.message}
            for m in messages
        ],
        "usage": ctx.sessions.usage_totals(row["id"]),
        "children": ctx.sessions.children(row["id"]),
        # What features add to a session (its task list, background work, compactions), as Markdown.
        "sections": [{"title": title, "text": text} for title, text in render_sections(ctx, row)],
    }


def transcript_markdown(ctx: AppContext, row: dict[str, Any]) -> str:
    lines = [f"# Session {row['id']}", ""]
    lines.append(f"- workspace: {row['workspace']}")
    lines.append(f"- model: {row['model']}")
    lines.append(f"- started: {row['created_at']}, updated: {row['updated_at']}")
    totals = ctx.sessions.usage_totals(row["id"])
    cost = "unknown" if totals["cost_usd"] is None else f"${totals['cost_usd']:.4f}"
    lines.append(f"- tokens: {totals['input_tokens']} in, {totals['output_tokens']} out; cost {cost}")
    lines.append("")
    for stored in ctx.sessions.messages(row["id"]):
        message = stored.message
        role = message["role"]
        if stored.kind not in ("message",):
            lines.append(f"**{stored.kind}** ({role}):")
            lines.append("")
            lines.append("> " + _text(message).replace("\n", "\n> "))
        elif role == "user":
            lines.append("## User")
            lines.append("")
            lines.append(_text(message))
        elif role == "assistant":
            lines.append("## Assistant")
            lines.append("")
            if _text(message):
                lines.append(_text(message))
            for call in message.get("tool_calls") or []:
                lines.append(f"- tool call `{call['function']['name']}` `{call['function']['arguments']}`")
        elif role == "tool":
            ok = stored.meta.get("ok", True)
            lines.append(f"### Tool result: {message.get('name')} ({'ok' if ok else 'error'})")
            lines.append("")
            lines.append("```")
            lines.append(_text(message)[:4000])
            lines.append("```")
        lines.append("")
    for title, body in render_sections(ctx, row):
        lines += [f"## {title}", "", body, ""]
    for child in ctx.sessions.children(row["id"]):
        lines.append(f"- sub-session {child['id']} ({child['agent'] or 'subagent'}): `astro sessions show {child['id']}`")
    # Stored text came from the model, files and commands: no control sequence reaches a terminal.
    return visible("\n".join(lines).rstrip()) + "\n"


def print_transcript(ctx: AppContext, row: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(transcript_markdown(ctx, row)))


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)
