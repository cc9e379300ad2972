"""What a tool is, what it may reach, and what it returns.

A tool is a name, a description (its first sentence becomes the summary in the system prompt),
a JSON schema for its arguments, a read_only flag and a `run(ctx, args)` function. Errors a tool
raises as ToolError reach the model as error results with the tool's own sentence; any other
exception is reported as an unexpected failure. Neither ends the turn.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from astro_cli.agent.states import SessionStates
from astro_cli.security.paths import PathRefused

if TYPE_CHECKING:
    from astro_cli.app import AppContext


class ToolError(Exception):
    """A failure the model should read: one clear sentence, no traceback."""


# Refusals of paths (security.paths) reach the model exactly as ToolErrors do.
TOOL_FAILURES: tuple[type[Exception], ...] = (ToolError, PathRefused)


@dataclass
class ToolResult:
    """What a tool returns: text for the model, and structured data for people and other parts."""

    content: str
    is_error: bool = False
    data: dict[str, Any] | None = None
    # True when the content holds astro's own prompt tags on purpose (<paper-text>, <command-name>) and
    # the tool escaped every other piece of text in it; otherwise the loop escapes the whole content.
    framed: bool = False


class ToolHost(Protocol):
    """What the running agent lets a tool do to it: explicit capabilities, never the session itself."""

    def approve_for_turn(self, tools: Sequence[str]) -> None:
        """Let `tools` run without a permission question until the turn ends (a skill's allowed-tools)."""

    def touched(self, path: Path) -> None:
        """A file was read, written or searched: features that listen (conditional skills) hear of it."""

    def add_usage(self, usage: dict[str, Any]) -> None:
        """Count a request made on the turn's behalf (a subagent's) in the turn's tokens and cost."""


class DetachedHost:
    """The host of a call outside a turn (a test, a background task): the capabilities do nothing.

    A background task runs after its turn may have ended, so it can neither widen that turn's
    permissions nor add to its cost, and the loop's thread alone owns the session's skill state.
    """

    def approve_for_turn(self, tools: Sequence[str]) -> None:
        pass

    def touched(self, path: Path) -> None:
        pass

    def add_usage(self, usage: dict[str, Any]) -> None:
        pass


class Compactor(Protocol):
    """The session's compaction, as the compress_context tool asks for it (compact/engine.py)."""

    def request_compaction(self, focus: str | None) -> str:
        """Compact before the next request; returns the sentence for the model."""
        ...


S = TypeVar("S")


@dataclass
class ToolContext:
    """What a running tool may reach: the app (workspace, settings, services), its session's typed
    feature state, and the host's capabilities. Built per call by the loop; tools keep no state."""

    app: AppContext
    session_id: str
    turn: int = 0
    call_id: str = ""
    agent: str = "main"
    cancel: threading.Event = field(default_factory=threading.Event)
    emit: Callable[[Any], None] = lambda event: None
    states: SessionStates = field(default_factory=SessionStates)
    host: ToolHost = field(default_factory=DetachedHost)

    @property
    def workspace_root(self) -> Path:
        return self.app.workspace.root

    def resolve_path(self, raw: str, must_exist: bool = False) -> Path:
        """The real path of a path the model gave; refused outside the workspace and allowed paths."""
        return self.app.confinement.resolve(raw, must_exist)

    def writable_path(self, raw: str) -> Path:
        """Like resolve_path, and refused for astro's own state (.astro/, ASTRO_HOME, .mcp.json)."""
        return self.app.confinement.writable(raw)

    def state(self, kind: type[S]) -> S:
        """The session's `kind` object (a feature's own state), made on first use."""
        return self.states.get(kind)

    def touched(self, path: Path) -> None:
        """Record that a file was read, written or searched (conditional skills listen to this)."""
        self.host.touched(path)

    def approve_for_turn(self, tools: Sequence[str]) -> None:
        """Pre-approve `tools` for the rest of this turn only."""
        self.host.approve_for_turn(tools)

    def add_usage(self, usage: dict[str, Any]) -> None:
        """Add tokens spent for this call (a subagent's) to the turn's count."""
        self.host.add_usage(usage)

    def request_compaction(self, focus: str | None) -> str:
        """Ask the session's compaction to run before the next request; the model's sentence back."""
        compactor = self.states.find(Compactor)  # type: ignore[type-abstract]
        if compactor is None:
            raise ToolError("Compaction is not available to this agent.")
        return compactor.request_compaction(focus)


# Western stops end a sentence only before a space (so "1.5" or "astro.db" do not); CJK stops always do.
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？]|\n")


def first_sentence(description: str, limit: int = 80) -> str:
    """The description's first sentence (ending at . 。 ! ? or a newline), cut to `limit` characters."""
    text = description.strip()
    match = _SENTENCE_END.search(text)
    if match:
        end = match.end() if match.group() != "\n" else match.start()
        text = text[:end].strip()
    return text[:limit]


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    run: Callable[[ToolContext, dict[str, Any]], ToolResult | str]
    read_only: bool = True
    needs_permission: bool = False
    timeout: float | None = None
    source: str = "builtin"
    key_argument: str | None = None  # shown on the compact tool line in the terminal

    @property
    def summary(self) -> str:
        return first_sentence(self.description)

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool schema litellm translates for every provider."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


def object_schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A JSON schema for an arguments object; saves repeating the boilerplate in every tool."""
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema
