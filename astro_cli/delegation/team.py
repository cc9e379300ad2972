"""Teammates: agents that work at the same time, each on a task the lead wrote, answering through a queue.

003 section 5.2: the lead writes each teammate's system prompt and task; a teammate has no
delegation tools, a step limit of min(max_steps, 5), no hooks and no database persistence (its
messages live in memory). It runs in a thread of this process and, when done, puts its result
on the team's in-process queue; `team_wait` takes each result the moment it arrives, for at most
`team.wait_timeout` seconds, and reports a timeout for any teammate that has not answered. Each task and each
result is also written as a JSON file under `.astro/team/<lead session>/` (tasks/, inbox/): the
researcher's readable record of what the lead asked and what came back; nothing reads it back.
"""

from __future__ import annotations

import json
import queue
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from astro_cli.delegation.subagent import parent_session
from astro_cli.tools.base import Tool, ToolError, ToolResult
from astro_cli.tools.context import ToolContext
from astro_cli.tools.typed import Limits, as_tool, tool

if TYPE_CHECKING:
    from astro_cli.agent.caller import Caller
    from astro_cli.app import AppContext

TEAMMATE_MAX_STEPS = 5
MAX_MEMBERS = 8
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
INTERRUPT_CHECK = 0.1  # seconds: how soon team_wait notices that the lead's turn was interrupted


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def write_json_atomic(path: Path, obj: dict[str, Any], root: Path) -> None:
    """Write then rename, so a poller never reads half a file."""
    from astro_cli.security.writer import write_file

    write_file(path, json.dumps(obj, ensure_ascii=False, indent=2, default=str), root=root)


# --- the team ----------------------------------------------------------------------------------
@dataclass
class Teammate:
    name: str
    system_prompt: str
    task: str
    max_steps: int
    cancel: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    collected: bool = False


class TeamManager:
    """The teammates of one lead session (its per-session state), their results queue and record folder."""

    def __init__(self, app: AppContext, lead: Caller) -> None:
        self.app = app
        self.lead = lead
        self.folder = app.workspace.team_dir / lead.session_id
        self.inbox = self.folder / "inbox"
        self.members: dict[str, Teammate] = {}
        self.arrived: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        self.results: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def result_path(self, name: str) -> Path:
        return self.inbox / f"{name}.json"

    def start(self, members: list[Teammate]) -> None:
        with self._lock:
            self._drain()  # an earlier run's answer still queued must not pass for the new run's
            for mate in members:
                self.results.pop(mate.name, None)
                self.result_path(mate.name).unlink(missing_ok=True)
                write_json_atomic(self.folder / "tasks" / f"{mate.name}.json", root=self.app.workspace.root, obj={
                    "name": mate.name, "system_prompt": mate.system_prompt, "task": mate.task,
                    "max_steps": mate.max_steps, "started_at": _now(),
                })
                mate.thread = threading.Thread(target=self._run, args=(mate,), name=f"teammate-{mate.name}", daemon=True)
                self.members[mate.name] = mate
            for mate in members:
                assert mate.thread is not None
                mate.thread.start()

    def running(self, name: str) -> bool:
        mate = self.members.get(name)
        return bool(mate and mate.thread and mate.thread.is_alive())

    def _run(self, mate: Teammate) -> None:
        from astro_cli.delegation.teammate import run_teammate

        result: dict[str, Any] = {"from": mate.name, "started_at": _now(), "max_steps": mate.max_steps}
        try:
            result.update(run_teammate(self.app, self.lead, mate.name, mate.system_prompt, mate.task,
                                       mate.max_steps, mate.cancel))
        except Exception as exc:  # noqa: BLE001 - a teammate's failure is reported to the lead, never lost
            result.update(status="error", answer="", error=f"{type(exc).__name__}: {exc}", steps=0, tool_calls={})
        result["finished_at"] = _now()
        try:
            write_json_atomic(self.result_path(mate.name), result, self.app.workspace.root)  # the researcher's record
        except OSError as exc:
            result["record_error"] = f"the record file could not be written ({exc})"
        self.arrived.put((mate.name, result))

    def _drain(self) -> None:
        while True:
            try:
                name, result = self.arrived.get_nowait()
            except queue.Empty:
                return
            self.results[name] = result

    def wait(self, names: list[str], timeout: float, cancel: threading.Event) -> dict[str, dict[str, Any] | None]:
        """Take results from the queue until every name answered or `timeout` passed; None marks who did not
        answer. An interrupt of the lead's turn (`cancel`) ends the wait within INTERRUPT_CHECK seconds."""
        deadline = time.monotonic() + timeout
        while True:
            pending = [name for name in names if name not in self.results]
            remaining = deadline - time.monotonic()
            if not pending or remaining <= 0 or cancel.is_set():
                break
            try:
                name, result = self.arrived.get(timeout=min(INTERRUPT_CHECK, remaining))
            except queue.Empty:
                continue
            self.results[name] = result
        found: dict[str, dict[str, Any] | None] = {name: self.results.get(name) for name in names}
        for name, answer in found.items():
            if answer is not None:
                self.members[name].collected = True
        return found

    def cancel_all(self) -> None:
        for mate in self.members.values():
            mate.cancel.set()


