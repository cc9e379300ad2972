"""Paper text by kind, and each paper's outline as its headings were read.

`chunks.kind` says what a passage is: 'body' (the paper's argument, and notes), 'references' or
'acknowledgments'. Searches leave the last two out by default: a reference list matches every
query and answers none. Chunks indexed before this migration are given their kind from the
section names the parser has always used. `papers.outline` is the list of headings (JSON
[name, page]) including numbered parents whose text is all in their subsections, which the
chunks alone cannot show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils


def apply(db: sqlite_utils.Database) -> None:
    db.execute("ALTER TABLE chunks ADD COLUMN kind TEXT NOT NULL DEFAULT 'body'")
    db.execute("UPDATE chunks SET kind = 'references' WHERE paper_id IS NOT NULL AND section IN ('References', 'Bibliography')")
    db.execute("UPDATE chunks SET kind = 'acknowledgments' WHERE paper_id IS NOT NULL AND section = 'Acknowledgments'")
    db.execute("ALTER TABLE papers ADD COLUMN outline TEXT")
