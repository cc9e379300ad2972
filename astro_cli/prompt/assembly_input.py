"""What section providers, runtime-context sources and listeners may look at while a prompt is assembled.

A module of its own so that the registry, the runtime context and the waterfall share it without
importing one another, and without the prompt layer importing the agent loop's types.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from astro_cli.by_kind import SessionStates

if TYPE_CHECKING:
    from astro_cli.tools.base import Tool
    from astro_cli.usage import Usage


class TurnFacts(Protocol):
    """What a runtime-context source may read of the turn in progress (`agent.loop.TurnState` is one)."""

    @property
    def prompt(self) -> str: ...
    @property
    def step(self) -> int: ...
    @property
    def tool_steps(self) -> int: ...
    @property
    def max_steps(self) -> int: ...
    @property
    def usage(self) -> Usage: ...


@dataclass
class AssemblyInput:
    """What section providers may look at while the prompt is assembled: `states` is the session's
    typed feature state (empty outside a session, e.g. `astro prompt show`); `turn` is the turn in
    progress when a model request is being prepared (runtime-context sources read its step and tokens)."""

    scope: str
    tools: list[Tool]
    question: str = ""
    states: SessionStates = field(default_factory=SessionStates)
    turn: TurnFacts | None = None
    profile: str = "default"  # agent/profiles.py: `small` asks for the short principles
    # The request's abort signal (abort.py): wait on it rather than block; never keep it past this assembly.
    signal: threading.Event | None = None
