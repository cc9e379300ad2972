"""What astro knows of one MCP server while it runs: its status, its tools, why it stopped.

The server's task in the manager's event loop moves it from state to state; the agent loop, the
REPL and `astro mcp list` read it from other threads. Every change holds the manager's condition,
so a waiter (the first model request, waiting for servers still starting) wakes at once, and each
failure leaves exactly one notice for the researcher.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from astro_cli.mcp.servers import ServerSpec

CONFIGURED = "configured"  # startable, not started yet (no session has called a model)
STARTING = "starting"
READY = "ready"
FAILED = "failed"  # did not start: an error, a timeout
STOPPED = "stopped"  # was ready, then ended (crashed, closed the connection, or astro stopped it)
SKIPPED = "skipped"  # not started on purpose (an untrusted folder, replaced by another)
INVALID = "invalid"  # the configuration entry cannot be used

STDERR_TAIL_LINES = 8


@dataclass(frozen=True)
class RemoteTool:
    """A tool as the server lists it (no SDK type leaves connection.py)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    title: str = ""


@dataclass(frozen=True)
class CallOutcome:
    """A tool call's result as text for the model, and whether the server marked it an error."""

    text: str
    is_error: bool


@dataclass
class ServerState:
    spec: ServerSpec
    lock: threading.Condition
    notify: Callable[[str], None]
    status: str = CONFIGURED
    reason: str = ""
    tools: list[RemoteTool] = field(default_factory=list)
    server_version: str = ""
    startup_seconds: float | None = None
    generation: int = 0  # bumps at each start, so tools built for an earlier connection are rebuilt
    started_at: float = 0.0
    # Set and used inside the event loop only: the SDK client, and how to ask the task to end.
    client: Any = None
    stop: Callable[[], None] | None = None
    finished: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        if self.spec.problem:
            self.status, self.reason = INVALID, self.spec.problem
        elif self.spec.skipped:
            self.status, self.reason = SKIPPED, self.spec.skipped
        self.finished.set()

    @property
    def name(self) -> str:
        return self.spec.name

    def begin(self) -> None:
        with self.lock:
            self.status, self.reason, self.tools, self.client = STARTING, "", [], None
            self.generation += 1
            self.started_at = time.monotonic()
            self.startup_seconds = None
            self.finished.clear()
            self.lock.notify_all()

    def ready(self, client: Any, tools: list[RemoteTool], version: str) -> bool:
        """The server answered and listed its tools; False when it had already been given up on."""
        with self.lock:
            if self.status != STARTING:
                return False
            self.status, self.client, self.tools, self.server_version = READY, client, tools, version
            self.startup_seconds = time.monotonic() - self.started_at
            self.lock.notify_all()
            return True

    def fail(self, reason: str, stderr_tail: str = "") -> None:
        """It did not start, or it ended while in use: one notice, and its tools go."""
        with self.lock:
            if self.status not in (STARTING, READY):
                return
            was_ready = self.status == READY
            self.status, self.reason, self.client = (STOPPED if was_ready else FAILED), reason, None
            self.lock.notify_all()
        what = "stopped during the session" if was_ready else "did not start"
        text = f"MCP server '{self.name}' {what}: {reason}; its tools are left out."
        if stderr_tail:
            text += f"\nlast lines of its stderr:\n{stderr_tail}"
        self.notify(text)

    def end(self, reason: str = "stopped by astro") -> None:
        """The task is over (astro stopped it, or after fail()): no client is left to call."""
        with self.lock:
            if self.status in (STARTING, READY):
                self.status, self.reason = STOPPED, reason
            self.client = None
            self.stop = None
            self.finished.set()
            self.lock.notify_all()


def stderr_tail(text: str, lines: int = STDERR_TAIL_LINES) -> str:
    kept = [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]
    return "\n".join(kept)
