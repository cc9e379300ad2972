"""A subagent's events: renderers open a nested block at the start and collapse it at the end.

A feature's own events live in its package (agent/events.py has the loop's); they are `Event`s of the
one bus, so renderers, persistence and hooks receive them as any other."""

from __future__ import annotations

from dataclasses import dataclass, field

from astro_cli.agent.events import Event


@dataclass
class SubagentStarted(Event):
    """A subagent began its run inside the `subagent` tool call `call_id` (renderers open a nested block).

    Until the matching SubagentFinished, ToolStarted/ToolFinished events with `agent` equal to this
    `agent` belong to the block; `session_id` is the child session where its messages are stored.
    """

    type = "subagent_started"
    call_id: str
    agent: str
    task: str
    session_id: str
    max_steps: int
    tools: list[str] = field(default_factory=list)


@dataclass
class SubagentFinished(Event):
    """The subagent of tool call `call_id` ended (renderers collapse its block to one summary line)."""

    type = "subagent_finished"
    call_id: str
    agent: str
    session_id: str
    ok: bool
    stop_reason: str  # as TurnFinished, or "failed" when the subagent could not run
    steps: int
    duration: float
    input_tokens: int = 0
    output_tokens: int = 0
    tool_calls: dict[str, int] = field(default_factory=dict)
    summary: str = ""
