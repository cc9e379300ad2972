"""`citations` accepts malformed ids (issue 28): kind and status 'malformed'.

An answer's `arXiv:1001.12` or `2013PASP.125..306F` is reported as malformed instead of being
ignored, and stored with the rest of the answer's citations. SQLite cannot change a CHECK
constraint in place, so the table is rebuilt with the same columns and rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

COLUMNS = "id, session_id, turn, ord, ident, kind, status, title, paper, record, nudged, created_at"


def apply(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE citations_new (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            turn INTEGER NOT NULL,
            ord INTEGER NOT NULL,
            ident TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('bibcode', 'arxiv', 'doi', 'author-year', 'malformed')),
            status TEXT NOT NULL CHECK (status IN ('verified', 'resolved', 'unverified', 'malformed')),
            title TEXT,
            paper TEXT,
            record TEXT,
            nudged INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute(f"INSERT INTO citations_new ({COLUMNS}) SELECT {COLUMNS} FROM citations")
    db.execute("DROP TABLE citations")
    db.execute("ALTER TABLE citations_new RENAME TO citations")
    db.execute("CREATE INDEX citations_session ON citations (session_id, turn, ord)")