def team_manager(ctx: ToolContext) -> TeamManager:
    """The calling session's team, made on first use (its per-session state, found by type)."""
    lead = parent_session(ctx)
    manager = ctx.states.find(TeamManager)
    if manager is None:
        # The app, on purpose: a team starts agent sessions, which are built from the whole app (its
        # tools, prompt, sessions store) until the loop takes its parts (issue 45, the loop's share).
        manager = ctx.states.put(TeamManager(ctx.app, lead))
    manager.lead = lead  # the newest record of the lead (its model may have changed with /model)
    return manager


# --- the tools ---------------------------------------------------------------------------------
def _member(entry: Any, index: int) -> tuple[str, str, str]:
    if not isinstance(entry, dict):
        raise ToolError(f"members[{index}] should be an object with name, system_prompt and task.")
    values = []
    for key in ("name", "system_prompt", "task"):
        value = entry.get(key)
        if not isinstance(value, str) or not value.strip():
            raise ToolError(f"members[{index}] needs a non-empty '{key}'.")
        values.append(value.strip())
    if not NAME_RE.match(values[0]):
        raise ToolError(f"members[{index}]: name '{values[0]}' should be letters, digits, '_' or '-' (at most 40).")
    return values[0], values[1], values[2]


class Member(TypedDict):
    """One teammate as team_start's caller describes it."""

    name: Annotated[str, "Short unique name (letters, digits, '_' or '-')."]
    system_prompt: Annotated[str, "The teammate's whole system prompt: its role and rules."]
    task: Annotated[str, "The complete task; the teammate sees nothing else."]


@tool(name="team_start", read_only=False,
      description="Start teammates that work at the same time on tasks you write. "
      "Each gets the system prompt and the task you give it; they have no delegation tools and at most 5 steps, "
      "and their answers come back through an inbox that team_wait reads.")
def team_start(ctx: ToolContext, members: Annotated[list[Member], Limits(min_items=1, max_items=MAX_MEMBERS)],
               max_steps: Annotated[int, Limits(minimum=1)] | None = None) -> ToolResult:
    """Args:
        max_steps: Step limit per teammate (at most 5).
    """
    if not members:
        raise ToolError("members should be a non-empty list of {name, system_prompt, task}.")
    if len(members) > MAX_MEMBERS:
        raise ToolError(f"at most {MAX_MEMBERS} teammates can be started at once.")
    manager = team_manager(ctx)
    parsed = [_member(entry, i) for i, entry in enumerate(members)]
    names = [name for name, _, _ in parsed]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ToolError(f"teammate names must differ; repeated: {', '.join(dupes)}.")
    busy = [n for n in names if manager.running(n)]
    if busy:
        raise ToolError(f"{', '.join(busy)} still working; wait for them with team_wait or choose other names.")
    requested = max_steps
    if requested is not None and requested < 1:
        raise ToolError("max_steps should be a whole number of at least 1.")
    steps = min(requested or manager.lead.max_steps, TEAMMATE_MAX_STEPS)
    manager.start([Teammate(name, prompt, task, steps) for name, prompt, task in parsed])
    wait = ctx.settings.typed["team.wait_timeout"]
    return ToolResult(
        f"Started {len(names)} teammate(s): {', '.join(names)} (at most {steps} steps each). They work at the "
        f"same time; call team_wait to collect their answers (it waits up to {wait:g} s).",
        data={"team": {"started": names, "inbox": str(manager.inbox)}},
    )


def _describe(name: str, result: dict[str, Any] | None, timeout: float) -> tuple[str, bool]:
    if result is None:
        return (f"## {name}: no answer within {timeout:g} s\n{name} is still working; call team_wait again to keep "
                "waiting, or go on without it.", False)
    calls = ", ".join(f"{tool} ×{n}" for tool, n in sorted((result.get("tool_calls") or {}).items())) or "none"
    facts = (f"{result.get('steps', 0)} step(s); tools: {calls}; tokens: {result.get('input_tokens', 0)} in, "
             f"{result.get('output_tokens', 0)} out")
    status = result.get("status")
    if status == "answered":
        return f"## {name}: answered ({facts})\n{result.get('answer', '')}", True
    detail = result.get("error") or result.get("answer") or "no answer"
    return f"## {name}: {status} ({facts})\n{detail}", False


@tool(name="team_wait", timeout=3600.0,
      description="Wait for teammates' answers and collect them from the inbox. "
      "Waits for all not yet collected, or the names given; a teammate that does not answer in time is "
      "reported as a timeout.")
def team_wait(ctx: ToolContext, names: list[str] | None = None) -> ToolResult:
    """Args:
        names: Teammates to wait for.
    """
    manager = team_manager(ctx)
    if not manager.members:
        raise ToolError("no teammates were started in this session; start them with team_start.")
    if not names:
        names = [n for n, mate in manager.members.items() if not mate.collected] or list(manager.members)
    unknown = [n for n in names if n not in manager.members]
    if unknown:
        raise ToolError(f"no teammate named {', '.join(unknown)}; the team: {', '.join(manager.members)}.")
    settings = ctx.settings
    timeout = max(0.0, float(settings.typed["team.wait_timeout"]))
    results = manager.wait(names, timeout, ctx.cancel)
    blocks, answered = [], 0
    for name in names:
        text, ok = _describe(name, results[name], timeout)
        blocks.append(text)
        answered += ok
    head = f"Teammate results ({answered} of {len(names)} answered):"
    status = {n: (r or {}).get("status", "timeout") for n, r in results.items()}
    return ToolResult("\n\n".join([head, *blocks]), is_error=answered == 0, data={"team": status})


def team_tools() -> list[Tool]:
    return [as_tool(team_start), as_tool(team_wait)]
