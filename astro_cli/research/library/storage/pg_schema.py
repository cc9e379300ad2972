"""The group library's tables in PostgreSQL: numbered migrations, applied once, under an advisory lock.

Ten astro processes starting at the same moment all find the schema behind; each takes the same
transaction-level advisory lock, and the first to hold it migrates while the others wait, then
find every version recorded in `astro_schema` and do nothing. A shipped migration is never edited.

Migration 2 (vectors) needs the pgvector extension. astro creates the extension when the server
offers it and the role may (a superuser, or a DBA who ran `CREATE EXTENSION vector` beforehand);
otherwise the migration waits, unrecorded, and is applied by the first process that starts after
the extension appears. Until then searches use full text alone, and say so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

SCHEMA_LOCK = 0x6173_7472_6F6C_6962  # "astrolib": the advisory lock key every astro process shares


def _library(conn: psycopg.Connection[Any]) -> None:
    conn.execute(
        """
        CREATE TABLE papers (
            id text PRIMARY KEY,
            arxiv_id text, bibcode text, doi text,
            title text, authors text NOT NULL DEFAULT '[]', year integer, abstract text,
            pdf_path text, source_path text, citation_count integer, url text,
            added_at timestamptz NOT NULL DEFAULT now(),
            added_by text,
            parsed_at timestamptz, parsed_from text, pages integer,
            journal_ref text, primary_class text, journal text, volume text, page text, pub_year integer,
            outline text
        )
        """
    )
    for statement in (
        "CREATE INDEX papers_arxiv ON papers (arxiv_id)",
        "CREATE INDEX papers_bibcode ON papers (bibcode)",
        "CREATE INDEX papers_doi ON papers (lower(doi))",
        "CREATE INDEX papers_year ON papers (year)",
        "CREATE INDEX papers_added_by ON papers (lower(added_by))",
    ):
        conn.execute(statement)
    conn.execute(
        """
        CREATE TABLE notes (
            id bigserial PRIMARY KEY,
            added_by text NOT NULL,
            workspace text NOT NULL,
            path text NOT NULL,
            title text NOT NULL,
            tags text NOT NULL DEFAULT '[]',
            papers text NOT NULL DEFAULT '[]',
            created_at text NOT NULL,
            updated_at text NOT NULL,
            UNIQUE (added_by, workspace, path)
        )
        """
    )
    # The text search configuration is named in the column, so the index never depends on a
    # server's default_text_search_config; section names are searched with the text, as in FTS5.
    conn.execute(
        """
        CREATE TABLE chunks (
            id bigserial PRIMARY KEY,
            paper_id text REFERENCES papers (id) ON DELETE CASCADE,
            note_id bigint REFERENCES notes (id) ON DELETE CASCADE,
            section text,
            page integer,
            ord integer NOT NULL,
            text text NOT NULL,
            kind text NOT NULL DEFAULT 'body',
            tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, coalesce(section, '') || ' ' || text)) STORED,
            CHECK ((paper_id IS NULL) <> (note_id IS NULL)),
            UNIQUE (paper_id, ord),
            UNIQUE (note_id, ord)
        )
        """
    )
    conn.execute("CREATE INDEX chunks_tsv ON chunks USING gin (tsv)")
    # Ranking reads each matched row's tsvector: kept in the row, uncompressed while it fits, with
    # the text moved out of line (read only for the passages shown). Compressed or out-of-line,
    # ranking a row cost 20 µs instead of 14 µs.
    conn.execute("ALTER TABLE chunks ALTER COLUMN text SET STORAGE EXTERNAL, ALTER COLUMN tsv SET STORAGE MAIN")


def _vectors(conn: psycopg.Connection[Any]) -> None:
    conn.execute(
        """
        CREATE TABLE chunk_vectors (
            chunk_id bigint PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
            model text NOT NULL,
            dim integer NOT NULL,
            embedding vector NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX chunk_vectors_model ON chunk_vectors (model, dim)")


def _biblio(conn: psycopg.Connection[Any]) -> None:
    """papers.biblio: the facts a BibTeX entry like ADS's needs (as the SQLite migration 9)."""
    conn.execute("ALTER TABLE papers ADD COLUMN biblio text")


def _paper_hash(conn: psycopg.Connection[Any]) -> None:
    conn.execute("ALTER TABLE papers ADD COLUMN content_sha256 text")
    conn.execute("CREATE INDEX papers_content_sha256 ON papers (content_sha256)")


Migration = tuple[int, str, Callable[["psycopg.Connection[Any]"], None], str | None]

MIGRATIONS: list[Migration] = [
    (1, "library: papers, notes, chunks with a tsvector and its GIN index", _library, None),
    (2, "vectors: chunk_vectors (pgvector)", _vectors, "vector"),
    (3, "biblio: papers.biblio (doctype, month, issue, pages... for BibTeX like ADS's)", _biblio, None),
    (4, "paper hash: papers.content_sha256 (a local file added again updates its row)", _paper_hash, None),
]


def recorded(conn: psycopg.Connection[Any]) -> set[int]:
    exists = conn.execute("SELECT to_regclass('astro_schema') IS NOT NULL AS present").fetchone()
    if not exists or not _value(exists):
        return set()
    return {int(_value(row)) for row in conn.execute("SELECT version FROM astro_schema").fetchall()}


def _value(row: Any) -> Any:
    return next(iter(row.values())) if isinstance(row, dict) else row[0]


def extension_installed(conn: psycopg.Connection[Any], name: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_extension WHERE extname = %s", (name,)).fetchone() is not None


def _ready(conn: psycopg.Connection[Any], done: set[int]) -> bool:
    for version, _name, _apply, extension in MIGRATIONS:
        if version in done:
            continue
        if extension is None or extension_installed(conn, extension) or _offered(conn, extension):
            return False
    return True


def _offered(conn: psycopg.Connection[Any], extension: str) -> bool:
    """The server could install it; whether this role may is found out under the lock (a role that
    may not pays one refused CREATE EXTENSION per process start)."""
    return conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = %s AND installed_version IS NULL",
                        (extension,)).fetchone() is not None


def migrate(conn: psycopg.Connection[Any]) -> list[int]:
    """Apply what is missing; the versions this process applied (empty when another did, or none was due)."""
    if _ready(conn, recorded(conn)):
        return []
    applied: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS astro_schema (version integer PRIMARY KEY, name text NOT NULL, "
            "applied_at timestamptz NOT NULL DEFAULT now(), applied_by text NOT NULL DEFAULT current_user)"
        )
        done = recorded(conn)
        for version, name, apply, extension in MIGRATIONS:
            if version in done:
                continue
            if extension is not None and not _ensure_extension(conn, extension):
                continue
            apply(conn)
            conn.execute("INSERT INTO astro_schema (version, name) VALUES (%s, %s)", (version, name))
            applied.append(version)
    return applied


def _ensure_extension(conn: psycopg.Connection[Any], name: str) -> bool:
    """The extension is there, or we could create it (a savepoint keeps a refusal from spoiling the rest)."""
    if extension_installed(conn, name):
        return True
    if conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = %s", (name,)).fetchone() is None:
        return False
    import psycopg

    try:
        with conn.transaction():
            conn.execute(f"CREATE EXTENSION IF NOT EXISTS {name}")
    except psycopg.errors.InsufficientPrivilege:
        return False
    return True
