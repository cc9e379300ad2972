"""What a compaction must not lose: the identity, the loaded skills, the task state, project memory.

Users of other agents complain most that compaction drops the rules they loaded and the plan
they were following. After each compaction astro adds one user message carrying them again: the
first part of each loaded skill (within 'compaction.skill_budget_chars'), the current task state,
the latest project-memory block, and, when four messages or fewer remain, the identity reminder of
003 section 6.3.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from astro_cli.prompt.tags import escape_tags

if TYPE_CHECKING:
    from astro_cli.app import AppContext

log = logging.getLogger(__name__)

RESTORE_HEADER = "[Context restored after compaction]"
IDENTITY_REMINDER = (
    "[Identity] You are a professional astrophysics research assistant. The messages above are a "
    "compacted summary of the earlier conversation. Your research task is to answer the user's question: "
    "continue from the key information in the summary, and use the tools to search for more when you need it."
)
IDENTITY_MAX_MESSAGES = 4


def skill_excerpt(name: str, body: str, budget: int) -> str:
    """The first part of a skill's body, cut at a line end near `budget` characters."""
    body = escape_tags(body.strip())  # skill files come from anywhere: never astro's tags
    if len(body) <= budget:
        return f"### Skill: {name}\n{body}"
    cut = body.rfind("\n", 0, budget)
    if cut < budget * 0.6:
        cut = budget
    return (
        f"### Skill: {name}\n{body[:cut].rstrip()}\n"
        f"[... the rest of this skill was left out; call load_skill '{name}' to read it again]"
    )


def task_state(app: AppContext, session_id: str) -> str | None:
    """The tasks feature's recovery text; None when that feature is absent or has nothing open."""
    try:
        from astro_cli.tasks.store import TaskStore
    except ImportError:
        return None
    try:
        return TaskStore(app.db).format_state(session_id)
    except Exception:  # noqa: BLE001 - no tasks table yet, or a broken row: compaction goes on without it
        log.debug("the task plan of session %s could not be read", session_id, exc_info=True)
        return None


def restore_text(
    app: AppContext, session_id: str, loaded_skills: dict[str, Any], remaining: int, skill_budget: int,
    memory_block: str | None = None, identity: str | None = None,
) -> str | None:
    """The re-injection message after a compaction that left `remaining` messages, or None.

    `memory_block` is the latest project-memory block of the conversation: a turn on the same topic
    stores none of its own, so the one the compaction may have cut is handed back here."""
    parts: list[str] = []
    if remaining <= IDENTITY_MAX_MESSAGES:  # config 'compaction.identity_prompt' replaces the built-in text
        parts.append(identity.strip() if identity and identity.strip() else IDENTITY_REMINDER)
    if loaded_skills and skill_budget > 0:
        excerpts = [
            skill_excerpt(name, str(body), skill_budget) for name, body in loaded_skills.items() if body
        ]
        if excerpts:
            parts.append(
                "These skills were loaded earlier in this session and are still in force:\n\n"
                + "\n\n".join(excerpts)
            )
    tasks = task_state(app, session_id)
    if tasks:
        parts.append(tasks)
    if memory_block:
        parts.append(memory_block)
    if not parts:
        return None
    return RESTORE_HEADER + "\n" + "\n\n".join(parts)
