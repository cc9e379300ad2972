"""The task plan's event: the plan changed or was restored (renderers show a checklist).

A feature's own events live in its package (agent/events.py has the loop's); they are `Event`s of the
one bus, so renderers, persistence and hooks receive them as any other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from astro_cli.agent.events import Event


@dataclass
class TasksUpdated(Event):
    """The session's task plan changed (todo_write) or was restored: renderers show it as a checklist.

    `tasks` holds dicts with id, content, status (pending | in_progress | completed), depends_on,
    assignee; `text` is the same list already rendered, one line per task with a ⏳ 🔄 ✅ mark.
    """

    type = "tasks_updated"
    session_id: str
    tasks: list[dict[str, Any]]
    text: str
