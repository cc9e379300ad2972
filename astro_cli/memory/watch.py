"""Change notices for the memory folder, so an assembly need not stat every memory file.

Checking 2,000 files costs 2,000 stat calls per step. With a watchdog observer on the folder (not
recursive), an assembly only looks at a 'dirty' flag and the folder's own mtime: the flag catches
edits in place (an editor saving over the file), the mtime catches any file created, removed or
renamed (atomic writes, including astro's own) at once, without waiting for the event thread. If
the observer cannot start (no watchdog backend, no inotify watches left), the catalog falls back to
statting every file, which is slower but exact.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from watchdog.events import FileSystemEventHandler

from astro_cli.memory.index import NOT_MEMORIES

log = logging.getLogger(__name__)

_CHANGES = {"created", "deleted", "modified", "moved", "closed"}
_QUIET = logging.NullHandler()  # one instance: addHandler ignores a handler it already has


class FolderWatch:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._observer: Any = None
        self._dirty = threading.Event()
        self._dir_key: tuple[int, int] | None = None  # (inode, mtime_ns) of the folder

    @property
    def active(self) -> bool:
        return self._observer is not None

    def start(self) -> bool:
        """Watch the folder if it exists; returns whether notices are now trustworthy."""
        if self._observer is not None:
            return True
        if not self.root.is_dir():
            return False
        try:
            from watchdog.observers import Observer

            # watchdog logs a harmless race at shutdown ("queue_events() called when the thread is
            # inactive"); with no handler, Python would print it on the user's terminal.
            logging.getLogger("watchdog").addHandler(_QUIET)
            observer = Observer()
            observer.daemon = True
            try:
                observer.schedule(_handler(self), str(self.root), recursive=False, event_filter=_event_filter())
            except TypeError:  # a watchdog without event filters: more events, same result
                observer.schedule(_handler(self), str(self.root), recursive=False)
            observer.start()
        except Exception:  # noqa: BLE001 - any failure means: fall back to statting every file
            return False
        self._observer = observer
        self._dirty.set()  # whatever happened before the watch started is unknown
        return True

    def stop(self) -> None:
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            if observer.is_alive():
                observer.join(timeout=2)

    def mark(self) -> None:
        self._dirty.set()

    def take_changed(self) -> bool:
        """Whether anything may have changed since the last call (clears the flag first).

        A folder that was removed or replaced (another inode) drops the watch, since inotify watched
        the old one; the next start() watches the new folder.
        """
        try:
            info = os.stat(self.root)
            key: tuple[int, int] | None = (info.st_ino, info.st_mtime_ns)
        except OSError:
            key = None
        if self._dir_key is not None and (key is None or key[0] != self._dir_key[0]):
            self.stop()
        changed = self._dirty.is_set() or key != self._dir_key
        if changed:
            self._dirty.clear()
        self._dir_key = key
        return changed

    def own_write(self) -> None:
        """astro rewrote MEMORY.md: take the folder's new mtime as known (its events are ignored anyway)."""
        try:
            info = os.stat(self.root)
        except OSError:
            return
        self._dir_key = (info.st_ino, info.st_mtime_ns)

    def notice(self, event: Any) -> None:
        if event.event_type not in _CHANGES:
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            path = Path(os.fsdecode(raw))
            if path == self.root or (path.parent == self.root and path.suffix == ".md" and path.name not in NOT_MEMORIES):
                self._dirty.set()
                return


def _event_filter() -> list[type]:
    """Writes, creations, removals and renames only: reading 2,000 files must not flood the event thread."""
    from watchdog import events

    return [events.FileCreatedEvent, events.FileDeletedEvent, events.FileModifiedEvent, events.FileMovedEvent,
            events.FileClosedEvent, events.DirDeletedEvent, events.DirMovedEvent]


def _handler(watch: FolderWatch) -> FileSystemEventHandler:
    """The smallest watchdog handler: every event goes to FolderWatch.notice (watchdog imported lazily)."""
    from watchdog.events import FileSystemEventHandler

    class Handler(FileSystemEventHandler):
        def dispatch(self, event: Any) -> None:
            try:
                watch.notice(event)
            except Exception:  # noqa: BLE001 - a watcher error must never kill the observer thread
                log.debug("a memory watcher event could not be handled: %r", event, exc_info=True)

    return Handler()
