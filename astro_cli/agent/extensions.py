"""The seams through which features join the loop without the loop knowing them.

Task recovery, nudges, background notifications, compaction and hooks are extensions: subclasses
of LoopExtension that override the methods they need (plugins too, through PluginAPI.add_extension).
The loop calls each method on every extension, in order, as a typed call the type checker sees. Runtime
interventions are user messages appended through `TurnState.inject`, never edits of the system
prompt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.agent.llm import ToolCallRequest
    from astro_cli.agent.loop import AgentSession, TurnState
    from astro_cli.app import AppContext
    from astro_cli.tools.base import ToolResult


@dataclass
class ToolGate:
    """What a before_tool extension decided: block with a reason, or go on with (new) arguments."""

    blocked: bool = False
    reason: str = ""
    arguments: dict[str, Any] | None = None
    additional_context: str | None = None


@dataclass
class ToolCallInfo:
    call: ToolCallRequest
    arguments: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)


class LoopExtension:
    """Base class with no-op methods; override what the feature needs."""

    def on_session_start(self, session: AgentSession) -> None:
        """A session is opened (new or resumed)."""

    def on_session_fork(self, session: AgentSession, source_id: str) -> None:
        """The session was opened as a copy of `source_id` (messages copied); copy the feature's state."""

    def on_turn_start(self, state: TurnState) -> None:
        """The user's message is stored; inject recovery or context with state.inject()."""

    def before_request(self, state: TurnState) -> None:
        """Just before each model request; nudges go here."""

    def transform_messages(self, state: TurnState, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """What is sent, not what is stored: compaction rewrites the list here."""
        return messages

    def environment_facts(self, state: TurnState) -> dict[str, str]:
        """Per-step facts for the trailing environment message."""
        return {}

    def before_tool(self, state: TurnState, info: ToolCallInfo) -> ToolGate | None:
        """May block the call or rewrite its arguments."""
        return None

    def after_tool(self, state: TurnState, info: ToolCallInfo, result: ToolResult) -> ToolResult | None:
        """May replace the result the model sees."""
        return None

    def on_path_touched(self, session: AgentSession, path: Path) -> None:
        """A tool of this session read, wrote or searched `path` (`ToolContext.touched`)."""

    def review_answer(self, state: TurnState, answer: str) -> bool:
        """The model answered without tool calls. Return True after `state.inject(...)` to let it
        go on instead of ending the turn (the extension sees to it that this stays bounded)."""
        return False

    def on_step_complete(self, state: TurnState) -> None:
        """A request and its tool calls are done."""

    def on_turn_end(self, state: TurnState) -> None:
        """The turn ended (answered, interrupted, failed)."""

    def on_session_stop(self, session: AgentSession, reason: str) -> None:
        """The session is closed (exit, /clear, end of `astro run`)."""


class ExtensionFactories:
    """Every feature's extension factory, in install order: each agent session gets fresh objects."""

    def __init__(self) -> None:
        self._factories: list[Callable[[], LoopExtension]] = []

    def add(self, factory: Callable[[], LoopExtension]) -> None:
        self._factories.append(factory)

    def new(self) -> list[LoopExtension]:
        return [factory() for factory in self._factories]


def loop_extensions(app: AppContext) -> ExtensionFactories:
    """The app's extension factories: features `add` theirs at install, sessions take `new()` ones."""
    return app.service("loop_extensions", ExtensionFactories)
