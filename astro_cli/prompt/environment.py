"""The trailing environment message (002): per-step facts, sent last, never stored.

Keeping time, budget and counters out of the system prompt is what lets the provider's prompt
cache serve the system prompt, the tools and the whole stored history on every step. The message
is a snapshot of the runtime context (context.py): each source's facts under a `[source]` line,
so the model (and `astro prompt show`) can tell what said what.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from astro_cli.prompt.context import ContextEntry, ContextSource
from astro_cli.prompt.tags import escape_tags

if TYPE_CHECKING:
    from astro_cli.agent.extensions import LoopExtension, TurnView
    from astro_cli.usage import Usage

SESSION_SOURCE = "session"  # the loop's own facts: date, os, workspace, model, steps, tokens
ORDER_SESSION = 0
ORDER_EXTENSIONS = 100  # loop extensions' facts (open tasks, background work), in install order
ORDER_RETRIES = 900


def session_facts(workspace: str, model: str, step: int, max_steps: int, usage: Usage,
                  now: datetime | None = None) -> dict[str, str]:
    """The facts every agent's environment message carries first."""
    now = now or datetime.now().astimezone()
    return {
        "date": now.strftime("%Y-%m-%d %H:%M %Z (%A)"),
        "os": f"{platform.system()} {platform.release()}",
        "workspace": workspace,
        "model": model,
        "steps": f"{step} of {max_steps} used",
        "tokens this turn": f"{usage.input_tokens} in, {usage.output_tokens} out",
    }


def session_sources(workspace: str, model: str, state: TurnView, extensions: Sequence[LoopExtension],
                    retry_notes: list[str]) -> list[ContextSource]:
    """An agent session's own sources: its facts, each loop extension's `environment_facts` under the
    extension's name, and the notes of failed attempts of this step's request."""

    def extension_source(ext: LoopExtension) -> ContextSource:
        return ContextSource(ext.context_name(), ORDER_EXTENSIONS, lambda data: ext.environment_facts(state))

    return [
        ContextSource(SESSION_SOURCE, ORDER_SESSION, lambda data: session_facts(
            workspace, model, state.tool_steps, state.max_steps, state.usage)),
        *[extension_source(ext) for ext in extensions],
        ContextSource("retries", ORDER_RETRIES,
                      lambda data: {"retry notes": "; ".join(retry_notes[-3:])} if retry_notes else None),
    ]


def environment_text(entries: Sequence[ContextEntry]) -> str | None:
    """The message's text: every source's facts under its `[source]` line; None when there are none."""
    if not entries:
        return None
    lines = ["<environment>"]
    for entry in entries:
        # Sources and values can carry text from outside (a plugin's name, task titles, paths): never astro's tags.
        lines.append(escape_tags(f"[{entry.source}]"))
        lines += [escape_tags(f"{key}: {value}") for key, value in entry.facts.items()]
    lines.append("</environment>")
    return "\n".join(lines)


def environment_message(entries: Sequence[ContextEntry]) -> dict[str, str] | None:
    """The user message that ends each request, or None: no runtime context, no message."""
    text = environment_text(entries)
    return {"role": "user", "content": text} if text is not None else None
