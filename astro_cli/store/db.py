"""Open the workspace database (WAL, migrations applied) through sqlite-utils."""

from __future__ import annotations

import logging
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlite_utils import Database as SqliteDatabase
    from sqlite_utils.db import Table


def _import_sqlite_utils() -> ModuleType:
    """sqlite-utils imports numpy (0.1 s) only to store numpy values, which astro never passes it.

    Hiding numpy during that one import keeps it off every command's start-up; numpy imports
    normally afterwards for the code that uses it (vector search).
    """
    if "sqlite_utils" in sys.modules or "numpy" in sys.modules:
        import sqlite_utils

        return sqlite_utils
    sys.modules["numpy"] = None  # type: ignore[assignment]  # None makes the import fail (documented); typeshed forbids it
    try:
        import sqlite_utils
    finally:
        del sys.modules["numpy"]
    return sqlite_utils


sqlite_utils = _import_sqlite_utils()

log = logging.getLogger(__name__)

# The parameters of one SQL statement: positional (`?`) or named (`:name`).
Params = tuple[Any, ...] | list[Any] | dict[str, Any]

from astro_cli.store.db_errors import DatabaseUnusable  # noqa: E402
from astro_cli.store.locks import FolderUse, sole_use  # noqa: E402
from astro_cli.store.migrations import MIGRATIONS  # noqa: E402

# How long a statement waits for another process's lock before it gives up (seconds).
BUSY_TIMEOUT = 30.0


def switch_to_wal(conn: sqlite3.Connection, timeout: float = BUSY_TIMEOUT) -> None:
    """Put the database in WAL mode, waiting out other processes that do the same.

    Two astro processes opening a fresh workspace at one moment (two `library add` at once) both
    ask for WAL; SQLite answers one of them "database is locked" at once, without waiting (its
    busy handler steps aside to avoid a deadlock), so the wait is ours: retry until WAL is on.
    """
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
                return
            mode = conn.execute("PRAGMA journal_mode=wal").fetchone()[0]
            if mode.lower() != "wal":  # a file system without WAL: astro works on, as before
                log.debug("the database stays in journal mode %s", mode)
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc).lower():
                raise
            refused = exc
        if time.monotonic() + pause > deadline:
            raise refused
        log.debug("another process is opening the database too; trying again (%s)", refused)
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


class Database:
    """A sqlite-utils database shared by the threads of one process.

    One connection, guarded by a re-entrant lock: background tasks and teammates write from
    other threads, and SQLite in WAL mode keeps readers in other processes unblocked.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        self.lock = threading.RLock()
        self._folder_use: FolderUse | None = None
        try:
            self._open(str(path))
        except (sqlite3.DatabaseError, OSError) as exc:
            self._release_folder()
            if self.path is None or isinstance(exc, sqlite3.IntegrityError):
                raise
            raise DatabaseUnusable(self.path, exc) from None

    def _open(self, path: str) -> None:
        if self.path is not None:
            if self.path.is_dir():
                raise IsADirectoryError(path)
            self._folder_use = FolderUse(self.path.parent)
        conn = sqlite3.connect(path, check_same_thread=False, timeout=BUSY_TIMEOUT, isolation_level=None)
        self.db: SqliteDatabase = sqlite_utils.Database(conn)
        if self.path is not None:
            switch_to_wal(conn)
        self.db.execute("PRAGMA foreign_keys = ON")
        self.db.execute("PRAGMA synchronous = NORMAL")
        migrate(self.db)

    def __getitem__(self, table: str) -> Table:
        return self.db.table(table)

    def execute(self, sql: str, params: Params = ()) -> sqlite3.Cursor:
        with self.lock:
            return self.db.execute(sql, params)

    def query(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.db.query(sql, params))

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing, holding SQLite's write lock from the start (BEGIN IMMEDIATE), so what is
        read inside (the next message number, say) cannot be taken by another process meanwhile.
        Inside an outer transaction it simply joins it."""
        with self.lock:
            if self.db.conn.in_transaction:
                yield
                return
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def close(self) -> None:
        with self.lock:
            self.db.conn.close()
            self._release_folder()

    def _release_folder(self) -> None:
        if self._folder_use is not None:
            self._folder_use.release()
            self._folder_use = None


def remove_if_unused(path: Path, folder: Path | None) -> bool:
    """Delete a database this process created when nothing was written to it but its schema (a
    command that only read, or failed), and `folder` too when that left it empty. True if removed.

    Kept when another astro process has it open (a session started in another terminal meanwhile)."""
    with sole_use(path.parent) as alone:
        return alone and _remove_if_empty(path, folder)


def _remove_if_empty(path: Path, folder: Path | None) -> bool:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
            virtual = [name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL")]
            tables = [name for name, _sql in rows if name not in virtual and name != "schema_migrations"
                      and not name.startswith("sqlite_") and not any(name.startswith(v + "_") for v in virtual)]
            if any(conn.execute(f'SELECT 1 FROM "{name}" LIMIT 1').fetchone() for name in tables):
                return False
        finally:
            conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        if folder is not None:
            for leftover in sorted(folder.rglob("*"), reverse=True):  # empty lock folders, nothing else
                if leftover.is_dir() and not any(leftover.iterdir()):
                    leftover.rmdir()
            if not any(folder.iterdir()):
                folder.rmdir()
    except (sqlite3.Error, OSError):
        log.debug("could not remove the unused database %s", path, exc_info=True)
        return False
    return True


def migrate(db: SqliteDatabase) -> None:
    """Apply the numbered migrations not yet recorded in `schema_migrations`."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)"
    )
    done = {row[0] for row in db.execute("SELECT version FROM schema_migrations").fetchall()}
    for version, name, apply in MIGRATIONS:
        if version in done:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            # Another process starting at the same moment may have applied it while we waited for the lock.
            if db.execute("SELECT 1 FROM schema_migrations WHERE version = ?", (version,)).fetchone():
                db.execute("COMMIT")
                continue
            apply(db)
            db.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, datetime('now'))",
                (version, name),
            )
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


def schema_version(db: SqliteDatabase) -> int:
    row = db.execute("SELECT max(version) FROM schema_migrations").fetchone()
    return row[0] or 0
