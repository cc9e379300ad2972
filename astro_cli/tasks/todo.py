"""todo_write: the model's task plan, sent whole every time and kept per session in SQLite.

Sending the whole list (rather than edits) keeps the tool stateless for the model: what it sends
is what is stored. A list that cannot be right (an unknown dependency, a duplicate id, two items
in progress) is refused with the reason, and the stored plan is left as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, TypedDict

from astro_cli.tasks.events import TasksUpdated
from astro_cli.tasks.store import InvalidTaskList, Task, TaskStore, checklist, counts, parse_tasks
from astro_cli.tools.base import Tool, ToolError, ToolResult
from astro_cli.tools.context import ToolContext
from astro_cli.tools.typed import Limits, as_tool, tool

if TYPE_CHECKING:
    from astro_cli.app import AppContext

DESCRIPTION = (
    "Save this session's task plan; send the whole list every time. "
    "Use it for work of several steps (a literature review, a comparison of many papers): plan first, "
    "keep one item in_progress while you work on it, mark it completed as soon as it is done. "
    "The plan is shown to you again at the start of each turn."
)

class _TodoRequired(TypedDict):
    id: Annotated[str, "Short unique id, e.g. task-1."]
    content: Annotated[str, "What the task is, one line."]
    status: Literal["pending", "in_progress", "completed"]


class TodoItem(_TodoRequired, total=False):
    """One item of the plan, as the model sends it (the keys above are required, these are not)."""

    depends_on: Annotated[list[str], "Ids of tasks that must be done first."]
    assignee: Annotated[str, "Who does it (lead, a teammate's name)."]


def task_store(app: AppContext) -> TaskStore:
    """The app's one TaskStore (opens the database on first use)."""
    return app.service(TaskStore, lambda: TaskStore(app.db))


def tasks_event(session_id: str, tasks: list[Task]) -> TasksUpdated:
    return TasksUpdated(session_id=session_id, tasks=[t.to_dict() for t in tasks], text=checklist(tasks))


def summary_line(tasks: list[Task]) -> str:
    c = counts(tasks)
    if not tasks:
        return "Task list cleared."
    line = (
        f"Task list saved: {len(tasks)} tasks ({c['completed']} done, {c['in_progress']} in progress, "
        f"{c['pending']} pending)."
    )
    if c["completed"] == len(tasks):
        line += " Every task is done."
    return line


@tool(name="todo_write", read_only=False, timeout=30, needs=TaskStore, description=DESCRIPTION)
def todo_write(ctx: ToolContext, store: TaskStore,
               todos: Annotated[list[TodoItem], Limits(extra_keys=True)]) -> ToolResult:
    """Args:
        todos: The complete task list (an empty list clears the plan).
    """
    from astro_cli.store.sessions import now_iso

    try:
        tasks = parse_tasks(todos, bool(ctx.settings.typed["tasks.single_in_progress"]))
    except InvalidTaskList as exc:
        raise ToolError(f"The task list was not saved: {exc} Send the whole corrected list.") from None
    store.replace(ctx.session_id, tasks, now_iso())
    ctx.emit(tasks_event(ctx.session_id, tasks))
    return ToolResult(summary_line(tasks), data={"tasks": [t.to_dict() for t in tasks]})


def todo_tool(app: AppContext) -> Tool:
    app.services.provide(TaskStore, lambda: task_store(app))  # what todo_write declares it needs
    return as_tool(todo_write)
