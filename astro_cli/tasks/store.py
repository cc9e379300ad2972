"""The task plan of each session, kept in the `agent_tasks` table.

The model sends the whole list with todo_write; the store checks it and replaces the session's
rows in one transaction, so a crash leaves either the old plan or the new one, never half. The
recovery text (`format_state`) is what the model reads at the start of each turn and after a
compaction, so it can pick up where it left off.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.store.db import Database

STATUSES = ("pending", "in_progress", "completed")
MAX_TASKS = 200
MARKS = {"pending": "⏳", "in_progress": "🔄", "completed": "✅"}

STATE_HEADER = "[Current task state]"
STATE_INTRO = "The task plan saved in this session; continue from its latest state:"
STATE_REMINDER = "Update it with the todo_write tool as you make progress."


class InvalidTaskList(ValueError):
    """A list todo_write must refuse; the message says why in one sentence."""


@dataclass
class Task:
    id: str
    content: str
    status: str = "pending"
    depends_on: list[str] = field(default_factory=list)
    assignee: str | None = None

    def to_dict(self) -> dict[str, Any]:
        item: dict[str, Any] = {"id": self.id, "content": self.content, "status": self.status}
        if self.depends_on:
            item["depends_on"] = list(self.depends_on)
        if self.assignee:
            item["assignee"] = self.assignee
        return item

    def line(self) -> str:
        """One line of the checklist: mark, id, content, dependencies, assignee."""
        extras = []
        if self.depends_on:
            extras.append("depends on: " + ", ".join(self.depends_on))
        if self.assignee:
            extras.append("assignee: " + self.assignee)
        tail = f" ({'; '.join(extras)})" if extras else ""
        return f"{MARKS[self.status]} [{self.id}] {self.content}{tail}"


def _text(value: Any, what: str, position: int) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise InvalidTaskList(f"item {position} has no {what} (a non-empty string is needed).")
    return value.strip()


def parse_tasks(items: Any, single_in_progress: bool = True) -> list[Task]:
    """Check a whole list as todo_write received it; raise InvalidTaskList with the reason."""
    if isinstance(items, str):  # some models send the array as JSON text
        try:
            items = json.loads(items)
        except ValueError:
            pass
    if not isinstance(items, list):
        raise InvalidTaskList("'todos' must be a list of items (send an empty list to clear the plan).")
    if len(items) > MAX_TASKS:
        raise InvalidTaskList(f"the list has {len(items)} items; keep a plan under {MAX_TASKS} items.")
    tasks: list[Task] = []
    seen: set[str] = set()
    for position, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise InvalidTaskList(f"item {position} is not an object with id, content and status.")
        task_id = _text(item.get("id"), "id", position)
        if task_id in seen:
            raise InvalidTaskList(f"the id '{task_id}' is used by more than one item; ids must be unique.")
        seen.add(task_id)
        status = item.get("status", "pending")
        if status not in STATUSES:
            raise InvalidTaskList(
                f"task '{task_id}' has status {status!r}; use one of pending, in_progress, completed."
            )
        depends = item.get("depends_on") or []
        if isinstance(depends, str):
            depends = [depends]
        if not isinstance(depends, list):
            raise InvalidTaskList(f"depends_on of task '{task_id}' must be a list of task ids.")
        assignee = item.get("assignee")
        if assignee is not None and not isinstance(assignee, str):
            raise InvalidTaskList(f"assignee of task '{task_id}' must be a string.")
        tasks.append(
            Task(
                id=task_id,
                content=_text(item.get("content"), "content", position),
                status=status,
                depends_on=[_text(d, "dependency id", position) for d in depends],
                assignee=(assignee or "").strip() or None,
            )
        )
    _check_dependencies(tasks)
    if single_in_progress:
        busy = [t.id for t in tasks if t.status == "in_progress"]
        if len(busy) > 1:
            raise InvalidTaskList(
                f"{len(busy)} tasks are in progress ({', '.join(busy)}); keep exactly one in progress "
                "at a time (config 'tasks.single_in_progress')."
            )
    return tasks


def _check_dependencies(tasks: list[Task]) -> None:
    ids = {t.id for t in tasks}
    for task in tasks:
        for dep in task.depends_on:
            if dep == task.id:
                raise InvalidTaskList(f"task '{task.id}' depends on itself.")
            if dep not in ids:
                raise InvalidTaskList(f"task '{task.id}' depends on '{dep}', which is not in the list.")
    graph = {t.id: t.depends_on for t in tasks}
    state: dict[str, int] = {}  # 1: being visited, 2: done

    def visit(node: str, path: list[str]) -> None:
        if state.get(node) == 2:
            return
        if state.get(node) == 1:
            cycle = path[path.index(node):] + [node]
            raise InvalidTaskList(f"the dependencies form a cycle ({' -> '.join(cycle)}).")
        state[node] = 1
        path.append(node)
        for dep in graph[node]:
            visit(dep, path)
        path.pop()
        state[node] = 2

    for node in graph:
        visit(node, [])


def checklist(tasks: list[Task]) -> str:
    return "\n".join(task.line() for task in tasks)


def counts(tasks: list[Task]) -> dict[str, int]:
    result = {status: 0 for status in STATUSES}
    for task in tasks:
        result[task.status] += 1
    return result


class TaskStore:
    """Reads and replaces the task list of a session."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def tasks(self, session_id: str) -> list[Task]:
        rows = self.database.query(
            "SELECT * FROM agent_tasks WHERE session_id = ? ORDER BY position", (session_id,)
        )
        return [
            Task(
                id=row["id"],
                content=row["content"],
                status=row["status"],
                depends_on=json.loads(row["depends_on"] or "[]"),
                assignee=row["assignee"],
            )
            for row in rows
        ]

    def replace(self, session_id: str, tasks: list[Task], stamp: str) -> None:
        """Store `tasks` as the session's whole plan, atomically."""
        with self.database.lock:
            self.database.execute("BEGIN IMMEDIATE")
            try:
                self.database.execute("DELETE FROM agent_tasks WHERE session_id = ?", (session_id,))
                for position, task in enumerate(tasks):
                    self.database.execute(
                        "INSERT INTO agent_tasks (session_id, id, content, status, depends_on, assignee, "
                        "position, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            session_id, task.id, task.content, task.status,
                            json.dumps(task.depends_on, ensure_ascii=False), task.assignee, position, stamp,
                        ),
                    )
            except BaseException:
                self.database.execute("ROLLBACK")
                raise
            self.database.execute("COMMIT")

    def open_count(self, session_id: str) -> tuple[int, int]:
        """(unfinished, all) tasks of the session, for the environment message."""
        row = self.database.query(
            "SELECT count(*) AS total, sum(CASE WHEN status != 'completed' THEN 1 ELSE 0 END) AS open "
            "FROM agent_tasks WHERE session_id = ?",
            (session_id,),
        )[0]
        return int(row["open"] or 0), int(row["total"] or 0)

    def format_state(self, session_id: str) -> str | None:
        """The `[Current task state]` recovery text, or None when no task is unfinished."""
        tasks = self.tasks(session_id)
        if not any(task.status != "completed" for task in tasks):
            return None
        return f"{STATE_HEADER}\n{STATE_INTRO}\n\n{checklist(tasks)}\n\n{STATE_REMINDER}"
