"""The `<project-memory-context>` block: what the agent sees of project memory in its system prompt.

Each selected memory is `[type] slug: description [mark]`, up to three lines of its body and, when it
is more than a day old, a staleness note with its age in whole days. Whole days matter: the text
must not change between the steps of one turn, or the provider's prompt cache would be lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from astro_cli.memory.select import Scored
from astro_cli.prompt.tags import escape_tags

OPEN = "<project-memory-context>"
CLOSE = "</project-memory-context>"
HEADER = "[PROJECT MEMORY] The saved memories most relevant to this request (full text in memory/<slug>.md):"
EMPTY = "[PROJECT MEMORY] No memories are saved for this project yet."
CLOSING = (
    "Save important information (the researcher's preferences and feedback, project facts, references) "
    "with the save_memory tool. Memories can be out of date: verify them before relying on them."
)
PREVIEW_LINES = 3
PREVIEW_CHARS = 200


def age_days(updated: datetime, now: datetime) -> int:
    return max(0, int((now - updated).total_seconds() // 86400))


def staleness_note(updated: datetime, now: datetime) -> str | None:
    """A note for memories more than a day old; None for fresher ones."""
    if now - updated <= timedelta(days=1):
        return None
    days = age_days(updated, now)
    unit = "day" if days == 1 else "days"
    return f"[this memory is {days} {unit} old and may be out of date; verify it before relying on it]"


def _safe(text: str) -> str:
    """Memory files may come from elsewhere (a cloned project): they can never form astro's tags."""
    return escape_tags(text)


def preview(body: str) -> list[str]:
    lines = [line.rstrip() for line in body.splitlines() if line.strip()][:PREVIEW_LINES]
    return [line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…" for line in lines]


def render_block(selected: Sequence[Scored], now: datetime) -> str:
    lines = [OPEN, HEADER if selected else EMPTY]
    for item in selected:
        memory = item.memory
        head = f"[{memory.type}] {memory.slug}: {memory.description}"
        lines.append(_safe(f"{head} {memory.mark}" if memory.mark else head))
        lines += [_safe("  " + line) for line in preview(memory.body)]
        note = staleness_note(memory.updated, now)
        if note:
            lines.append("  " + note)
    lines += [CLOSING, CLOSE]
    return "\n".join(lines)
