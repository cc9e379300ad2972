"""Sessions, every message of every session, and per-request usage."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils


def apply(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            workspace TEXT NOT NULL,
            title TEXT,
            model TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            parent_id TEXT,
            agent TEXT
        )
        """
    )
    db.execute("CREATE INDEX sessions_updated ON sessions (updated_at)")
    db.execute(
        """
        CREATE TABLE agent_messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            seq INTEGER NOT NULL,
            turn INTEGER NOT NULL DEFAULT 0,
            role TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'message',
            message TEXT NOT NULL,
            meta TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (session_id, seq)
        )
        """
    )
    db.execute(
        """
        CREATE TABLE usage (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            turn INTEGER NOT NULL DEFAULT 0,
            model TEXT,
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cache_read_input_tokens INTEGER NOT NULL DEFAULT 0,
            cache_creation_input_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL,
            purpose TEXT NOT NULL DEFAULT 'step',
            created_at TEXT NOT NULL
        )
        """
    )
