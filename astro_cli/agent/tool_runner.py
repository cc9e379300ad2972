"""Running the tool calls of one reply: parse, gate (extensions, permissions), run, store.

Whatever goes wrong (arguments that are not JSON, an unknown tool, a refusal, an exception, a
timeout) becomes a tool result marked as an error with one sentence the model can act on.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.agent import events as ev
from astro_cli.agent.extensions import ToolCallInfo
from astro_cli.agent.model import Cancelled, parse_arguments
from astro_cli.agent.stream import ToolCallRequest
from astro_cli.prompt.tags import escape_tags
from astro_cli.security.visible import name_shown
from astro_cli.tools.base import Tool, ToolResult
from astro_cli.tools.execute import RunningCall, error_result, execute

if TYPE_CHECKING:
    from astro_cli.agent.extensions import SessionView, TurnView
    from astro_cli.agent.parts import LoopParts
    from astro_cli.tools.context import ToolContext
    from astro_cli.usage import Usage

log = logging.getLogger(__name__)

DEFAULT_TOOL_TIMEOUT = 600.0
LATE_RESULT_CHARS = 2000


@dataclass
class UnfinishedCall:
    """A call that timed out and could not be cancelled; its thread may still finish the work."""

    call_id: str
    name: str
    timeout: float
    running: RunningCall


def undeclared_arguments(schema: Any, arguments: dict[str, Any]) -> list[str]:
    """Argument names the schema does not declare (unless it explicitly allows others)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return []
    extra = schema.get("additionalProperties", False)
    if extra is True or isinstance(extra, dict):
        return []
    return [name for name in arguments if name not in schema["properties"]]


def check_arguments(tool: Tool, arguments: dict[str, Any]) -> str | None:
    """One sentence when the arguments do not fit the tool's JSON schema (a wrong type, a missing
    field, a name it does not declare), so the tool never meets them and the model can retry.
    Undeclared names are refused, not dropped: a key of 200 newlines and `command` could otherwise
    crowd the real command off the approval prompt."""
    unknown = undeclared_arguments(tool.parameters, arguments)
    if unknown:
        names = ", ".join(f"'{name_shown(name)}'" for name in unknown[:5])
        declared = ", ".join(sorted(tool.parameters["properties"])) or "none"
        return (f"{tool.name}: unknown argument(s) {names}{' and more' if len(unknown) > 5 else ''}; "
                f"its parameters are {declared}. Send only those.")
    problem = number_problem(tool, arguments)
    if problem:
        return problem
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import relevance

    try:
        errors = sorted(Draft202012Validator(tool.parameters).iter_errors(arguments), key=relevance)
    except Exception:  # noqa: BLE001 - a plugin's odd schema: the tool checks its own arguments
        log.debug("the parameters schema of %s cannot check arguments", getattr(tool, "name", tool), exc_info=True)
        return None
    for error in errors:
        where = "/".join(str(part) for part in error.absolute_path)
        return f"{tool.name}: {f'{where!r}: ' if where else ''}{error.message}. Send arguments that fit its parameters."
    return None


def number_problem(tool: Tool, arguments: dict[str, Any]) -> str | None:
    """One sentence for a number no tool can use: NaN or an infinity anywhere in the arguments (JSON
    has neither, Python's parser takes both, and NaN passes every comparison with a limit); or a
    negative value of a numeric parameter that declares no minimum (a timeout, a count, a size)."""
    properties = tool.parameters.get("properties") if isinstance(tool.parameters, dict) else None
    for name, value in arguments.items():
        for number in _numbers(value):
            if isinstance(number, float) and not math.isfinite(number):  # a huge int is finite
                return f"{tool.name}: '{name_shown(name)}' must be a finite number, not {number}. Send a number."
        spec = properties.get(name) if isinstance(properties, dict) else None
        declared = isinstance(spec, dict) and ("minimum" in spec or "exclusiveMinimum" in spec)
        number_given = isinstance(value, (int, float)) and not isinstance(value, bool)
        if number_given and value < 0 and not declared and not tool.negative_numbers:
            return f"{tool.name}: '{name_shown(name)}' cannot be negative (got {value}). Send 0 or more."
    return None


def _numbers(value: Any) -> Iterator[float]:
    """The numbers in an argument's value, in lists and mappings too (not booleans)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)


class TurnHost:
    """The capabilities a tool of this turn gets (tools/base.ToolHost), carried out on the session."""

    def __init__(self, session: SessionView, state: TurnView) -> None:
        self._session = session
        self._state = state

    def approve_for_turn(self, tools: Sequence[str]) -> None:
        self._session.permissions.pre_approve_for_turn(list(tools))

    def touched(self, path: Path) -> None:
        for ext in self._session.each_extension():
            ext.on_path_touched(self._session, Path(path))

    def add_usage(self, usage: Usage) -> None:
        self._state.add_usage(usage)

    def warn(self, text: str) -> None:
        self._session.bus.emit(ev.Notice(level="warning", text=text))


class ToolRunner:
    def __init__(self, session: SessionView, parts: LoopParts) -> None:
        self.session = session
        self.parts = parts  # the tools by name and the maker of each call's context (agent/parts.py)
        self.unfinished: list[UnfinishedCall] = []

    def run_all(self, state: TurnView, calls: list[ToolCallRequest]) -> None:
        for index, call in enumerate(calls):
            if self.session.cancel.is_set():
                raise Cancelled()
            try:
                self.run_one(state, call)
            except KeyboardInterrupt:
                for rest in calls[index:]:
                    self._store(state, rest, error_result("interrupted by the user before it finished"), 0.0)
                raise

    def run_one(self, state: TurnView, call: ToolCallRequest) -> ToolResult:
        session = self.session
        tool = self.parts.tools.get(call.name)
        key = ""
        try:
            arguments = parse_arguments(call.arguments)
        except ValueError as exc:
            arguments = {}
            result: ToolResult | None = error_result(f"{call.name}: {exc}. Send the arguments as a JSON object.")
        else:
            result = None
        if tool is not None and tool.key_argument:
            key = str(arguments.get(tool.key_argument, ""))[:80]
        session.bus.emit(
            ev.ToolStarted(call_id=call.id, name=call.name, arguments=arguments, key_argument=key, agent=session.agent)
        )
        started = time.monotonic()
        info = ToolCallInfo(call=call, arguments=arguments)
        if result is None:
            result = self._gate_and_run(state, info)
        for ext in session.each_extension():
            replaced = ext.after_tool(state, info, result)
            if replaced is not None:
                result = replaced
        # The run time: the researcher's time at the approval question is not the tool's.
        duration = time.monotonic() - started - info.extra.get("approval_wait", 0.0)
        log.debug("tool %s [%s] %s in %.2f s: %.300s", call.name, session.agent, "failed" if result.is_error else "ok",
                  duration, result.content)
        self._store(state, call, result, duration)
        return result

    def _gate_and_run(self, state: TurnView, info: ToolCallInfo) -> ToolResult:
        session = self.session
        call = info.call
        visible = {tool.name for tool in session.visible_tools()}
        tool = self.parts.tools.get(call.name)
        if tool is None or call.name not in visible:
            names = ", ".join(sorted(visible))
            return error_result(f"there is no tool named '{call.name}'. Available tools: {names}.")
        if tool.tidy_arguments is not None:
            info.arguments = tool.tidy_arguments(info.arguments)
        problem = check_arguments(tool, info.arguments)
        if problem:
            return error_result(problem)
        for ext in session.each_extension():
            gate = ext.before_tool(state, info)
            if gate is None:
                continue
            if gate.blocked:
                return error_result(f"{call.name} was blocked: {gate.reason or 'a hook refused it'}")
            if gate.arguments is not None and gate.arguments is not info.arguments:
                problem = check_arguments(tool, gate.arguments)  # a hook's new form is checked too, once
                if problem:
                    return error_result(f"after a hook changed them: {problem}")
                info.arguments = gate.arguments
            if gate.additional_context:
                info.extra.setdefault("context", []).append(gate.additional_context)
        asked = time.monotonic()
        decision = session.permissions.check(tool, info.arguments)
        info.extra["approval_wait"] = time.monotonic() - asked
        if not decision.allowed:  # the printer shows this whole: it names the exact --allow value
            return ToolResult(content=f"Error: {decision.reason}", is_error=True, data={"refused": call.name})
        ctx = self.parts.tool_context(
            session_id=session.session_id,
            turn=state.turn,
            call_id=call.id,
            agent=session.agent,
            cancel=threading.Event(),  # this call's own: a timeout cancels it, an interrupt too
            emit=session.bus.emit,
            states=session.states,
            host=TurnHost(session, state),
        )
        result = self._run_with_timeout(tool, ctx, info.arguments)
        for context in info.extra.get("context", []):
            result = ToolResult(content=f"{result.content}\n\n[additional context] {escape_tags(context)}",
                                is_error=result.is_error, data=result.data, framed=result.framed)
        return result

    def _run_with_timeout(self, tool: Tool, ctx: ToolContext, arguments: dict[str, Any]) -> ToolResult:
        """Run the tool (tools/execute.py); at its deadline or an interrupt it is cancelled, or what
        still runs is said plainly and its late result told to the model when it comes."""
        run = execute(tool, ctx, arguments, tool.timeout or DEFAULT_TOOL_TIMEOUT, interrupt=self.session.cancel)
        own = run.result
        if run.ending == "done" or (run.ending == "stopped" and run.reason == "cancelled"):
            return own or error_result(f"{tool.name} returned nothing.")
        if run.ending == "stopped":
            detail = f"\n{own.content}" if own is not None and own.content else ""
            return error_result(f"{tool.name} did not finish within {run.timeout:g} s and was cancelled.{detail}")
        self.unfinished.append(UnfinishedCall(ctx.call_id, tool.name, run.timeout, run.call))
        if run.reason == "cancelled":
            return error_result(f"{tool.name} was interrupted and is still running: its effect may still happen.")
        return error_result(
            f"{tool.name} did not finish within {run.timeout:g} s and could not be cancelled: it is still running, "
            "and its effect may still happen. Check before relying on it; you will be told if it finishes."
        )

    def report_late(self, state: TurnView) -> None:
        """Tell the model (and the user) about timed-out calls that have finished since."""
        for call in [c for c in self.unfinished if c.running.done.is_set()]:
            self.unfinished.remove(call)
            result = call.running.result
            outcome = "it returned nothing"
            if result is not None:
                outcome = result.content if result.framed else escape_tags(result.content)
            state.inject(
                f"[late result] {call.name} (call {call.call_id}), reported still running after its "
                f"{call.timeout:g} s timeout, finished after all: {outcome[:LATE_RESULT_CHARS]}",
                kind="late_result",
            )

    def still_running(self) -> list[str]:
        """Names of timed-out calls that have not finished (said when the session stops)."""
        return [f"{c.name} ({c.call_id})" for c in self.unfinished if not c.running.done.is_set()]

    def _store(self, state: TurnView, call: ToolCallRequest, result: ToolResult, duration: float) -> None:
        session = self.session
        # What the model and the transcript get: astro's tags escaped (unless the tool framed its text
        # itself), and no known secret (`append` redacts: a command that printed a key shows [REDACTED:NAME]).
        content = result.content if result.framed else escape_tags(result.content)
        message = {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content}
        meta: dict[str, Any] = {"ok": not result.is_error, "duration": round(duration, 3)}
        if result.data:
            meta["data"] = result.data
        session.append(message, meta=meta)
        content = next((str(m.get("content")) for m in reversed(session.messages)
                        if m.get("tool_call_id") == call.id), "")  # as stored: redacted
        state.tool_log.append({"name": call.name, "ok": not result.is_error})
        session.bus.emit(
            ev.ToolFinished(
                call_id=call.id,
                name=call.name,
                ok=not result.is_error,
                duration=duration,
                content=content,
                agent=session.agent,
                data=result.data,
            )
        )
