"""Where compactions happened: one row per layer run, so `astro sessions show` can tell the story.

`after_seq` is the last stored message when the layer ran; `keep_from` (layer 'summary' only) is
how many stored messages the summary covers, which lets a resumed session send the same view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils


def apply(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE compactions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            turn INTEGER NOT NULL DEFAULT 0,
            layer TEXT NOT NULL CHECK (layer IN ('snip', 'micro', 'summary', 'aggressive')),
            trigger TEXT NOT NULL CHECK (trigger IN ('auto', 'manual', 'tool')),
            messages_before INTEGER NOT NULL,
            messages_after INTEGER NOT NULL,
            tokens_before INTEGER NOT NULL,
            tokens_after INTEGER NOT NULL,
            after_seq INTEGER NOT NULL DEFAULT 0,
            keep_from INTEGER,
            summary TEXT,
            instructions TEXT,
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX compactions_session ON compactions (session_id, id)")
