"""Runtime nudges: user messages appended when the agent drifts, never edits of the system prompt.

- stale plan: the task list has open items and no todo_write succeeded for N steps in a row;
- diminishing returns: N steps in a row brought nothing new: every call repeated an earlier call of
  this turn with the same result, or read something (a read-only tool) only to get a result already
  seen this turn. A new call that changes things (a file write, a command) is progress even when its
  result looks like an earlier one ("[exit code 0]");
- background done: a bg_task_run task ended since the model last looked.

The step-budget nudge and the empty-reply rule live in the loop itself (agent/loop.py). Each nudge
is stored as a message of kind 'nudge' and shown dimmed; docs/tasks.md has the texts.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from astro_cli.agent.extensions import LoopExtension, ToolCallInfo
from astro_cli.tasks.bg_store import BgTask
from astro_cli.tasks.todo import task_store

if TYPE_CHECKING:
    from astro_cli.agent.extensions import TurnView
    from astro_cli.app import AppContext
    from astro_cli.tools.base import ToolResult

STALE_PLAN_TEXT = (
    "Reminder: your task plan still has open items and has not been updated for {steps} steps. "
    "Call todo_write with the whole list: mark finished items completed and the one you are working on "
    "in_progress (or drop items that no longer matter)."
)
DIMINISHING_TEXT = (
    "Your last {steps} steps brought nothing new: the same tool calls again, or results you already had. "
    "Stop gathering and give your final answer now from everything collected so far; say what is still open."
)
BACKGROUND_DONE_HEADER = "[Background task done]"
BACKGROUND_STOPPED_HEADER = "[Background task interrupted]"


def background_line(task: BgTask) -> str:
    """One announcement line: header, mark, tool, subject, short summary, and how to read the rest."""
    subject = f" {task.subject}:" if task.subject else ""
    if task.status in ("completed", "failed"):
        mark = "✅" if task.status == "completed" else "❌"
        how = (
            f" ({task.label}, {task.output_chars} characters of output; bg_task_run with "
            f"task_id '{task.label}' reads all of it)"
        )
        summary = task.summary or "(no output)"
        return f"{BACKGROUND_DONE_HEADER} {mark} {task.tool}:{subject} {summary}{how}"
    return (
        f"{BACKGROUND_STOPPED_HEADER} ⚠️ {task.tool}:{subject} {task.summary}; no result was "
        f"recorded ({task.label}). Start it again if you still need it."
    )


@dataclass
class _Call:
    name: str
    key: str
    result: str
    ok: bool
    read_only: bool = True


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", errors="replace")).hexdigest()


class Nudges(LoopExtension):
    """Counts steps per turn and injects the stale-plan, diminishing-returns and background nudges."""

    def __init__(self, app: AppContext) -> None:
        self.app = app  # settings, tools, task store (the session hands out no app)
        self._reset()

    def _reset(self) -> None:
        self.step_calls: list[_Call] = []
        self.stale_steps = 0
        self.dull_steps = 0
        self.seen_pairs: set[str] = set()
        self.seen_results: set[str] = set()

    def on_turn_start(self, state: TurnView) -> None:
        self._reset()

    def before_request(self, state: TurnView) -> None:
        app = self.app
        if not app.settings.typed["nudges.background_done"]:
            return
        from astro_cli.tasks.background import background_manager

        store = background_manager(app).store
        ended = store.unannounced(state.session.session_id)
        if ended:
            state.inject("\n".join(background_line(task) for task in ended), kind="nudge")
            store.mark_announced([task.id for task in ended])

    def after_tool(self, state: TurnView, info: ToolCallInfo, result: ToolResult) -> ToolResult | None:
        key = info.call.name + " " + json.dumps(info.arguments, sort_keys=True, ensure_ascii=False, default=str)
        tool = self.app.tools.get(info.call.name)
        read_only = tool is None or tool.read_only
        self.step_calls.append(
            _Call(info.call.name, _digest(key), _digest(result.content), not result.is_error, read_only)
        )
        return None

    def on_step_complete(self, state: TurnView) -> None:
        calls, self.step_calls = self.step_calls, []
        self._check_stale_plan(state, calls)
        self._check_diminishing(state, calls)

    def _check_stale_plan(self, state: TurnView, calls: list[_Call]) -> None:
        limit = int(self.app.settings.typed["nudges.stale_plan_steps"] or 0)
        if any(call.name == "todo_write" and call.ok for call in calls):
            self.stale_steps = 0
            return
        open_tasks, _ = task_store(self.app).open_count(state.session.session_id)
        if open_tasks == 0:
            self.stale_steps = 0
            return
        self.stale_steps += 1
        if limit > 0 and self.stale_steps >= limit:
            state.inject(STALE_PLAN_TEXT.format(steps=self.stale_steps), kind="nudge")
            self.stale_steps = 0

    def _check_diminishing(self, state: TurnView, calls: list[_Call]) -> None:
        limit = int(self.app.settings.typed["nudges.diminishing_returns_steps"] or 0)
        new = False
        for call in calls:
            pair = call.key + call.result
            if pair not in self.seen_pairs and (not call.read_only or call.result not in self.seen_results):
                new = True
            self.seen_pairs.add(pair)
            self.seen_results.add(call.result)
        self.dull_steps = 0 if new or not calls else self.dull_steps + 1
        if limit > 0 and self.dull_steps >= limit:
            state.inject(DIMINISHING_TEXT.format(steps=self.dull_steps), kind="nudge")
            self.dull_steps = 0

