"""`window_vectors`: a chunk's vectors by window, each about 600 characters of whole sentences (issue 42).

The local model reads 256 word pieces; a chunk's one vector (chunk_vectors) averaged or cut a
chunk longer than that. Search scores a chunk by its best window when it has them, and by its one
vector otherwise: a library made before this migration keeps searching with its old vectors until
`astro library reindex` remakes them by window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils


def apply(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE window_vectors (
            chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
            part INTEGER NOT NULL,
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (chunk_id, part)
        )
        """
    )
