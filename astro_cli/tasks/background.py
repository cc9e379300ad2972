"""bg_task_run and the BackgroundManager: another tool call run in a thread, its result in SQLite.

The tool returns at once with a task id; the manager runs the inner tool in a thread, stores the
result in `bg_tasks`, and tells the user (a Notice event). The model learns of it at its next
step (the nudge extension reads unannounced rows). Work outlives the turn that started it; on
exit it is cancelled (the tool's cancel event is set, run_bash kills its command) and the row
says 'cancelled'. Rows left 'running' by a crashed process are marked 'interrupted'.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.agent import events as ev
from astro_cli.agent.caller import Caller
from astro_cli.agent.extensions import LoopExtension, ToolCallInfo, ToolGate
from astro_cli.agent.stream import ToolCallRequest
from astro_cli.tasks.bg_store import (
    STATUS_MARKS,
    STOPPED_ON_EXIT,
    STOPPED_ON_REQUEST,
    BgStore,
    BgTask,
    parse_task_id,
)
from astro_cli.tools.base import Tool, ToolError, ToolResult
from astro_cli.tools.context import DetachedHost, ToolContext
from astro_cli.tools.execute import error_result, execute
from astro_cli.tools.processes import process_groups
from astro_cli.tools.registry import ToolRegistry
from astro_cli.tools.typed import as_tool, tool

if TYPE_CHECKING:
    from astro_cli.agent.extensions import TurnView
    from astro_cli.app import AppContext

log = logging.getLogger(__name__)

NOT_IN_BACKGROUND = {"bg_task_run", "todo_write"}
DEFAULT_TIMEOUT = 600.0
SHUTDOWN_GRACE = 3.0


@dataclass
class BgApprovals:
    """Per session: bg_task_run calls whose inner call the gate already approved (by call id)."""

    calls: set[str] = field(default_factory=set)

DESCRIPTION = (
    "Run another tool call in the background and get its task id at once. "
    "For slow work (a long run_bash, a batch of downloads): you are told when it finishes and can go on "
    "meanwhile. Give tool and arguments to start one; task_id alone reads a task's whole output; "
    "task_id with cancel=true stops it."
)


def _now() -> str:
    from astro_cli.store.sessions import now_iso

    return now_iso()


def subject_of(tool: Tool, arguments: dict[str, Any]) -> str:
    """What the call is about, for people and the announcement: the key argument or the first string."""
    value = arguments.get(tool.key_argument) if tool.key_argument else None
    if value is None:
        value = next((v for v in arguments.values() if isinstance(v, str) and v.strip()), "")
    return " ".join(str(value).split())[:80]


class BackgroundManager:
    """The background threads of one process; one per AppContext (app.service)."""

    def __init__(self, app: AppContext) -> None:
        self.app = app
        self.store = BgStore(app.db)  # opens the database first, so it closes after us
        process_groups(app)  # likewise: tasks are marked cancelled before their commands are killed
        self.lock = threading.Lock()
        self.running: dict[int, tuple[threading.Thread, threading.Event]] = {}
        self.stop_reasons: dict[int, str] = {}
        self.closed = False
        self.store.sweep_dead(_now())
        app.on_close(self.shutdown)

    def start(self, ctx: ToolContext, tool: Tool, arguments: dict[str, Any]) -> BgTask:
        limit = int(self.app.settings.typed["background.max_running"] or 0)
        with self.lock:
            if self.closed:
                raise ToolError("astro is shutting down; no background task can start now.")
            if limit > 0 and len(self.running) >= limit:
                labels = ", ".join(f"bg-{n}" for n in sorted(self.running))
                raise ToolError(
                    f"{len(self.running)} background tasks are already running ({labels}); wait for one to "
                    f"finish (config 'background.max_running' is {limit})."
                )
            task_id = self.store.create(ctx.session_id, ctx.turn, ctx.call_id, tool.name, arguments,
                                        subject_of(tool, arguments), _now())
            cancel = threading.Event()
            # The session's states go along (a subagent finds its caller); the turn's capabilities do not:
            # the turn may be over before the task is (tools/base.DetachedHost).
            inner = dataclasses.replace(ctx, call_id=f"bg-{task_id}", cancel=cancel, host=DetachedHost())
            thread = threading.Thread(target=self._run, args=(task_id, tool, inner, arguments),
                                      name=f"bg-{task_id}-{tool.name}", daemon=True)
            self.running[task_id] = (thread, cancel)
            thread.start()
        task = self.store.get(task_id)
        assert task is not None
        return task

    def _run(self, task_id: int, tool: Tool, ctx: ToolContext, arguments: dict[str, Any]) -> None:
        result = _call_tool(tool, ctx, arguments, tool.timeout or DEFAULT_TIMEOUT)
        with self.lock:
            self.running.pop(task_id, None)
            if self.closed:
                return
            reason = self.stop_reasons.pop(task_id, STOPPED_ON_EXIT) if ctx.cancel.is_set() else None
            status = "cancelled" if reason else "failed" if result.is_error else "completed"
            try:
                self.store.finish(task_id, status, result.content, _now(), summary=reason)
                task = self.store.get(task_id)
            except Exception:  # noqa: BLE001 - the database may be gone during exit
                log.debug("the end of background task %s could not be recorded", task_id, exc_info=True)
                return
        if task is not None:
            ctx.emit(ev.Notice(level="info", text=f"background task {notice_line(task)}"))

    def cancel(self, task_id: int) -> bool:
        """Ask a running task to stop; True when it was running in this process."""
        with self.lock:
            entry = self.running.get(task_id)
            if entry is None:
                return False
            self.stop_reasons[task_id] = STOPPED_ON_REQUEST
        entry[1].set()
        return True

    def shutdown(self) -> None:
        """Cancel every running task, give them a moment to stop, and record them as cancelled."""
        with self.lock:
            entries = dict(self.running)
        for _, cancel in entries.values():
            cancel.set()
        deadline = time.monotonic() + SHUTDOWN_GRACE
        for thread, _ in entries.values():
            thread.join(max(0.0, deadline - time.monotonic()))
        with self.lock:
            self.closed = True
            for task_id in entries:
                try:
                    self.store.finish(task_id, "cancelled", "", _now(), summary=STOPPED_ON_EXIT)
                except Exception:  # noqa: BLE001 - closing must not hide the real outcome
                    log.debug("background task %s could not be recorded as cancelled", task_id, exc_info=True)
            self.running.clear()


def _call_tool(tool: Tool, ctx: ToolContext, arguments: dict[str, Any], timeout: float) -> ToolResult:
    """Run the tool through the shared executor (tools/execute.py); what it did is the task's result."""
    run = execute(tool, ctx, arguments, timeout)
    own = run.result
    if run.ending == "done" or (run.ending == "stopped" and run.reason == "cancelled"):
        return own or error_result(f"{tool.name} returned nothing.")
    if run.reason == "cancelled":
        return ToolResult("[cancelled]", is_error=True)
    if run.ending == "stopped":
        detail = f"\n{own.content}" if own is not None and own.content else ""
        return error_result(f"{tool.name} did not finish within {timeout:g} s and was cancelled.{detail}")
    return error_result(f"{tool.name} did not finish within {timeout:g} s and could not be cancelled: it may "
                        "still be running, and its effect may still happen.")


