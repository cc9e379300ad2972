"""One object per class, found by its class instead of by a string.

The basic behind the app's services (`app.service(SkillRegistry, make)`, `app.services.find(...)`)
and a session's feature state (`session.state(SkillsState)`): a misspelt class is an import error
and mypy knows what comes back, where a misspelt string key was a silent miss. Nothing here knows
any feature, so every layer may import it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")


class ByKind:
    """One object per class; made once even when threads ask together (tools of a turn run in threads)."""

    def __init__(self) -> None:
        self._objects: dict[type[Any], Any] = {}
        # How a kind is made when the asker names no factory: a feature's install provides it (the
        # library from the app's parts), so a tool that only declares `needs=Library` receives it.
        self._factories: dict[type[Any], Callable[[], Any]] = {}
        # Reentrant: a factory may ask for another kind (the skill baseline needs the skill registry).
        self._lock = threading.RLock()

    def get(self, kind: type[T], factory: Callable[[], T] | None = None) -> T:
        """The `kind` object, made by `factory` (default: `kind()`) on first use."""
        found = self._objects.get(_checked(kind))
        if found is None:
            with self._lock:
                found = self._objects.get(kind)
                if found is None:
                    found = self._objects[kind] = (factory or self._factories.get(kind) or kind)()
        return cast(T, found)

    def provide(self, kind: type[T], factory: Callable[[], T]) -> None:
        """Make the `kind` object with `factory` on first use, whoever asks (`get(kind)` with no factory)."""
        with self._lock:
            self._factories[_checked(kind)] = factory

    def find(self, kind: type[T]) -> T | None:
        """The `kind` object, or None when nothing made or stored one yet (a peek that makes nothing)."""
        return cast("T | None", self._objects.get(_checked(kind)))

    def put(self, obj: T, kind: type[T] | None = None) -> T:
        """Store `obj` as the `kind` object (its own class unless a base or Protocol is named)."""
        with self._lock:
            self._objects[_checked(kind or type(obj))] = obj
        return obj

    def __contains__(self, kind: type[Any]) -> bool:
        return _checked(kind) in self._objects


def _checked(kind: Any) -> type[Any]:
    """A class, or a TypeError that says so: a string key would silently find nothing."""
    if not isinstance(kind, type):
        raise TypeError(f"objects are found by their class, not by {kind!r}")
    return kind


class SessionStates(ByKind):
    """One object per class for one session: each feature keeps what it remembers about the session
    (the skills it activated, its team, the compaction engine) in an object of its own class.
    `states.get(SkillsState)` makes it on first use; `states.put(obj, kind)` stores one made
    elsewhere, for example under a Protocol the reader knows (the engine as a `Compactor`)."""
