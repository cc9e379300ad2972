"""Advisory file locks between astro processes (one writer per session, one download per paper).

The operating system releases a lock when its process dies, even by kill -9, so a crash never
leaves a session locked. The lock file holds who took it (pid, command, time), so the process
that is refused can say which one holds it. A lock file is removed when released; a process that
locked a file another one removed meanwhile notices (the path points elsewhere) and tries again.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

log = logging.getLogger(__name__)

if sys.platform == "win32":  # pragma: no cover - astro's CI runs on Linux and macOS
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

    def _open_folder(folder: Path) -> int | None:
        return None  # Windows cannot lock a folder; it refuses to delete an open database anyway

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

    def _open_folder(folder: Path) -> int | None:
        return os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))

    def _lock_shared(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_SH)


@dataclass(frozen=True)
class LockHolder:
    """Who holds a lock, as written in the lock file."""

    pid: int
    command: str
    since: str  # local time, HH:MM:SS

    def describe(self) -> str:
        return f"pid {self.pid}, `{self.command}`, since {self.since}"


class LockTimeout(Exception):
    """The lock was still held when the wait ran out."""


class FileLock:
    """An exclusive lock on `path`, taken without waiting (`try_acquire`) or with a wait (`acquire`)."""

    def __init__(self, path: Path, command: str = "") -> None:
        self.path = path
        self.command = command or " ".join(["astro", *sys.argv[1:3]])
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lock if it is free; True when this process now holds it."""
        if self._fd is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            if not _try_lock(fd):
                os.close(fd)
                return False
            if _same_file(fd, self.path):
                break
            os.close(fd)  # the holder removed it while we waited: lock the new one
        self._fd = fd
        info = {"pid": os.getpid(), "command": self.command, "since": datetime.now().strftime("%H:%M:%S")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        return True

    def acquire(
        self,
        timeout: float,
        on_wait: Callable[[LockHolder | None], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        """Wait up to `timeout` seconds for the lock; `on_wait` hears once who holds it. A set
        `cancel` event ends the wait with LockTimeout."""
        deadline = time.monotonic() + timeout
        told = False
        while not self.try_acquire():
            if not told and on_wait is not None:
                on_wait(self.holder())
                told = True
            if time.monotonic() >= deadline or (cancel is not None and cancel.wait(0.1)):
                raise LockTimeout(str(self.path))
            if cancel is None:
                time.sleep(0.1)

    def holder(self) -> LockHolder | None:
        """Who holds the lock now (None when nobody does or the file says nothing readable)."""
        try:
            info = json.loads(self.path.read_text(encoding="utf-8") or "null")
            return LockHolder(int(info["pid"]), str(info["command"]), str(info["since"]))
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            if _same_file(fd, self.path):
                self.path.unlink()  # still locked: whoever opened it meanwhile will retry on a new file
        except OSError:
            pass
        finally:
            _unlock(fd)
            os.close(fd)

    def __enter__(self) -> FileLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except OSError:
        return False


class FolderUse:
    """A shared lock on the folder of a database, held while this process has the database open.

    A command that created the workspace database and wrote nothing removes it at the end; before
    it does, `sole_use` checks that no other astro process holds this lock, so a session another
    terminal started meanwhile is never written into a deleted file. The lock is on the folder
    because SQLite's own locks on the file must not be touched.
    """

    def __init__(self, folder: Path) -> None:
        self._fd: int | None = None
        while True:
            folder.mkdir(parents=True, exist_ok=True)
            fd = _open_folder(folder)
            if fd is None:
                return
            try:
                _lock_shared(fd)  # waits only while a remover holds it, a few milliseconds
            except OSError:  # a file system without locks: sole_use keeps every database there
                log.debug("cannot lock %s; its database will not be cleaned up", folder, exc_info=True)
                os.close(fd)
                return
            if _same_file(fd, folder):
                self._fd = fd
                return
            os.close(fd)  # removed (with its database) while we waited: make it again

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the descriptor releases the lock


@contextmanager
def sole_use(folder: Path) -> Iterator[bool]:
    """True inside when no other astro process has a database in `folder` open; openers wait meanwhile."""
    try:
        fd = _open_folder(folder)
    except OSError:
        yield False
        return
    if fd is None:
        yield True
        return
    try:
        alone = _try_lock(fd)
    except OSError:  # no locks on this file system: nobody can be shown to be absent
        log.debug("cannot lock %s; keeping its database", folder, exc_info=True)
        alone = False
    try:
        yield alone
    finally:
        os.close(fd)