def notice_line(task: BgTask) -> str:
    """bg-3 ✅ completed: run_bash sleep 1 — done [exit code 0]"""
    subject = f" {task.subject}" if task.subject else ""
    return f"{task.label} {STATUS_MARKS.get(task.status, '')} {task.status}: {task.tool}{subject} — {task.summary}"


def background_manager(app: AppContext) -> BackgroundManager:
    return app.service(BackgroundManager, lambda: BackgroundManager(app))


# --- the tool ---------------------------------------------------------------------------------
def inner_call(tools: ToolRegistry, order: list[str] | None, only_tools: Iterable[str] | None,
               args: dict[str, Any], checked: bool = False) -> tuple[Tool, dict[str, Any]]:
    """The tool and arguments a bg_task_run call names (among `tools` in the configured `order`, those
    the agent may use), checked (unless the gate `checked` them already: each form of the arguments
    is checked once); raises ToolError with the reason."""
    name = args.get("tool")
    if not isinstance(name, str) or not name.strip():
        raise ToolError("bg_task_run needs 'tool' (the tool to run) or 'task_id' (a task to read or cancel).")
    arguments = args.get("arguments") or {}
    if isinstance(arguments, str):
        from astro_cli.agent.model import parse_arguments

        try:
            arguments = parse_arguments(arguments)
        except ValueError as exc:
            raise ToolError(f"'arguments' is not a JSON object ({exc}).") from None
    if not isinstance(arguments, dict):
        raise ToolError("'arguments' must be an object with the tool's arguments.")
    if name in NOT_IN_BACKGROUND:
        raise ToolError(f"{name} cannot run in the background; call it directly.")
    visible = {tool.name for tool in tools.ordered(order, only=only_tools)}
    tool = tools.get(name)
    if tool is None or name not in visible:
        names = ", ".join(sorted(visible - NOT_IN_BACKGROUND))
        raise ToolError(f"there is no tool named '{name}' to run in the background. Available: {names}.")
    from astro_cli.agent.tool_runner import check_arguments

    problem = None if checked else check_arguments(tool, arguments)  # before anyone is asked to approve them
    if problem:
        raise ToolError(problem)
    return tool, arguments


def _approved(caller: Caller, ctx: ToolContext, tool: Tool, arguments: dict[str, Any]) -> None:
    """The inner tool's permission: asked for by the extension before the call, else checked quietly."""
    if ctx.call_id in ctx.state(BgApprovals).calls:
        return
    decision = dataclasses.replace(caller.permissions, asker=None).check(tool, arguments)
    if not decision.allowed:
        raise ToolError(decision.reason)


