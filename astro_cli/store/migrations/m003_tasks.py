"""The task plan of each session (todo_write) and background tool runs (bg_task_run)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils


def apply(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE agent_tasks (
            session_id TEXT NOT NULL REFERENCES sessions(id),
            id TEXT NOT NULL,
            content TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed')),
            depends_on TEXT NOT NULL DEFAULT '[]',
            assignee TEXT,
            position INTEGER NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (session_id, id)
        )
        """
    )
    db.execute(
        """
        CREATE TABLE bg_tasks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            turn INTEGER NOT NULL DEFAULT 0,
            call_id TEXT,
            tool TEXT NOT NULL,
            arguments TEXT NOT NULL,
            subject TEXT,
            status TEXT NOT NULL
                CHECK (status IN ('running', 'completed', 'failed', 'cancelled', 'interrupted')),
            output TEXT,
            output_chars INTEGER NOT NULL DEFAULT 0,
            summary TEXT,
            pid INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            announced INTEGER NOT NULL DEFAULT 0
        )
        """
    )
    db.execute("CREATE INDEX bg_tasks_session_status ON bg_tasks (session_id, status)")
