"""The seams through which features join the loop without the loop knowing them.

Task recovery, nudges, background notifications, compaction and hooks are extensions: subclasses
of LoopExtension that override the methods they need (plugins too, through PluginAPI.add_extension).
The loop calls each method on every extension, in order, as a typed call the type checker sees. Runtime
interventions are user messages appended through `TurnView.inject`, never edits of the system
prompt.

Extensions see the session and the turn through `SessionView` and `TurnView`, protocols declared
here, not through the loop's classes: `agent/loop.py` (AgentSession, TurnState) and
`agent/tool_runner.py` satisfy them structurally, so this module imports neither and the loop, its
runner and its extension points form no import circle, not even for types.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    import threading

    from astro_cli.agent.caller import Caller
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.model import Model
    from astro_cli.agent.permissions import PermissionPolicy
    from astro_cli.agent.stream import ToolCallRequest
    from astro_cli.app import AppContext
    from astro_cli.by_kind import SessionStates
    from astro_cli.prompt.registry import AssembledPrompt
    from astro_cli.tools.base import Tool, ToolResult
    from astro_cli.usage import Usage

log = logging.getLogger(__name__)
T = TypeVar("T")


class SessionView(Protocol):
    """What an extension may use of the session it serves (`agent.loop.AgentSession` is one): only what
    some extension or the tool runner reads, so the seam stays as narrow as its users."""

    @property
    def session_id(self) -> str: ...
    @property
    def agent(self) -> str: ...
    @property
    def parent_session_id(self) -> str | None: ...
    @property
    def bus(self) -> EventBus: ...
    @property
    def llm(self) -> Model: ...
    @property
    def permissions(self) -> PermissionPolicy: ...
    @property
    def states(self) -> SessionStates: ...
    @property
    def cancel(self) -> threading.Event: ...
    @property
    def messages(self) -> list[dict[str, Any]]: ...
    @property
    def scope(self) -> str: ...
    @property
    def turn_number(self) -> int: ...
    @property
    def only_tools(self) -> set[str] | None: ...
    @property
    def delegated(self) -> bool: ...
    @property
    def profile(self) -> str: ...

    def state(self, kind: type[T]) -> T: ...
    def append(self, message: dict[str, Any], kind: str = "message", turn: int | None = None,
               meta: dict[str, Any] | None = None) -> int: ...
    def each_extension(self) -> list[LoopExtension]: ...
    def visible_tools(self) -> list[Tool]: ...
    def assemble(self, question: str = "", turn: TurnView | None = None) -> AssembledPrompt: ...
    def caller(self) -> Caller: ...
    def record_usage(self, state: TurnView | None, usage: Usage, purpose: str = "step") -> None: ...


class TurnView(Protocol):
    """What an extension may use of the turn in progress (`agent.loop.TurnState` is one)."""

    @property
    def session(self) -> SessionView: ...
    @property
    def turn(self) -> int: ...
    @property
    def prompt(self) -> str: ...
    @property
    def max_steps(self) -> int: ...
    @property
    def step(self) -> int: ...
    @property
    def tool_steps(self) -> int: ...
    @property
    def tool_log(self) -> list[dict[str, Any]]: ...
    @property
    def usage(self) -> Usage: ...
    @property
    def last_context_tokens(self) -> int: ...
    @property
    def assembled(self) -> AssembledPrompt | None: ...

    @property
    def answer(self) -> str: ...
    @property
    def stop_reason(self) -> str: ...
    @property
    def force_final(self) -> bool: ...

    def add_usage(self, usage: Usage) -> None: ...
    def inject(self, text: str, kind: str = "nudge") -> None: ...


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

    # The `[name]` its environment facts appear under (default: the class name).
    context_source: str = ""

    def context_name(self) -> str:
        return self.context_source or type(self).__name__

    def on_session_start(self, session: SessionView) -> None:
        """A session is opened (new or resumed)."""

    def on_session_fork(self, session: SessionView, source_id: str) -> None:
        """The session was opened as a copy of `source_id` (messages copied); copy the feature's state."""

    def on_turn_start(self, state: TurnView) -> None:
        """The user's message is stored; inject recovery or context with state.inject()."""

    def before_request(self, state: TurnView) -> None:
        """Just before each model request; nudges go here."""

    def transform_messages(self, state: TurnView, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """What is sent, not what is stored: compaction rewrites the list here."""
        return messages

    def environment_facts(self, state: TurnView) -> dict[str, str]:
        """Per-step facts for the trailing environment message, shown under `[context_name()]`; not
        called at all when the runtime context is off (config or a suppressor for the scope)."""
        return {}

    def before_tool(self, state: TurnView, info: ToolCallInfo) -> ToolGate | None:
        """May block the call or rewrite its arguments."""
        return None

    def after_tool(self, state: TurnView, info: ToolCallInfo, result: ToolResult) -> ToolResult | None:
        """May replace the result the model sees."""
        return None

    def on_path_touched(self, session: SessionView, path: Path) -> None:
        """A tool of this session read, wrote or searched `path` (`ToolContext.touched`)."""

    def review_answer(self, state: TurnView, answer: str) -> bool:
        """The model answered without tool calls. Return True after `state.inject(...)` to let it
        go on instead of ending the turn (the extension sees to it that this stays bounded)."""
        return False

    def on_step_complete(self, state: TurnView) -> None:
        """A request and its tool calls are done."""

    def on_turn_end(self, state: TurnView) -> None:
        """The turn ended (answered, interrupted, failed)."""

    def on_session_stop(self, session: SessionView, reason: str) -> None:
        """The session is closed (exit, /clear, end of `astro run`)."""


class ExtensionFactories:
    """Every feature's extension factory, in install order: each agent session gets fresh objects."""

    def __init__(self) -> None:
        self._factories: list[Callable[[], LoopExtension]] = []

    def add(self, factory: Callable[[], LoopExtension]) -> None:
        self._factories.append(factory)

    def new(self) -> list[LoopExtension]:
        """Fresh extensions for one session; a plugin's factory that makes something other than a
        LoopExtension is left out (and logged), since the loop calls every hook on every extension."""
        made: list[LoopExtension] = []
        for factory in self._factories:
            extension: object = factory()
            if isinstance(extension, LoopExtension):
                made.append(extension)
            else:
                log.warning("left out %r from %r: a loop extension must subclass LoopExtension", extension, factory)
        return made


def loop_extensions(app: AppContext) -> ExtensionFactories:
    """The app's extension factories: features `add` theirs at install, sessions take `new()` ones."""
    return app.service(ExtensionFactories)
