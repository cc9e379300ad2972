"""Where the worker lives: a private runtime folder holding one socket, lock, log and warm list per
installation of astro (two virtual environments never share a worker).

Kept to the standard library and cheap: the thin client computes these on every `astro run`.
"""

from __future__ import annotations

import os
import stat
import sys
import zlib
from collections.abc import Mapping

RUNTIME_ENV = "ASTRO_RUNTIME_DIR"
# A Unix socket path longer than this cannot be bound (sun_path is 108 bytes on Linux, 104 on macOS).
MAX_SOCKET_PATH = 100


def package_folder() -> str:
    """The folder of the astro_cli package this process runs."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def installation_key(package: str | None = None) -> str:
    """Names one Python and one astro installation; a collision is harmless (the child checks both)."""
    identity = f"{sys.executable}\0{package or package_folder()}".encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(identity):08x}"


def runtime_folder(env: Mapping[str, str]) -> str:
    """ASTRO_RUNTIME_DIR, else $XDG_RUNTIME_DIR/astro (per user, in memory), else a per-uid folder in /tmp."""
    chosen = env.get(RUNTIME_ENV)
    if chosen:
        return os.path.abspath(os.path.expanduser(chosen))
    xdg = env.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "astro")
    return os.path.join(env.get("TMPDIR") or "/tmp", f"astro-{os.getuid()}")


class WorkerPaths:
    """The worker's files in `folder` for installation `key` (a plain class: dataclasses cost the client 10 ms)."""

    def __init__(self, folder: str, key: str) -> None:
        self.folder = folder
        self.key = key

    @classmethod
    def for_environment(cls, env: Mapping[str, str]) -> WorkerPaths:
        return cls(runtime_folder(env), installation_key())

    def _file(self, suffix: str) -> str:
        return os.path.join(self.folder, f"worker-{self.key}.{suffix}")

    @property
    def socket(self) -> str:
        return self._file("sock")

    @property
    def lock(self) -> str:
        return self._file("lock")

    @property
    def log(self) -> str:
        return self._file("log")

    @property
    def warm_list(self) -> str:
        """Modules the worker imports before serving (learned from real runs)."""
        return self._file("warm")

    def problem(self, create: bool = False) -> str | None:
        """Why this runtime folder cannot be used (None when it can): missing, not ours, not private.

        Another user could have made the folder in /tmp first; a folder we did not make, or that
        others can enter, is never used.
        """
        if len(self.socket) > MAX_SOCKET_PATH:
            return f"the socket path is too long for a Unix socket ({len(self.socket)} characters)"
        try:
            info = os.lstat(self.folder)
        except FileNotFoundError:
            if not create:
                return "no runtime folder yet"
            try:
                os.makedirs(os.path.dirname(self.folder), exist_ok=True)
                os.mkdir(self.folder, 0o700)
                info = os.lstat(self.folder)
            except OSError as exc:
                return f"cannot create the runtime folder {self.folder} ({exc.strerror})"
        except OSError as exc:
            return f"cannot read the runtime folder {self.folder} ({exc.strerror})"
        if not stat.S_ISDIR(info.st_mode):
            return f"{self.folder} is not a folder"
        if info.st_uid != os.getuid():
            return f"the runtime folder {self.folder} belongs to another user"
        if info.st_mode & 0o077:
            return f"the runtime folder {self.folder} is open to other users (mode {stat.S_IMODE(info.st_mode):o})"
        return None
