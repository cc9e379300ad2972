"""One indexer per library: the lock its holder keeps, handed from `library add` to the child it starts.

The queue is the database itself: a paper whose chunks have no vector of the model in use is
waiting (reindex.pending). What must be single is the worker that drains it. Its holder keeps an
exclusive flock on `.astro/reindex.lock` (the kernel drops it when the holder dies, so a killed
indexer never blocks the next one). Starting one takes the lock without waiting and passes the
open file to the child (`pass_fds`): the lock belongs to the open file, so the child holds it from
its first instruction and no second indexer can start in between. An add that finds the lock taken
starts nothing: the holder looks for pending papers again after it lets the lock go (reindex.py),
and the paper was stored before the add looked, so one of the two sees it.

Who holds it is written to `.astro/reindex.pid` for `running()`: probing the flock would take it
for an instant, and an add that met the probe would leave its paper to a holder that is not one.
"""

from __future__ import annotations

import fcntl
import logging
import os
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from astro_cli.security import writer
from astro_cli.security.writer import Place

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore

log = logging.getLogger(__name__)

LOCK_NAME = "reindex.lock"
PID_NAME = "reindex.pid"


def lock_path(library: LibraryCore) -> Path:
    return library.workspace.astro_dir / LOCK_NAME


class IndexLock:
    """The library's indexer lock, held through an open file descriptor of the lock file."""

    def __init__(self, library: LibraryCore, fd: int) -> None:
        self.astro_dir = library.workspace.astro_dir
        self.fd = fd

    @classmethod
    def take(cls, library: LibraryCore, wait: bool) -> IndexLock | None:
        """The lock, or None when another process holds it and `wait` is False."""
        path = lock_path(library)
        path.parent.mkdir(parents=True, exist_ok=True)
        with writer.open_append(Place(path.parent, (path.name,))) as handle:
            fd = os.dup(handle.fileno())  # the same open file: the lock lives as long as this descriptor
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        held = cls(library, fd)
        held.mark()
        return held

    @classmethod
    def inherited(cls, library: LibraryCore, fd: int) -> IndexLock | None:
        """The lock a parent handed over as descriptor `fd`; None when `fd` is not that file locked."""
        try:
            mine, theirs = os.fstat(fd), lock_path(library).stat()
            if (mine.st_dev, mine.st_ino) != (theirs.st_dev, theirs.st_ino):
                log.debug("descriptor %d is not the library's lock file", fd)
                return None
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # ours already: this only confirms it
        except OSError as exc:
            log.debug("descriptor %d holds no lock of this library: %s", fd, exc)
            return None
        held = cls(library, fd)
        held.mark()
        return held

    def mark(self, pid: int | None = None) -> None:
        """Say which process holds the lock (the child, once the lock is handed over)."""
        try:
            writer.write_file(self.astro_dir / PID_NAME, f"{pid or os.getpid()}\n", root=self.astro_dir)
        except OSError as exc:
            log.debug("could not write %s: %s", PID_NAME, exc)

    def release(self) -> None:
        """Let the lock go (the pid file first: after the unlock another holder may write its own)."""
        with suppress(OSError):
            (self.astro_dir / PID_NAME).unlink()
        with suppress(OSError):
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        self.close()

    def close(self) -> None:
        """Close this process's descriptor without unlocking: a child given the same open file keeps the lock."""
        with suppress(OSError):
            os.close(self.fd)


def running(library: LibraryCore) -> bool:
    """Is an indexer of this library alive? (its pid file names a live process; the lock is not probed)"""
    try:
        pid = int((library.workspace.astro_dir / PID_NAME).read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return True
