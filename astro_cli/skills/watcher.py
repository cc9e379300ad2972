"""Hot reload: a watchdog observer on every skill folder, debounced, refreshing the registry.

A folder that does not exist yet (a fresh workspace has no skills/) is not an error: its nearest
existing parent is watched, not recursively, until the folder appears; then the folder itself is
watched. Events are debounced (300 ms of quiet) because editors save in bursts (temp file, rename,
chmod). Only changes that can change a skill count: a SKILL.md created, written, removed or
renamed, or a folder appearing or going; opening or reading a file (the registry's own reloads
read every SKILL.md) never triggers anything.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from astro_cli.skills.skill import SKILL_FILE

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.3
_CHANGES = {"created", "deleted", "modified", "moved", "closed"}


class SkillWatcher:
    def __init__(
        self,
        directories: list[Path],
        on_change: Callable[[], Any],
        debounce: float = DEBOUNCE_SECONDS,
    ) -> None:
        self.targets = _unique(directories)
        self.on_change = on_change
        self.debounce = debounce
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._observer: Any = None
        self._watches: dict[tuple[Path, bool], Any] = {}
        self.reloads = 0

    # --- lifetime ---------------------------------------------------------------------------
    def start(self) -> None:
        from watchdog.observers import Observer

        if self._observer is not None:
            return
        self._observer = Observer()
        self._observer.daemon = True
        self._sync_watches()
        self._observer.start()

    def stop(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            if observer.is_alive():
                observer.join(timeout=2)

    @property
    def running(self) -> bool:
        return self._observer is not None

    @property
    def pending(self) -> bool:
        return self._timer is not None

    # --- events -----------------------------------------------------------------------------
    def notice(self, event: Any) -> None:
        """Called on the observer thread for every filesystem event."""
        if event.event_type not in _CHANGES or not self._relevant(event):
            return
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.debounce, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def flush(self) -> bool:
        """Apply a pending change now (before a request), instead of waiting for the quiet period."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is None:
            return False
        timer.cancel()
        self._apply()
        return True

    def _fire(self) -> None:
        with self._lock:
            if self._timer is None or self._timer is not threading.current_thread():
                return
            self._timer = None
        self._apply()

    def _apply(self) -> None:
        if self._observer is not None:
            try:
                self._sync_watches()
            except OSError:
                log.debug("the skill folders could not all be watched", exc_info=True)
        self.reloads += 1
        self.on_change()

    def _relevant(self, event: Any) -> bool:
        paths = [Path(p) for p in (event.src_path, getattr(event, "dest_path", "")) if p]
        for path in paths:
            if path.name == SKILL_FILE:
                return True
            inside = any(path.is_relative_to(target) for target in self.targets)
            if inside and event.is_directory and event.event_type != "modified":
                return True  # a skill folder created, removed or renamed
            if any(
                _under(target, path) for target in self.targets
            ):  # a missing skill folder's parent appeared
                return True
        return False

    # --- watches ----------------------------------------------------------------------------
    def wanted(self) -> set[tuple[Path, bool]]:
        """(folder, recursive) pairs: each target if it exists, else its nearest existing parent."""
        wanted: set[tuple[Path, bool]] = set()
        for target in self.targets:
            if target.is_dir():
                wanted.add((target.resolve(), True))
                continue
            parent = target.parent
            while parent != parent.parent and not parent.is_dir():
                parent = parent.parent
            if parent.is_dir():
                wanted.add((parent.resolve(), False))
        return wanted

    def _sync_watches(self) -> None:
        observer = self._observer
        if observer is None:
            return
        wanted = self.wanted()
        for key in list(self._watches):
            if key not in wanted:
                try:
                    observer.unschedule(self._watches.pop(key))
                except (KeyError, OSError):
                    pass
        handler = _Handler(self)
        for key in sorted(wanted - set(self._watches)):
            try:
                self._watches[key] = observer.schedule(handler, str(key[0]), recursive=key[1])
            except OSError:  # vanished between the check and the watch, or no inotify watches left
                continue


class _Handler:
    """The smallest watchdog handler: every event goes to SkillWatcher.notice."""

    def __init__(self, watcher: SkillWatcher) -> None:
        self.watcher = watcher

    def dispatch(self, event: Any) -> None:
        try:
            self.watcher.notice(event)
        except Exception:  # noqa: BLE001 - a watcher error must never kill the observer thread
            log.debug("a skill watcher event could not be handled: %r", event, exc_info=True)


def _under(target: Path, path: Path) -> bool:
    """Is `path` the target folder or one of its missing ancestors (so its creation matters)?"""
    try:
        return target == path or target.is_relative_to(path)
    except ValueError:
        return False


def _unique(directories: list[Path]) -> list[Path]:
    seen: list[Path] = []
    for directory in directories:
        resolved = directory.expanduser().resolve()
        if resolved not in seen:
            seen.append(resolved)
    return seen
