"""Skill uses: one row per load of a skill, the source of the listing's usage score."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils


def apply(db: sqlite_utils.Database) -> None:
    # No foreign key to sessions: usage outlives a deleted session, and /NAME may run before one exists.
    db.execute(
        """
        CREATE TABLE skill_usage (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            used_at REAL NOT NULL,
            session_id TEXT,
            source TEXT NOT NULL DEFAULT 'model'
        )
        """
    )
    db.execute("CREATE INDEX skill_usage_time ON skill_usage (used_at, name)")
