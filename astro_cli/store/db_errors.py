"""The workspace database cannot be used: which file, what is wrong, what to do (one sentence).

Kept apart from store/db.py (which imports sqlite-utils) so that every command can catch these
errors without paying for that import.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import date
from pathlib import Path


class DatabaseUnusable(Exception):
    """The workspace database cannot be used (damaged, a folder, read-only): one sentence saying what to do."""

    def __init__(self, path: Path, cause: BaseException) -> None:
        super().__init__(unusable_sentence(path, cause))
        self.path = path
        self.damaged = is_damaged(cause) and path.is_file()


DAMAGED = ("not a database", "malformed", "corrupt")


def is_damaged(exc: BaseException) -> bool:
    """SQLite says the file is not a database, or a damaged one (as opposed to locked or read-only)."""
    return any(word in str(exc).lower() for word in DAMAGED)


def unusable_sentence(path: Path, exc: BaseException) -> str:
    """What went wrong with the database file and what the researcher can do about it."""
    reason = (exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc).strip()) or type(exc).__name__
    if isinstance(exc, IsADirectoryError) or path.is_dir():
        return f"{path} is a folder, but astro keeps its database there; move the folder away and astro creates the file."
    if is_damaged(exc):
        aside = f"{path.name}.corrupt-{date.today().isoformat()}"
        return (
            f"{path} is damaged ({reason}), so astro cannot read its sessions; move it aside "
            f"(mv {path} {path.parent / aside}) and astro starts a fresh one (`astro` offers to do this)."
        )
    read_only = isinstance(exc, PermissionError) or "readonly" in reason.replace("-", "") or "read-only" in reason
    if read_only or not os.access(path.parent if path.parent.exists() else path.parent.parent, os.W_OK):
        return (
            f"{path} cannot be written ({reason}): the workspace is read-only for you; run astro in a folder you "
            "can write to, or make this one writable."
        )
    if "locked" in reason.lower():
        return (
            f"{path} stayed locked by another process for the whole wait ({reason}); let the other astro "
            "command finish (or stop it) and run this one again."
        )
    if "full" in reason.lower():
        return f"{path} cannot be written: the disk is full; free some space and run astro again."
    return f"{path} cannot be opened ({reason}); check that {path.parent} is a folder you can write to."


def quarantine(path: Path) -> Path:
    """Move a damaged database (and its WAL files) aside as <name>.corrupt-<date>; astro then starts afresh."""
    stamp = date.today().isoformat()
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    from astro_cli.security.writer import Place, rename

    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            rename(Place.beside(side), Place.beside(target.with_name(target.name + suffix)))
    rename(Place.beside(path), Place.beside(target))
    return target


def state_error(exc: BaseException) -> bool:
    """An SQLite error about the file itself (damaged, read-only, disk full), not about astro's SQL."""
    if not isinstance(exc, sqlite3.DatabaseError) or isinstance(exc, sqlite3.IntegrityError):
        return False
    text = str(exc).lower()
    return is_damaged(exc) or any(word in text for word in ("readonly", "read-only", "disk", "unable to open"))
