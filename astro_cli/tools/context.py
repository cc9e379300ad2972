"""What a running tool may reach: the narrow context the loop builds for each call.

A simple tool needs only `ctx.settings`, `ctx.workspace`, `ctx.confinement` and the long-lived
objects it declares, which it receives as parameters (`@tool(needs=Library)`, tools/typed.py; the
feature's install provides how each is made). `ctx.app` stays for the few tools that build agent
sessions from the whole app (tests/tools/test_tool_deps.py lists them). It also gets its session's typed feature
state (`ctx.state(SkillsState)`) and explicit capabilities from its host, the running turn:
`approve_for_turn`, `touched`, `add_usage`, `warn`, `request_compaction`. It never gets the session or
the turn itself, so a tool cannot reach back into the loop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from astro_cli.by_kind import SessionStates
from astro_cli.tools.base import ToolError

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.config import Settings
    from astro_cli.security.paths import Confinement
    from astro_cli.usage import Usage
    from astro_cli.workspace import Workspace

log = logging.getLogger(__name__)


class ToolHost(Protocol):
    """What the running agent lets a tool do to it: explicit capabilities, never the session itself."""

    def approve_for_turn(self, tools: Sequence[str]) -> None:
        """Let `tools` run without a permission question until the turn ends (a skill's allowed-tools)."""

    def touched(self, path: Path) -> None:
        """A file was read, written or searched: features that listen (conditional skills) hear of it."""

    def add_usage(self, usage: Usage) -> None:
        """Count a request made on the turn's behalf (a subagent's) in the turn's tokens and cost."""

    def warn(self, text: str) -> None:
        """Tell the user something the model need not hear (a weaker sandbox, say): a notice event."""


class DetachedHost:
    """The host of a call outside a turn (a test, a background task): the capabilities do nothing.

    A background task runs after its turn may have ended, so it can neither widen that turn's
    permissions nor add to its cost, and the loop's thread alone owns the session's skill state.
    """

    def approve_for_turn(self, tools: Sequence[str]) -> None:
        pass

    def touched(self, path: Path) -> None:
        pass

    def add_usage(self, usage: Usage) -> None:
        pass

    def warn(self, text: str) -> None:
        log.debug("%s", text)  # no one watches a call outside a turn: the debug log keeps it


class Compactor(Protocol):
    """The session's compaction, as the compress_context tool asks for it (compact/engine.py)."""

    def request_compaction(self, focus: str | None) -> str:
        """Compact before the next request; returns the sentence for the model."""
        ...


S = TypeVar("S")


@dataclass
class ToolContext:
    """What a running tool may reach: settings, workspace, the app's services, its session's typed
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
    def settings(self) -> Settings:
        return self.app.settings

    @property
    def workspace(self) -> Workspace:
        return self.app.workspace

    @property
    def workspace_root(self) -> Path:
        return self.app.workspace.root

    @property
    def confinement(self) -> Confinement:
        """Where the tool may read and write (the workspace and allowed_paths, minus astro's own state)."""
        return self.app.confinement

    def service(self, kind: type[S], factory: Callable[[], S] | None = None) -> S:
        """The app's one `kind` object (a feature's long-lived service), made by `factory` or `kind()` on first use."""
        return self.app.service(kind, factory)

    def resolve_path(self, raw: str, must_exist: bool = False) -> Path:
        """The real path of a path the model gave; refused outside the workspace and allowed paths."""
        return self.confinement.resolve(raw, must_exist)

    def writable_path(self, raw: str) -> Path:
        """Like resolve_path, and refused for astro's own state (.astro/, ASTRO_HOME, .mcp.json)."""
        return self.confinement.writable(raw)

    def state(self, kind: type[S]) -> S:
        """The session's `kind` object (a feature's own state), made on first use."""
        return self.states.get(kind)

    def touched(self, path: Path) -> None:
        """Record that a file was read, written or searched (conditional skills listen to this)."""
        self.host.touched(path)

    def approve_for_turn(self, tools: Sequence[str]) -> None:
        """Pre-approve `tools` for the rest of this turn only."""
        self.host.approve_for_turn(tools)

    def add_usage(self, usage: Usage) -> None:
        """Add tokens spent for this call (a subagent's) to the turn's count."""
        self.host.add_usage(usage)

    def warn(self, text: str) -> None:
        """Warn the user (shown, never sent to the model)."""
        self.host.warn(text)

    def request_compaction(self, focus: str | None) -> str:
        """Ask the session's compaction to run before the next request; the model's sentence back."""
        compactor = self.states.find(Compactor)  # type: ignore[type-abstract]
        if compactor is None:
            raise ToolError("Compaction is not available to this agent.")
        return compactor.request_compaction(focus)
