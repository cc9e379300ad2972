"""The loop extension that fires lifecycle hooks at the loop's seams.

Subagents run the same pipeline for their tool calls, steps and compactions (003: full hook
pipeline); SessionStart, UserPromptSubmit and SessionStop belong to sessions the user opened,
so they do not fire for subagents (SubagentStart/SubagentStop cover those). Teammates get no
extensions at all.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from astro_cli.agent import events as ev
from astro_cli.agent.extensions import LoopExtension, ToolCallInfo, ToolGate
from astro_cli.compact.events import Compacted, CompactionStarted
from astro_cli.hooks.runner import HookOutcome, HookRunner
from astro_cli.prompt.tags import escape_tags
from astro_cli.tools.base import ToolResult

if TYPE_CHECKING:
    from astro_cli.agent.extensions import SessionView, TurnView


def is_delegated(session: SessionView) -> bool:
    """A subagent's or teammate's session (the user did not open it)."""
    return session.delegated


class HookExtension(LoopExtension):
    def __init__(self, runner: HookRunner) -> None:
        self.runner = runner
        self.session: SessionView | None = None
        self.pending_context: list[str] = []

    # --- helpers -----------------------------------------------------------------------------
    def _fire(self, session: SessionView, event: str, data: dict[str, Any], target: str | None = None) -> HookOutcome:
        base: dict[str, Any] = {"agent": session.agent}
        parent = session.parent_session_id
        if parent:
            base["parent_session_id"] = parent
        return self.runner.fire(event, {**base, **data}, session.session_id, target=target, notify=session.bus.emit)

    # --- session -----------------------------------------------------------------------------
    def on_session_start(self, session: SessionView) -> None:
        self.session = session
        self.runner.report_problems(session.bus.emit)
        session.bus.subscribe(self._on_event)
        if is_delegated(session) or not self.runner.has("SessionStart"):
            return
        source = "resume" if session.messages else "startup"
        outcome = self._fire(session, "SessionStart", {"source": source, "model": session.llm.config.model}, source)
        self.pending_context.extend(escape_tags(text) for text in outcome.contexts)

    def on_session_stop(self, session: SessionView, reason: str) -> None:
        session.bus.unsubscribe(self._on_event)
        if not is_delegated(session):
            self._fire(session, "SessionStop", {"reason": reason})

    # --- turn --------------------------------------------------------------------------------
    def on_turn_start(self, state: TurnView) -> None:
        session = state.session
        for text in self.pending_context:
            state.inject(text, kind="hook")
        self.pending_context.clear()
        if is_delegated(session):
            return
        outcome = self._fire(session, "UserPromptSubmit", {"prompt": state.prompt})
        for text in outcome.contexts:
            state.inject(escape_tags(text), kind="hook")

    def on_step_complete(self, state: TurnView) -> None:
        session = state.session
        step_calls = [m.get("name") for m in _last_step_results(session.messages)]
        self._fire(session, "StepComplete", {
            "turn": state.turn,
            "step": state.step,
            "max_steps": state.max_steps,
            "message_count": len(session.messages),
            "input_tokens": state.usage.input_tokens,
            "output_tokens": state.usage.output_tokens,
            "context_tokens": state.last_context_tokens,
            "tool_calls": step_calls,
        })

    # --- tools -------------------------------------------------------------------------------
    def before_tool(self, state: TurnView, info: ToolCallInfo) -> ToolGate | None:
        name = info.call.name
        outcome = self._fire(state.session, "PreToolUse",
                             {"tool_name": name, "tool_input": info.arguments, "tool_use_id": info.call.id}, name)
        if outcome.blocked:
            info.extra["hook_blocked"] = True
            return ToolGate(blocked=True, reason=outcome.reason)
        if outcome.updated_input is None and not outcome.contexts:
            return None
        return ToolGate(arguments=outcome.updated_input, additional_context="\n".join(outcome.contexts) or None)

    def after_tool(self, state: TurnView, info: ToolCallInfo, result: ToolResult) -> ToolResult | None:
        if info.extra.get("hook_blocked"):
            return None
        name = info.call.name
        outcome = self._fire(state.session, "PostToolUse", {
            "tool_name": name,
            "tool_input": info.arguments,
            "tool_use_id": info.call.id,
            "tool_response": {"content": result.content, "is_error": result.is_error},
        }, name)
        if outcome.blocked:
            return ToolResult(f"Error: the output of {name} was withheld by a hook: {outcome.reason}", is_error=True,
                              data=result.data)
        if outcome.updated_output is None and not outcome.contexts:
            return None
        framed = result.framed and outcome.updated_output is None
        content = result.content if outcome.updated_output is None else outcome.updated_output
        for context in outcome.contexts:
            content = f"{content}\n\n[additional context] {escape_tags(context)}"
        return ToolResult(content, is_error=result.is_error, data=result.data, framed=framed)

    # --- compaction (events on the session's bus) ---------------------------------------------
    def _on_event(self, event: ev.Event) -> None:
        session = self.session
        if session is None:
            return
        if isinstance(event, CompactionStarted):
            self._fire(session, "PreCompact", _compaction_payload(event), event.trigger)
        elif isinstance(event, Compacted):
            self._fire(session, "PostCompact", _compaction_payload(event), event.trigger)


def _compaction_payload(event: CompactionStarted | Compacted) -> dict[str, Any]:
    """The event's own fields (layer, counts before and, once done, after), the trigger first."""
    return {"trigger": event.trigger, **{k: v for k, v in asdict(event).items() if k != "trigger"}}


def _last_step_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool results after the last assistant message: the calls of the step just completed."""
    results: list[dict[str, Any]] = []
    for message in reversed(messages):
        if message.get("role") == "tool":
            results.append(message)
        elif message.get("role") == "assistant":
            break
    return list(reversed(results))
