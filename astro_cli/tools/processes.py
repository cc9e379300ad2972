"""The commands astro started, so an interrupt or exit of astro ends them too.

run_bash starts each command in a process group of its own (so a Ctrl-C meant for astro does
not reach it half-way) and registers the group here. When astro is interrupted, terminated or
exits, every group still registered is sent SIGTERM, then SIGKILL after a short grace: no
command the model started goes on writing files after astro has said "interrupted".

A command may also leave a process outside its group (`setsid ... &`) that keeps its output
pipe open; `pipe_holders` finds those on Linux through /proc so a timeout can stop them too.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.app import AppContext

TERMINATE_GRACE = 0.5


@dataclass(frozen=True)
class Holder:
    """A process that holds a command's output pipe: its pid and command line, for the report."""

    pid: int
    command: str


class ProcessGroups:
    """Process groups of running commands, ended together when astro stops (one per AppContext)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: set[int] = set()

    def add(self, pgid: int) -> None:
        with self._lock:
            self._groups.add(pgid)

    def discard(self, pgid: int) -> None:
        with self._lock:
            self._groups.discard(pgid)

    def running(self) -> list[int]:
        with self._lock:
            return sorted(self._groups)

    def terminate_all(self, grace: float = TERMINATE_GRACE) -> None:
        """SIGTERM every registered group, SIGKILL what is left after `grace` seconds."""
        with self._lock:
            groups, self._groups = set(self._groups), set()
        alive = [pgid for pgid in groups if signal_group(pgid, signal.SIGTERM)]
        deadline = time.monotonic() + grace
        while alive and time.monotonic() < deadline:
            time.sleep(0.02)
            alive = [pgid for pgid in alive if signal_group(pgid, 0)]
        for pgid in alive:
            signal_group(pgid, signal.SIGKILL)


def signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to a process group; False when the group no longer exists."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # the id was reused by someone else's process: not ours to stop
    return True


def process_groups(app: AppContext) -> ProcessGroups:
    """The app's registry; its groups are ended when the app closes (exit, interrupt, termination)."""

    def make() -> ProcessGroups:
        groups = ProcessGroups()
        app.on_close(groups.terminate_all)
        return groups

    return app.service(ProcessGroups, make)


def pipe_holders(inode: int) -> list[Holder]:
    """Other processes with the pipe of this inode open (Linux /proc; an empty list elsewhere)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    target = f"pipe:[{inode}]"
    skip = {os.getpid()}
    found: list[Holder] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) in skip:
            continue
        try:
            links = [os.readlink(link) for link in (entry / "fd").iterdir()]
        except OSError:
            continue  # gone, or another user's process
        if target in links:
            found.append(Holder(int(entry.name), _command_line(entry)))
    return found


def _command_line(entry: Path) -> str:
    try:
        raw = (entry / "cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)[:80] or "?"
