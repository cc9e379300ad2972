"""What people see of tasks and background work: /tasks, /bg, and sections of `astro sessions show`."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from astro_cli.security.visible import visible
from astro_cli.tasks.bg_store import STATUS_MARKS, BgStore, BgTask, parse_task_id
from astro_cli.tasks.store import TaskStore, checklist, counts

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.slash import SlashContext


def _size(chars: int) -> str:
    if chars < 1000:
        return f"{chars} chars"
    if chars < 1_000_000:
        return f"{chars / 1000:.1f} k chars"
    return f"{chars / 1_000_000:.1f} M chars"


def _duration(task: BgTask) -> str:
    try:
        start = datetime.fromisoformat(task.started_at)
        end = datetime.fromisoformat(task.finished_at) if task.finished_at else datetime.now(start.tzinfo)
    except (TypeError, ValueError):
        return ""
    seconds = max(0, int((end - start).total_seconds()))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def tasks_text(app: AppContext, session_id: str) -> str:
    """The session's checklist with a count line, or a sentence saying there is no plan."""
    tasks = TaskStore(app.db).tasks(session_id)
    if not tasks:
        return "No task plan in this session yet (the agent makes one with todo_write for work of several steps)."
    c = counts(tasks)
    return (
        f"{checklist(tasks)}\n\n{c['completed']} done, {c['in_progress']} in progress, {c['pending']} pending"
    )


def bg_rows(app: AppContext, session_id: str | None) -> list[BgTask]:
    from astro_cli.store.sessions import now_iso

    store = BgStore(app.db)
    store.sweep_dead(now_iso())
    return store.list(session_id)


def bg_lines(tasks: list[BgTask]) -> list[str]:
    return [
        f"{t.label:<7} {STATUS_MARKS.get(t.status, '')} {t.status:<11} {_duration(t):>7}  "
        f"{_size(t.output_chars):>12}  {t.tool} {t.subject}".rstrip()
        for t in tasks
    ]


# --- slash commands ---------------------------------------------------------------------------
def slash_tasks(ctx: SlashContext, _: str) -> None:
    if ctx.session is None:
        ctx.console.print("No session is open.")
        return
    # Subjects and commands the model wrote: shown, never sent to the terminal as control.
    ctx.console.print(visible(tasks_text(ctx.app, ctx.session.session_id)), markup=False, highlight=False)


def slash_bg(ctx: SlashContext, rest: str) -> None:
    if ctx.session is None:
        ctx.console.print("No session is open.")
        return
    words = rest.split()
    if words[:1] == ["cancel"]:
        _cancel(ctx, words[1] if len(words) > 1 else "")
        return
    tasks = bg_rows(ctx.app, ctx.session.session_id)
    if not tasks:
        ctx.console.print("No background tasks in this session.")
        return
    ctx.console.print(visible("\n".join(bg_lines(tasks))), markup=False, highlight=False)


def _cancel(ctx: SlashContext, raw: str) -> None:
    from astro_cli.tasks.background import background_manager

    task_id = parse_task_id(raw)
    if task_id is None:
        ctx.console.print("Usage: /bg cancel bg-N", markup=False)
        return
    if background_manager(ctx.app).cancel(task_id):
        ctx.console.print(f"bg-{task_id} was asked to stop.", markup=False)
    else:
        ctx.console.print(f"bg-{task_id} is not running in this astro.", markup=False)


# --- sections of `astro sessions show` / export -----------------------------------------------
def tasks_section(app: AppContext, row: dict[str, Any]) -> str | None:
    tasks = TaskStore(app.db).tasks(row["id"])
    if not tasks:
        return None
    return "\n".join(f"- {task.line()}" for task in tasks)


def background_section(app: AppContext, row: dict[str, Any]) -> str | None:
    tasks = bg_rows(app, row["id"])
    if not tasks:
        return None
    return "```\n" + "\n".join(bg_lines(tasks)) + "\n```"
