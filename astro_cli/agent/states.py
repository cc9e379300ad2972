"""Per-session feature state, found by type instead of by string.

Each feature keeps what it remembers about one session (the skills it activated, its team of
teammates, the compaction engine) in an object of its own class. `states.get(SkillsState)`
makes it on first use; `states.put(obj, kind)` stores an object made elsewhere, for example
under a Protocol the reader knows (the compaction engine as a `Compactor`). Nothing here
knows any feature, so every layer may import it.
"""

from __future__ import annotations

import threading
from typing import Any, TypeVar, cast

T = TypeVar("T")


class SessionStates:
    """One object per class for one session (tools of a turn run in threads, hence the lock)."""

    def __init__(self) -> None:
        self._objects: dict[type[Any], Any] = {}
        self._lock = threading.Lock()

    def get(self, kind: type[T]) -> T:
        """The session's `kind` object, made with `kind()` on first use."""
        with self._lock:
            found = self._objects.get(kind)
            if found is None:
                found = self._objects[kind] = kind()
            return cast(T, found)

    def find(self, kind: type[T]) -> T | None:
        """The session's `kind` object, or None when nothing made or stored one."""
        return cast("T | None", self._objects.get(kind))

    def put(self, obj: T, kind: type[T] | None = None) -> T:
        """Store `obj` as the session's `kind` (its own class unless a Protocol is named)."""
        with self._lock:
            self._objects[kind or type(obj)] = obj
        return obj

    def __contains__(self, kind: type[Any]) -> bool:
        return kind in self._objects
