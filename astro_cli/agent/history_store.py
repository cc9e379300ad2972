"""Where an AgentSession keeps its messages and usage: the sessions table, or memory.

The main session and subagents store theirs in SQLite (`store/sessions.py`, so `astro sessions
show` reads them); a teammate (003: no database persistence) passes a `MemoryHistory`. The loop
sees only the `HistoryStore` protocol, so neither needs a stand-in for the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from astro_cli.usage import Usage


class HistoryStore(Protocol):
    """What an AgentSession needs from its store."""

    def last_turn(self, session_id: str) -> int: ...

    def messages(self, session_id: str) -> list[Any]: ...

    def append(self, session_id: str, message: dict[str, Any], kind: str = "message", turn: int = 0,
               meta: dict[str, Any] | None = None) -> int: ...

    def touch(self, session_id: str, title: str | None = None, model: str | None = None) -> None: ...

    def set_kind(self, session_id: str, seq: int, kind: str) -> None: ...

    def record_usage(self, session_id: str, turn: int, model: str, usage: Usage,
                     purpose: str = "step") -> None: ...

    def delete_if_empty(self, session_id: str) -> None: ...


class MemoryHistory:
    """A history kept in memory only: a teammate's messages end with its run."""

    def __init__(self) -> None:
        self.stored: list[dict[str, Any]] = []
        self.usage: list[Usage] = []

    def last_turn(self, session_id: str) -> int:
        return 0

    def messages(self, session_id: str) -> list[Any]:
        return []

    def append(self, session_id: str, message: dict[str, Any], kind: str = "message", turn: int = 0,
               meta: dict[str, Any] | None = None) -> int:
        self.stored.append({"message": message, "kind": kind, "turn": turn, "meta": meta})
        return len(self.stored)

    def touch(self, session_id: str, title: str | None = None, model: str | None = None) -> None:
        pass

    def set_kind(self, session_id: str, seq: int, kind: str) -> None:
        if 0 < seq <= len(self.stored):
            self.stored[seq - 1]["kind"] = kind

    def record_usage(self, session_id: str, turn: int, model: str, usage: Usage,
                     purpose: str = "step") -> None:
        self.usage.append(usage)

    def delete_if_empty(self, session_id: str) -> None:
        pass
