"""What the agent sees of project memory: a fixed note in the system prompt, and with each of the
researcher's messages a `<project-memory-context>` block of the memories chosen for that message.

Each selected memory is `[type] slug: description [mark]`, up to three lines of its body and, when it
is more than a day old, a staleness note with its age in whole days. The block is stored next to the
message it was chosen for, so the system prompt stays byte-identical from turn to turn and a new
topic costs the provider's cache only the new block, not the whole history after the system prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from astro_cli.memory.select import Scored
from astro_cli.prompt.tags import escape_tags

OPEN = "<project-memory-context>"
CLOSE = "</project-memory-context>"
HEADER = "[PROJECT MEMORY] The saved memories most relevant to this request (full text in memory/<slug>.md):"
SECTION = (
    "[PROJECT MEMORY] This project keeps memories in memory/<slug>.md: the researcher's preferences and "
    "feedback, facts about the project, references. With a message of the researcher, the memories most "
    f"relevant to it arrive in a {OPEN} block. Save important new information with the save_memory "
    "tool. Memories can be out of date: verify them before relying on them."
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


def latest_block(messages: Sequence[dict[str, Any]]) -> str | None:
    """The last memory block in a conversation (None if there is none)."""
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str) and content.startswith(f"{OPEN}\n{HEADER}"):
            return content
    return None


def render_block(selected: Sequence[Scored], now: datetime) -> str:
    lines = [OPEN, HEADER]
    for item in selected:
        memory = item.memory
        head = f"[{memory.type}] {memory.slug}: {memory.description}"
        lines.append(_safe(f"{head} {memory.mark}" if memory.mark else head))
        lines += [_safe("  " + line) for line in preview(memory.body)]
        note = staleness_note(memory.updated, now)
        if note:
            lines.append("  " + note)
    lines.append(CLOSE)
    return "\n".join(lines)
