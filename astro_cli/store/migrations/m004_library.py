"""The local paper library: papers, their text chunks, notes, an FTS5 index and optional vectors.

Notes are indexed as chunks too (chunks.note_id instead of chunks.paper_id), so one full-text
index answers for papers and notes alike. The FTS table is external-content (it stores only the
index, the text lives once in `chunks`) and triggers keep it in step with every insert and delete.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils


def apply(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE papers (
            id TEXT PRIMARY KEY,
            arxiv_id TEXT,
            bibcode TEXT,
            doi TEXT,
            title TEXT,
            authors TEXT NOT NULL DEFAULT '[]',
            year INTEGER,
            abstract TEXT,
            pdf_path TEXT,
            source_path TEXT,
            citation_count INTEGER,
            url TEXT,
            added_at TEXT NOT NULL,
            parsed_at TEXT,
            parsed_from TEXT,
            pages INTEGER
        )
        """
    )
    db.execute("CREATE INDEX papers_arxiv ON papers (arxiv_id)")
    db.execute("CREATE INDEX papers_bibcode ON papers (bibcode)")
    db.execute("CREATE INDEX papers_doi ON papers (lower(doi))")
    db.execute(
        """
        CREATE TABLE notes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            path TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '[]',
            papers TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            paper_id TEXT REFERENCES papers(id) ON DELETE CASCADE,
            note_id INTEGER REFERENCES notes(id) ON DELETE CASCADE,
            section TEXT,
            page INTEGER,
            ord INTEGER NOT NULL,
            text TEXT NOT NULL,
            CHECK ((paper_id IS NULL) <> (note_id IS NULL))
        )
        """
    )
    db.execute("CREATE INDEX chunks_paper ON chunks (paper_id, ord)")
    db.execute("CREATE INDEX chunks_note ON chunks (note_id, ord)")
    db.execute(
        """
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            text, section, content='chunks', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        )
        """
    )
    db.execute(
        """
        CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts (rowid, text, section) VALUES (new.id, new.text, coalesce(new.section, ''));
        END
        """
    )
    db.execute(
        """
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts (chunks_fts, rowid, text, section)
            VALUES ('delete', old.id, old.text, coalesce(old.section, ''));
        END
        """
    )
    db.execute(
        """
        CREATE TABLE chunk_vectors (
            chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL
        )
        """
    )
