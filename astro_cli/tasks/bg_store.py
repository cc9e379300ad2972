"""Background tool runs in the `bg_tasks` table: what ran, for which session, how it ended.

The table is the truth shared by every process of the workspace: `/bg`, `astro sessions show`
and the announcement to the model all read it. A row is written 'running' with the pid of the
process that runs it; a row left 'running' by a process that no longer exists (kill -9, a power
cut) is marked 'interrupted' by the next reader, so nothing reads as running forever.
"""

from __future__ import annotations

import builtins
import json
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from astro_cli.pids import pid_alive

if TYPE_CHECKING:
    from astro_cli.store.db import Database

FINISHED = ("completed", "failed", "cancelled", "interrupted")
# Why a task stopped without a result (its summary); the announcement to the model says it.
STOPPED_ON_EXIT = "astro exited before it finished"
STOPPED_ON_REQUEST = "it was cancelled on request"
STOPPED_BY_CRASH = "astro stopped (crash or kill) before it finished"
STATUS_MARKS = {"running": "⏳", "completed": "✅", "failed": "❌", "cancelled": "⚠️", "interrupted": "⚠️"}


@dataclass
class BgTask:
    id: int
    session_id: str
    tool: str
    arguments: dict[str, Any]
    subject: str
    status: str
    output: str
    output_chars: int
    summary: str
    pid: int
    started_at: str
    finished_at: str | None
    announced: bool
    turn: int = 0

    @property
    def label(self) -> str:
        return f"bg-{self.id}"

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> BgTask:
        return cls(
            id=row["id"], session_id=row["session_id"], tool=row["tool"],
            arguments=json.loads(row["arguments"] or "{}"), subject=row["subject"] or "",
            status=row["status"], output=row["output"] or "", output_chars=row["output_chars"] or 0,
            summary=row["summary"] or "", pid=row["pid"], started_at=row["started_at"],
            finished_at=row["finished_at"], announced=bool(row["announced"]), turn=row["turn"] or 0,
        )


def parse_task_id(raw: Any) -> int | None:
    """'bg-3', '3' or 3 -> 3; anything else -> None."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        match = re.fullmatch(r"\s*(?:bg-?)?(\d+)\s*", raw, flags=re.IGNORECASE)
        if match:
            return int(match.group(1))
    return None


def summarize(text: str, limit: int = 160) -> str:
    """One line of at most `limit` characters: the start of the output, whitespace folded."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


class BgStore:
    """Rows of `bg_tasks`; every method is safe to call from any thread of the process."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def create(self, session_id: str, turn: int, call_id: str, tool: str, arguments: dict[str, Any],
               subject: str, stamp: str) -> int:
        with self.database.lock:
            cursor = self.database.execute(
                "INSERT INTO bg_tasks (session_id, turn, call_id, tool, arguments, subject, status, pid, "
                "started_at) VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?)",
                (session_id, turn, call_id, tool, json.dumps(arguments, ensure_ascii=False), subject,
                 os.getpid(), stamp),
            )
            assert cursor.lastrowid is not None  # set by every INSERT
            return cursor.lastrowid

    def finish(self, task_id: int, status: str, output: str, stamp: str, summary: str | None = None) -> None:
        """Record the end of a task that is still 'running' (a row already ended stays as it is).

        The summary is the start of the output, or for a stopped task why it stopped.
        """
        self.database.execute(
            "UPDATE bg_tasks SET status = ?, output = ?, output_chars = ?, summary = ?, finished_at = ? "
            "WHERE id = ? AND status = 'running'",
            (status, output, len(output), summary or summarize(output), stamp, task_id),
        )

    def get(self, task_id: int) -> BgTask | None:
        rows = self.database.query("SELECT * FROM bg_tasks WHERE id = ?", (task_id,))
        return BgTask.from_row(rows[0]) if rows else None

    def list(self, session_id: str | None = None, limit: int = 50) -> list[BgTask]:
        where, params = ("WHERE session_id = ?", [session_id]) if session_id else ("", [])
        rows = self.database.query(
            f"SELECT * FROM bg_tasks {where} ORDER BY id DESC LIMIT ?", [*params, limit]
        )
        return [BgTask.from_row(row) for row in rows]

    def running_count(self, session_id: str) -> int:
        row = self.database.query(
            "SELECT count(*) AS n FROM bg_tasks WHERE session_id = ? AND status = 'running'", (session_id,)
        )[0]
        return int(row["n"])

    def unannounced(self, session_id: str) -> builtins.list[BgTask]:
        rows = self.database.query(
            "SELECT * FROM bg_tasks WHERE session_id = ? AND status != 'running' AND announced = 0 ORDER BY id",
            (session_id,),
        )
        return [BgTask.from_row(row) for row in rows]

    def mark_announced(self, task_ids: builtins.list[int]) -> None:
        for task_id in task_ids:
            self.database.execute("UPDATE bg_tasks SET announced = 1 WHERE id = ?", (task_id,))

    def sweep_dead(self, stamp: str) -> int:
        """Mark rows left 'running' by processes that are gone as 'interrupted'; return how many."""
        rows = self.database.query("SELECT DISTINCT pid FROM bg_tasks WHERE status = 'running'")
        swept = 0
        for row in rows:
            pid = row["pid"]
            if pid == os.getpid() or pid_alive(pid):
                continue
            cursor = self.database.execute(
                "UPDATE bg_tasks SET status = 'interrupted', finished_at = ?, summary = ? "
                "WHERE status = 'running' AND pid = ?",
                (stamp, STOPPED_BY_CRASH, pid),
            )
            swept += cursor.rowcount or 0
        return swept
