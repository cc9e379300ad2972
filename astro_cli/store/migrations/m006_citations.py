"""Citations you can check: the published version of each paper, and what each answer cited.

`papers` gains what a BibTeX entry of the published version needs when NASA ADS is not there:
arXiv's free-text `journal_ref` ("Phys. Rev. B 85, 115117 (2012)") and primary category, and the
structured journal, volume, first page (or article id) and year ADS gives. (`pages` stays the
PDF's page count.) `citations` holds the check of every answer: one row per identifier or
author-year citation, in the order the answer cites them, with its status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

PAPER_COLUMNS = ("journal_ref", "primary_class", "journal", "volume", "page")


def apply(db: sqlite_utils.Database) -> None:
    for column in PAPER_COLUMNS:
        db.execute(f"ALTER TABLE papers ADD COLUMN {column} TEXT")
    db.execute("ALTER TABLE papers ADD COLUMN pub_year INTEGER")
    db.execute("CREATE INDEX papers_year ON papers (year)")
    db.execute(
        """
        CREATE TABLE citations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            turn INTEGER NOT NULL,
            ord INTEGER NOT NULL,
            ident TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('bibcode', 'arxiv', 'doi', 'author-year')),
            status TEXT NOT NULL CHECK (status IN ('verified', 'resolved', 'unverified')),
            title TEXT,
            paper TEXT,
            record TEXT,
            nudged INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX citations_session ON citations (session_id, turn, ord)")
