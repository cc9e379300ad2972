"""`papers.content_sha256`: the SHA-256 of a paper's local file as it was added (issue 31).

Re-adding the same file with other flags (`--arxiv`, then `--author`) finds its row by this hash and
updates it, instead of adding a second row for the same paper; `library check` reports rows that
share one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils


def apply(db: sqlite_utils.Database) -> None:
    db.execute("ALTER TABLE papers ADD COLUMN content_sha256 TEXT")
    db.execute("CREATE INDEX papers_content_sha256 ON papers (content_sha256)")
