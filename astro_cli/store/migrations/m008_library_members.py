"""Who added what: `papers.added_by` and the owner of each note (issue 20, the group library).

A local library is one person's, but the same rows can be copied into a group's PostgreSQL library
(`astro library migrate`) and back, so both keep who added a paper. A note row also records the
workspace it was indexed from (`host:path`): in a shared library, syncing one member's notes folder
must never touch anyone else's notes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils


def apply(db: sqlite_utils.Database) -> None:
    db.execute("ALTER TABLE papers ADD COLUMN added_by TEXT")
    db.execute("CREATE INDEX papers_added_by ON papers (lower(added_by))")
    db.execute("ALTER TABLE notes ADD COLUMN added_by TEXT")
    db.execute("ALTER TABLE notes ADD COLUMN workspace TEXT")