@tool(name="bg_task_run", read_only=False, timeout=30, key_argument="tool", needs=(BackgroundManager, ToolRegistry),
      description=DESCRIPTION)
def bg_task_run(ctx: ToolContext, manager: BackgroundManager, tools: ToolRegistry, tool: str | None = None,
                arguments: dict[str, Any] | None = None, task_id: str | None = None,
                cancel: bool = False) -> ToolResult:
    """Args:
        tool: Name of the tool to run, e.g. run_bash.
        arguments: That tool's arguments, as you would send them to it.
        task_id: A background task id (bg-3) to read or cancel.
        cancel: With task_id: stop that task.
    """
    caller = ctx.states.find(Caller)
    if task_id is not None and not tool:
        return _read_or_cancel(manager, ctx, task_id, cancel)
    if caller is None:
        raise ToolError("bg_task_run only works inside an agent session.")
    inner, arguments = inner_call(tools, ctx.settings.typed["tool_order"], caller.only_tools,
                                  {"tool": tool, "arguments": arguments},
                                  checked=ctx.call_id in ctx.state(BgApprovals).calls)
    tool = inner.name
    _approved(caller, ctx, inner, arguments)
    task = manager.start(ctx, inner, arguments)
    subject = f" ({task.subject})" if task.subject else ""
    return ToolResult(
        f"Started {tool}{subject} in the background as {task.label}. You will be told when it finishes; "
        "carry on with other work meanwhile.",
        data={"background_task": task.label, "tool": tool},
    )


def _read_or_cancel(manager: BackgroundManager, ctx: ToolContext, given: str, cancel: bool) -> ToolResult:
    task_id = parse_task_id(given)
    task = manager.store.get(task_id) if task_id is not None else None
    if task is None or task.session_id != ctx.session_id:
        raise ToolError(f"there is no background task '{given}' in this session.")
    if cancel:
        if task.status != "running":
            return ToolResult(f"{task.label} is not running (it is {task.status}).")
        if not manager.cancel(task.id):
            raise ToolError(f"{task.label} is run by another astro process; it cannot be cancelled from here.")
        return ToolResult(f"{task.label} was asked to stop; you will be told when it has.")
    if task.status == "running":
        return ToolResult(f"{task.label} ({task.tool} {task.subject}) is still running since {task.started_at}.")
    budget = int(ctx.settings.typed["read.max_chars"])
    output = task.output if len(task.output) <= budget else (
        task.output[:budget] + f"\n[... cut at {budget} of {task.output_chars} characters]"
    )
    header = f"{task.label} {task.status}: {task.tool} {task.subject}".rstrip()
    return ToolResult(f"{header}\n{output}", is_error=task.status != "completed")


def bg_tool(app: AppContext) -> Tool:
    app.services.provide(BackgroundManager, lambda: background_manager(app))  # what bg_task_run needs
    app.services.provide(ToolRegistry, lambda: app.tools)
    return as_tool(bg_task_run)


class BackgroundGate(LoopExtension):
    """Checks the inner call of bg_task_run before it starts, on the loop's thread.

    The other extensions' before_tool (hooks) see the inner tool and its arguments, and the
    permission policy may ask the user about the inner tool, as if it ran in the foreground.
    """

    def __init__(self, app: AppContext) -> None:
        self.app = app  # the tool registry and settings the inner call is checked against

    def before_tool(self, state: TurnView, info: ToolCallInfo) -> ToolGate | None:
        if info.call.name != "bg_task_run" or not info.arguments.get("tool"):
            return None
        session = state.session
        try:
            tool, arguments = inner_call(self.app.tools, self.app.settings.typed["tool_order"],
                                         session.only_tools, info.arguments)
        except ToolError:
            return None  # the tool itself reports what is wrong
        inner = ToolCallInfo(
            call=ToolCallRequest(id=info.call.id, name=tool.name, arguments=json.dumps(arguments)),
            arguments=arguments,
        )
        for ext in session.each_extension():
            if ext is self:
                continue
            gate = ext.before_tool(state, inner)
            if gate is None:
                continue
            if gate.blocked:
                return ToolGate(blocked=True, reason=f"{tool.name}: {gate.reason or 'a hook refused it'}")
            if gate.arguments is not None:
                inner.arguments = gate.arguments
        if inner.arguments is not arguments:  # a hook rewrote them: the new form is checked too, once
            from astro_cli.agent.tool_runner import check_arguments

            problem = check_arguments(tool, inner.arguments)
            if problem:
                return ToolGate(blocked=True, reason=problem)
        decision = session.permissions.check(tool, inner.arguments)
        if not decision.allowed:
            return ToolGate(blocked=True, reason=decision.reason)
        session.state(BgApprovals).calls.add(info.call.id)
        if inner.arguments is not arguments:
            return ToolGate(arguments={**info.arguments, "arguments": inner.arguments})
        return None
