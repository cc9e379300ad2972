"""The one storage interface of the paper library, and the SQL both databases understand.

`LibraryStore` is everything the library code (library.py, parse.py, search.py, content.py,
notes.py, embed.py, the doctor and the citation check through library.py) asks of a database.
Two implementations: `SqliteStore` (the workspace's own file, the default) and `PostgresStore` (a
server a research group shares). Statements that read the same in both dialects live here, written
with `?` placeholders; each implementation runs them with its driver and supplies the parts that
differ: transactions, full-text ranking (FTS5 BM25 against tsvector), vectors (numpy against
pgvector) and how a new row's id comes back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

from astro_cli.research.library.storage.shapes import NoteScope, Replaced
from astro_cli.research.records import PAPER_COLUMNS, Chunk, Paper
from astro_cli.research.search.fts import POSTINGS_BUDGET, Match

T = TypeVar("T")


def operation(method: Callable[..., T]) -> Callable[..., T]:
    """A unit of work: PostgreSQL retries it once on a lost connection (SQLite runs it as it is)."""

    @wraps(method)
    def run(self: LibraryStore, *args: Any, **kwargs: Any) -> T:
        return self._unit(lambda: method(self, *args, **kwargs))

    return run


class LibraryStore:
    """Papers, chunks, notes, vectors: the shared statements. Subclasses run them."""

    kind = "abstract"
    shared = False  # True when other people's astro writes to the same library
    postings_budget = POSTINGS_BUDGET  # matches the full-text plan may rank (fts.plan_query)

    # --- what each dialect supplies ---------------------------------------------------------------
    @property
    def where(self) -> str:
        """Where the library lives, for people (never with a password)."""
        raise NotImplementedError

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        raise NotImplementedError

    def _execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        raise NotImplementedError

    @contextmanager
    def transaction(self) -> Iterator[None]:
        raise NotImplementedError
        yield

    def _unit(self, work: Callable[[], T]) -> T:
        return work()

    def _lock_paper(self, paper_id: str) -> Paper | None:
        """Inside a transaction: the paper's row, held until commit so concurrent writers of the same
        paper's chunks take turns (SQLite's writer lock already does that)."""
        return self.paper(paper_id)

    def index_stamp(self) -> tuple[int, int]:
        raise NotImplementedError

    def document_frequencies(self, words: list[str]) -> dict[str, int]:
        raise NotImplementedError

    def text_ranking(self, match: Match, limit: int, paper_ids: list[str] | None,
                     exclude: Sequence[str] = ()) -> list[tuple[int, float]]:
        raise NotImplementedError

    def vectors_note(self) -> str | None:
        """Why this library keeps no vectors, or None when it can."""
        return None

    def vector_ranking(self, model: str, query: list[float], limit: int,
                       paper_ids: list[str] | None) -> list[tuple[int, float]]:
        raise NotImplementedError

    def store_vectors(self, chunk_ids: list[int], vectors: list[list[float]], model: str) -> None:
        raise NotImplementedError

    def check_text_index(self, repair: bool) -> bool:
        """True when the full-text index was out of step with the chunks (rebuilt when repair)."""
        return False

    def close(self) -> None:
        pass

    # --- helpers ---------------------------------------------------------------------------------
    def _one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    def _scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self._one(sql, params)
        return next(iter(row.values())) if row else None

    # --- papers ----------------------------------------------------------------------------------
    @operation
    def paper(self, paper_id: str) -> Paper | None:
        return self._paper("SELECT * FROM papers WHERE id = ?", (paper_id,))

    def _paper(self, sql: str, params: Sequence[Any]) -> Paper | None:
        row = self._one(sql, params)
        return Paper.from_row(row) if row else None

    def _papers(self, sql: str, params: Sequence[Any] = ()) -> list[Paper]:
        return [Paper.from_row(row) for row in self._rows(sql, params)]

    @operation
    def paper_by_alias(self, raw: str, arxiv: str, doi: str) -> Paper | None:
        """The paper named by its id, arXiv id, bibcode or DOI; its own id wins over an alias."""
        return self._paper(
            "SELECT * FROM papers WHERE id = ? OR id = ? OR arxiv_id = ? OR bibcode = ? OR lower(doi) = ? "
            "ORDER BY (id = ?) DESC, added_at LIMIT 1",
            (raw, arxiv, arxiv, raw, doi, raw),
        )

    @operation
    def papers_named(self, kind: str, value: str) -> list[Paper]:
        """Rows that carry `value` as their arXiv id, bibcode, DOI or id, oldest first."""
        where = {"arxiv": "arxiv_id = ? OR id = ?", "bibcode": "bibcode = ? OR id = ?",
                 "doi": "lower(doi) = ? OR lower(id) = ?", "id": "id = ?", "hash": "content_sha256 = ?"}[kind]
        value = value.lower() if kind == "doi" else value
        return self._papers(f"SELECT * FROM papers WHERE {where} ORDER BY added_at, id", [value] * where.count("?"))

    @operation
    def paper_titles(self) -> dict[str, str]:
        """Every paper's title by id: how a question names a paper (search/naming.py)."""
        return {row["id"]: row["title"] or "" for row in self._rows("SELECT id, title FROM papers")}

    @operation
    def papers_in_years(self, first: int, last: int) -> list[Paper]:
        return self._papers("SELECT * FROM papers WHERE year BETWEEN ? AND ? OR pub_year BETWEEN ? AND ? "
                          "ORDER BY added_at", (first, last, first, last))

    @operation
    def paper_conflicts(self) -> list[dict[str, Any]]:
        return self._rows(
            """
            SELECT a.id AS a, b.id AS b, 'DOI' AS kind, a.doi AS value FROM papers a
              JOIN papers b ON lower(a.doi) = lower(b.doi) AND a.id < b.id
            UNION ALL
            SELECT a.id, b.id, 'bibcode', a.bibcode FROM papers a JOIN papers b ON a.bibcode = b.bibcode AND a.id < b.id
            UNION ALL
            SELECT a.id, b.id, 'arXiv id', a.arxiv_id FROM papers a
              JOIN papers b ON a.arxiv_id = b.arxiv_id AND a.id < b.id
            ORDER BY 1, 2
            """
        )

    @operation
    def papers_with_counts(self, added_by: str | None = None) -> list[Paper]:
        """Every paper (or one member's), newest first, with how many chunks it has."""
        where, params = ("WHERE lower(p.added_by) = lower(?) ", (added_by,)) if added_by else ("", ())
        return self._papers(
            "SELECT p.*, (SELECT count(*) FROM chunks c WHERE c.paper_id = p.id) AS chunks "
            f"FROM papers p {where}ORDER BY p.added_at DESC, p.id", params)

    @operation
    def members(self) -> list[dict[str, Any]]:
        """Who added papers, with how many."""
        return self._rows("SELECT added_by, count(*) AS papers FROM papers GROUP BY added_by ORDER BY 2 DESC, 1")

    @operation
    def insert_paper(self, row: dict[str, Any]) -> Paper | None:
        """Insert a new row, the paper as stored; None when a row with that id exists already (nothing
        is changed then).

        Two people adding the same paper at once both reach this statement: the database's unique
        key decides, never a look-up made before.
        """
        columns = [c for c in row if c in PAPER_COLUMNS]
        marks = ", ".join("?" * len(columns))
        inserted = self._rows(
            f"INSERT INTO papers ({', '.join(columns)}) VALUES ({marks}) ON CONFLICT (id) DO NOTHING RETURNING *",
            [row[c] for c in columns],
        )
        return Paper.from_row(inserted[0]) if inserted else None

    @operation
    def update_paper(self, paper_id: str, fields: dict[str, Any]) -> Paper | None:
        """Change some fields; the paper as it now stands (None when nothing was changed or no such row)."""
        columns = [c for c in fields if c in PAPER_COLUMNS and c != "id"]
        if not columns:
            return None
        assignments = ", ".join(f"{c} = ?" for c in columns)
        return self._paper(f"UPDATE papers SET {assignments} WHERE id = ? RETURNING *",
                           [*(fields[c] for c in columns), paper_id])

    @operation
    def move_chunks(self, from_paper: str, to_paper: str) -> int:
        """Give one paper's indexed text to another (`library merge`, when the kept row has none)."""
        return self._execute("UPDATE chunks SET paper_id = ? WHERE paper_id = ?", (to_paper, from_paper))

    @operation
    def delete_paper(self, paper_id: str) -> None:
        with self.transaction():
            self._execute("DELETE FROM chunks WHERE paper_id = ?", (paper_id,))
            self._execute("DELETE FROM papers WHERE id = ?", (paper_id,))

    # --- chunks ----------------------------------------------------------------------------------
    @operation
    def chunks_of(self, paper_id: str) -> list[Chunk]:
        rows = self._rows("SELECT section, page, ord, text, kind FROM chunks WHERE paper_id = ? ORDER BY ord",
                          (paper_id,))
        return [Chunk(r["section"], r["page"], int(r["ord"]), r["text"], r["kind"] or "body") for r in rows]

    @operation
    def chunk_count(self, paper_id: str | None = None) -> int:
        if paper_id is None:
            return int(self._scalar("SELECT count(*) AS n FROM chunks") or 0)
        return int(self._scalar("SELECT count(*) AS n FROM chunks WHERE paper_id = ?", (paper_id,)) or 0)

    @operation
    def replace_chunks(self, paper_id: str, chunks: Sequence[Chunk], fields: dict[str, Any],
                       only_if_unparsed: bool = False) -> Replaced | None:
        """Replace a paper's chunks and update its row in one transaction: the paper as updated and the
        new chunks' ids (in the chunks' order, for embedding them without reading them back); None
        when `only_if_unparsed` and someone indexed the paper meanwhile (their chunks stay)."""
        with self.transaction():
            row = self._lock_paper(paper_id)
            if row is None or (only_if_unparsed and row.parsed_at):
                return None
            self._execute("DELETE FROM chunks WHERE paper_id = ?", (paper_id,))
            self._execute_many(
                "INSERT INTO chunks (paper_id, section, page, ord, text, kind) VALUES (?, ?, ?, ?, ?, ?)",
                [(paper_id, c.section, c.page, c.ord, c.text, c.kind) for c in chunks],
            )
            ids = self.chunk_ids(paper_id)
            paper = self.update_paper(paper_id, fields) or row
        return Replaced(paper, [ids[c.ord] for c in chunks])

    @operation
    def hit_rows(self, chunk_ids: Sequence[int]) -> list[dict[str, Any]]:
        if not chunk_ids:
            return []
        marks = ",".join("?" * len(chunk_ids))
        return self._rows(
            "SELECT c.id, c.paper_id, c.note_id, c.section, c.page, c.ord, c.text, p.title AS p_title, p.bibcode, "
            "p.arxiv_id, p.doi, p.url, p.authors, p.year, n.path AS n_path, n.title AS n_title FROM chunks c "
            "LEFT JOIN papers p ON p.id = c.paper_id LEFT JOIN notes n ON n.id = c.note_id "
            f"WHERE c.id IN ({marks})", list(chunk_ids))

    @operation
    def papers_of_chunks(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        """The paper of each chunk by id (notes' chunks left out): no text, no paper row."""
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        rows = self._rows(f"SELECT id, paper_id FROM chunks WHERE id IN ({marks}) AND paper_id IS NOT NULL",
                          list(chunk_ids))
        return {int(r["id"]): str(r["paper_id"]) for r in rows}

    @operation
    def chunk_texts(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        """The texts of chunks by id, without their papers' rows (a search reads those once, for its hits)."""
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        rows = self._rows(f"SELECT id, text FROM chunks WHERE id IN ({marks})", list(chunk_ids))
        return {int(r["id"]): str(r["text"]) for r in rows}

    @operation
    def without_kinds(self, ranking: list[tuple[int, float]], kinds: Sequence[str]) -> list[tuple[int, float]]:
        """The ranking without chunks of the given kinds (references, acknowledgments)."""
        if not kinds or not ranking:
            return ranking
        marks, kind_marks = ",".join("?" * len(ranking)), ",".join("?" * len(kinds))
        dropped = {int(r["id"]) for r in self._rows(
            f"SELECT id FROM chunks WHERE id IN ({marks}) AND kind IN ({kind_marks})",
            [*(cid for cid, _ in ranking), *kinds])}
        return [(cid, score) for cid, score in ranking if cid not in dropped]

    # --- notes -----------------------------------------------------------------------------------
    def _scope(self, scope: NoteScope) -> tuple[str, list[Any]]:
        """The condition that keeps a sync to its own notes (a local library holds one workspace's)."""
        return "", []

    @operation
    def note_titled(self, title: str, scope: NoteScope) -> dict[str, Any] | None:
        where, params = self._scope(scope)
        return self._one(f"SELECT id, path, created_at FROM notes WHERE lower(title) = lower(?){where}",
                         (title, *params))

    @operation
    def notes(self, scope: NoteScope) -> list[dict[str, Any]]:
        where, params = self._scope(scope)
        return self._rows(f"SELECT id, path, updated_at FROM notes WHERE 1 = 1{where}", params)

    @operation
    def save_note(self, scope: NoteScope, path: str, title: str, tags: str, papers: str, stamp: str,
                  created_at: str, chunks: Sequence[Chunk]) -> int:
        """Write a note's row and replace its chunks in one transaction; the note's id."""
        where, params = self._scope(scope)
        with self.transaction():
            row = self._one(f"SELECT id FROM notes WHERE path = ?{where}", (path, *params))
            if row:
                note_id = int(row["id"])
                self._execute("UPDATE notes SET title = ?, tags = ?, papers = ?, updated_at = ? WHERE id = ?",
                              (title, tags, papers, stamp, note_id))
                self._execute("DELETE FROM chunks WHERE note_id = ?", (note_id,))
            else:
                note_id = int(self._scalar(
                    "INSERT INTO notes (path, title, tags, papers, updated_at, created_at, added_by, workspace) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (path, title, tags, papers, stamp, created_at, scope.added_by, scope.workspace)))
            self._execute_many(
                "INSERT INTO chunks (note_id, section, page, ord, text, kind) VALUES (?, ?, NULL, ?, ?, 'body')",
                [(note_id, c.section, c.ord, c.text) for c in chunks],
            )
        return note_id

    @operation
    def delete_notes(self, note_ids: list[int]) -> None:
        with self.transaction():
            for note_id in note_ids:
                self._execute("DELETE FROM chunks WHERE note_id = ?", (note_id,))
                self._execute("DELETE FROM notes WHERE id = ?", (note_id,))

    # --- vectors ---------------------------------------------------------------------------------
    @operation
    def chunks_to_embed(self, paper_id: str | None = None, note_id: int | None = None) -> list[dict[str, Any]]:
        column, value = ("paper_id", paper_id) if paper_id is not None else ("note_id", note_id)
        return self._rows(f"SELECT id, section, text FROM chunks WHERE {column} = ? ORDER BY ord", (value,))

    @operation
    def has_vectors(self, paper_id: str, model: str) -> bool:
        if self.vectors_note():
            return False
        return bool(self._rows("SELECT 1 AS x FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id "
                               "WHERE c.paper_id = ? AND v.model = ? LIMIT 1", (paper_id, model)))

    @operation
    def papers_without_vectors(self, model: str) -> list[tuple[str, int]]:
        """(paper id, chunks) of the indexed papers with a chunk lacking a vector of the model, oldest first."""
        if self.vectors_note():
            return []
        rows = self._rows(
            "SELECT c.paper_id AS paper_id, count(*) AS chunks FROM chunks c WHERE c.paper_id IS NOT NULL "
            "AND NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.chunk_id = c.id AND v.model = ?) "
            "GROUP BY c.paper_id ORDER BY min(c.id)", (model,))
        return [(str(r["paper_id"]), int(r["chunks"])) for r in rows]

    @operation
    def has_any_vectors(self, model: str) -> bool:
        if self.vectors_note():
            return False
        return bool(self._rows("SELECT 1 AS x FROM chunk_vectors WHERE model = ? LIMIT 1", (model,)))

    # --- the doctor ------------------------------------------------------------------------------
    _ORPHANS = ("(paper_id IS NOT NULL AND paper_id NOT IN (SELECT id FROM papers)) "
                "OR (note_id IS NOT NULL AND note_id NOT IN (SELECT id FROM notes))")

    @operation
    def orphans(self) -> tuple[int, int]:
        """(chunks whose paper or note is gone, vectors whose chunk is gone)."""
        chunks = int(self._scalar(f"SELECT count(*) AS n FROM chunks WHERE {self._ORPHANS}") or 0)
        vectors = 0 if self.vectors_note() else int(self._scalar(
            "SELECT count(*) AS n FROM chunk_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)") or 0)
        return chunks, vectors

    @operation
    def remove_orphans(self) -> None:
        with self.transaction():
            self._execute(f"DELETE FROM chunks WHERE {self._ORPHANS}")
            if not self.vectors_note():
                self._execute("DELETE FROM chunk_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)")

    # --- copying (astro library migrate) ---------------------------------------------------------
    @operation
    def chunk_ids(self, paper_id: str) -> dict[int, int]:
        """ord -> chunk id of a paper's chunks."""
        return {int(r["ord"]): int(r["id"]) for r in self._rows("SELECT id, ord FROM chunks WHERE paper_id = ?",
                                                               (paper_id,))}

    @operation
    def note_rows(self, scope: NoteScope) -> list[dict[str, Any]]:
        where, params = self._scope(scope)
        return self._rows(f"SELECT * FROM notes WHERE 1 = 1{where} ORDER BY id", params)

    @operation
    def note_chunks(self, note_id: int) -> list[dict[str, Any]]:
        return self._rows("SELECT section, ord, text FROM chunks WHERE note_id = ? ORDER BY ord", (note_id,))

    @operation
    def vectors_of(self, paper_id: str) -> list[tuple[int, str, list[float]]]:
        """(chunk ord, model, vector) of a paper's chunks; empty where vectors are not kept."""
        raise NotImplementedError
