"""Task-state recovery: the unfinished plan is handed back to the model at the start of every turn.

The plan lives in SQLite, not in the model's memory of the conversation: after a crash, a resume,
or a compaction that dropped the todo_write calls, the `[Current task state]` message (appended
after the user's message, as 003 §4.2 describes) is how the agent knows where it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.agent.extensions import LoopExtension
from astro_cli.tasks.todo import task_store, tasks_event

if TYPE_CHECKING:
    from astro_cli.agent.extensions import SessionView, TurnView
    from astro_cli.app import AppContext


class TaskRecovery(LoopExtension):
    context_source = "tasks"

    def __init__(self, app: AppContext) -> None:
        self.app = app  # its task store and background tasks (the session hands out no app)

    def on_session_start(self, session: SessionView) -> None:
        """A resumed session with a plan shows it to the user (the model gets it with the next turn)."""
        if not session.messages:
            return
        tasks = task_store(self.app).tasks(session.session_id)
        if any(task.status != "completed" for task in tasks):
            session.bus.emit(tasks_event(session.session_id, tasks))

    def on_session_fork(self, session: SessionView, source_id: str) -> None:
        """A fork goes on with the same plan (a copy: the two sessions' plans then part ways)."""
        store = task_store(self.app)
        tasks = store.tasks(source_id)
        if tasks:
            from astro_cli.store.sessions import now_iso

            store.replace(session.session_id, tasks, now_iso())

    def on_turn_start(self, state: TurnView) -> None:
        if not self.app.settings.typed["tasks.recovery"]:
            return
        text = task_store(self.app).format_state(state.session.session_id)
        if text:
            state.inject(text, kind="recovery")

    def environment_facts(self, state: TurnView) -> dict[str, str]:
        facts: dict[str, str] = {}
        open_tasks, total = task_store(self.app).open_count(state.session.session_id)
        if total:
            facts["open tasks"] = f"{open_tasks} of {total}"
        from astro_cli.tasks.background import background_manager

        running = background_manager(self.app).store.running_count(state.session.session_id)
        if running:
            facts["background tasks running"] = str(running)
        return facts
