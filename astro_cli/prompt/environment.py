"""The trailing environment message (002): per-step facts, sent last, never stored.

Keeping time, budget and counters out of the system prompt is what lets the provider's prompt
cache serve the system prompt, the tools and the whole stored history on every step.
"""

from __future__ import annotations

import platform
from datetime import datetime
from typing import Any

from astro_cli.prompt.tags import escape_tags


def base_facts(workspace: str, model: str, step: int, max_steps: int, usage: dict[str, Any]) -> dict[str, str]:
    """The facts every agent's environment message carries; features add theirs after these."""
    return {
        "workspace": workspace,
        "model": model,
        "steps": f"{step} of {max_steps} used",
        "tokens this turn": f"{usage.get('input_tokens', 0)} in, {usage.get('output_tokens', 0)} out",
    }


def environment_message(facts: dict[str, Any], now: datetime | None = None) -> dict[str, str]:
    """A user message listing `facts` (date, workspace, os, model, steps, tokens, tasks, retries)."""
    now = now or datetime.now().astimezone()
    lines = [
        "<environment>",
        f"date: {now.strftime('%Y-%m-%d %H:%M %Z (%A)')}",
        f"os: {platform.system()} {platform.release()}",
    ]
    # Values can carry text the model or a file wrote (task names, paths): never astro's tags.
    lines += [escape_tags(f"{key}: {value}") for key, value in facts.items() if value not in (None, "")]
    lines.append("</environment>")
    return {"role": "user", "content": "\n".join(lines)}
