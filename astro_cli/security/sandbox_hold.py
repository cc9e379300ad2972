"""Empty placeholders for protected files that do not exist yet, while a command the model wrote runs.

A hook `bash tools/gate.sh` whose script is not written yet must not be plantable from the sandbox.
A mount needs something on disk to cover, so before such a command runs the first missing part of
the path is made (an empty file, or an empty folder when a folder on the way is missing) and the
sandbox binds it read-only; when the last command holding it ends, what is still empty is removed,
so the workspace is as it was and a hook that later writes its own file can. Only this process's
commands are counted: two astro processes in one workspace may each remove what the other holds.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from astro_cli.security import writer
from astro_cli.security.sandbox_plan import first_missing, inside
from astro_cli.security.writer import Place

log = logging.getLogger(__name__)


class Placeholders:
    """The placeholders of one Sandbox: made on first hold, removed when no command holds them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        self._made: dict[Path, tuple[int, int]] = {}  # path -> (device, inode) as made

    @contextmanager
    def held(self, wanted: Iterable[tuple[Path, Path]]) -> Iterator[tuple[Path, ...]]:
        """Hold each missing (path, writable root) pair; yields every placeholder now standing."""
        with self._lock:
            self._holders += 1
            for path, root in wanted:
                self._make(path, root)
            standing = tuple(self._made)
        try:
            yield standing
        finally:
            with self._lock:
                self._holders -= 1
                if self._holders == 0:
                    self._remove_all()

    def _make(self, path: Path, root: Path) -> None:
        missing = first_missing(path, root)
        if missing is None or not inside(missing, root) or missing in self._made:
            return
        try:
            if missing == path:
                writer.write_bytes(Place.of(root, missing), b"", replace=False, mode=0o444)  # never over a file
            else:
                os.mkdir(missing, 0o555)
            info = os.lstat(missing)
        except OSError as exc:  # the command still runs; the path is pinned but not held
            log.debug("sandbox: no placeholder at %s: %s", missing, exc)
            return
        self._made[missing] = (info.st_dev, info.st_ino)

    def _remove_all(self) -> None:
        for path, (device, inode) in sorted(self._made.items(), key=lambda item: -len(item[0].parts)):
            try:
                info = os.lstat(path)
                if (info.st_dev, info.st_ino) != (device, inode):
                    continue  # replaced by hand meanwhile: not ours any more
                if stat.S_ISDIR(info.st_mode):
                    os.rmdir(path)  # fails when someone put something in it
                elif info.st_size == 0:
                    os.unlink(path)
            except OSError as exc:
                log.debug("sandbox: placeholder %s kept: %s", path, exc)
        self._made.clear()
