"""Keeping secrets out of reach of the commands astro starts (Linux).

`run_bash` and hooks get an environment without secret variables, but a command could still read
astro's own start-up environment (`/proc/<astro pid>/environ`, what `ps e` shows) or its memory.
On Linux, `harden_process()` blanks the secret values in that start-up block (Python keeps its own
copy in `os.environ`, so astro and litellm still see them) and marks the process non-dumpable,
which makes `/proc/<pid>/environ` and `/proc/<pid>/mem` unreadable to other processes of the same
user. A process running as root can still read everything; docs/security.md says what holds where.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
from collections.abc import Iterable

log = logging.getLogger(__name__)
PR_SET_DUMPABLE = 4


def _environment_block() -> tuple[int, int] | None:
    """The start and end address of this process's start-up environment (fields 50 and 51 of stat)."""
    try:
        with open("/proc/self/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
        fields = stat[stat.rindex(")") + 2 :].split()
        start, end = int(fields[47]), int(fields[48])
    except (OSError, ValueError, IndexError):
        return None
    return (start, end) if 0 < start < end and end - start < 4 << 20 else None


def blank_startup_environment(names: Iterable[str]) -> list[str]:
    """Overwrite the values of `names` in the start-up environment block with NUL bytes.

    Each value is blanked only when the bytes found there are exactly the value Python holds, so a
    surprise in the layout changes nothing. Returns the names that were blanked.
    """
    wanted = {name: os.environ[name] for name in names if name in os.environ}
    block = _environment_block() if wanted and sys.platform.startswith("linux") else None
    if block is None:
        return []
    start, end = block
    raw = ctypes.string_at(start, end - start)
    blanked: list[str] = []
    offset = 0
    for entry in raw.split(b"\0"):
        name, sep, value = entry.partition(b"=")
        key = name.decode("utf-8", errors="replace")
        if sep and key in wanted and value == os.fsencode(wanted[key]) and value:
            ctypes.memset(start + offset + len(name) + 1, 0, len(value))
            blanked.append(key)
        offset += len(entry) + 1
    for key in blanked:
        # The C-level environment pointed into the blanked block: give it the value back on the heap,
        # so child processes that inherit the environment (none of astro's own do) keep working.
        os.environ[key] = wanted[key]
    return blanked


def set_non_dumpable() -> bool:
    """prctl(PR_SET_DUMPABLE, 0): other processes of the user can no longer read ours through /proc."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def harden_process(secret_names: Iterable[str]) -> None:
    """Done once before astro starts any command: blank the secrets and close /proc to other processes."""
    names = list(secret_names)
    blanked = blank_startup_environment(names)
    dumpable_off = set_non_dumpable()
    log.debug("process hardened: %d secret variable(s) blanked, non-dumpable=%s", len(blanked), dumpable_off)
