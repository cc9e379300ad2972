"""The library in the workspace's SQLite file (the default): FTS5 BM25, vectors ranked in numpy.

It shares the workspace's one connection (store/db.py) and its lock, so the library's writes and
the session's never step on each other. Chunks of a paper are written in one transaction, so
their ids form one range: the paper filter is a rowid range FTS5 can seek to, instead of a join
that would score every match first.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.research.library.storage.base import LibraryStore, operation
from astro_cli.research.search.fts import Match, SearchError

if TYPE_CHECKING:
    from astro_cli.research.search.vectors import VectorIndex
    from astro_cli.store.db import Database

_TOKENIZER = "porter unicode61 remove_diacritics 2"  # must match chunks_fts (migration m004)


class SearchSyntaxError(SearchError):
    """FTS5 could not read a match (never expected: terms are quoted); one sentence."""


class SqliteStore(LibraryStore):
    kind = "sqlite"

    def __init__(self, db: Database, label: str | None = None) -> None:
        self.db = db
        self._label = label
        self._depth = 0
        self._frequencies: tuple[tuple[int, int], dict[str, int]] = ((-1, -1), {})
        self._vectors: VectorIndex | None = None

    @property
    def where(self) -> str:
        return self._label or str(self.db.path or ":memory:")

    @property
    def path(self) -> Path | None:
        return self.db.path

    # --- primitives ------------------------------------------------------------------------------
    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return self.db.query(sql, list(params))

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self.db.execute(sql, list(params)).rowcount

    def _execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.db.lock:
            self.db.db.conn.executemany(sql, rows)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing (nested calls join the outer transaction)."""
        with self.db.lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self.db.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self.db.execute("ROLLBACK")
                raise
            self._depth = 0
            self.db.execute("COMMIT")

    # --- full text -------------------------------------------------------------------------------
    @operation
    def index_stamp(self) -> tuple[int, int]:
        # Two statements: each is answered from the b-tree alone; combined, SQLite scans the table.
        highest = self.db.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0]
        count = self.db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return int(highest), int(count)

    def document_frequencies(self, words: list[str]) -> dict[str, int]:
        """How many chunks contain each word, stemmed by the index's own tokenizer (fts5vocab).

        A look-up reads the word's whole posting list, so the answers are kept until the index
        changes: the common words of a field come back in question after question.
        """
        stamp = self.index_stamp()
        if self._frequencies[0] != stamp:
            self._frequencies = (stamp, {})
        known = self._frequencies[1]
        missing = [w for w in words if w.lower() not in known]
        if missing:
            known.update(self._lookup(missing))
        return {w.lower(): known[w.lower()] for w in words}

    def _lookup(self, words: list[str]) -> dict[str, int]:
        db = self.db
        with db.lock:
            db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.astro_qwords USING fts5(w, tokenize='{_TOKENIZER}')")
            db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.astro_qwords_v USING fts5vocab(temp, astro_qwords, instance)")
            db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.astro_vocab USING fts5vocab(main, chunks_fts, row)")
            db.execute("DELETE FROM temp.astro_qwords")
            db.db.conn.executemany("INSERT INTO temp.astro_qwords (rowid, w) VALUES (?, ?)",
                                   [(n + 1, w) for n, w in enumerate(words)])
            stems: dict[int, list[str]] = {}
            for term, doc in db.execute("SELECT term, doc FROM temp.astro_qwords_v").fetchall():
                stems.setdefault(int(doc), []).append(term)
            frequencies: dict[str, int] = {}
            for n, word in enumerate(words, start=1):
                counts = [
                    (db.execute("SELECT doc FROM temp.astro_vocab WHERE term = ?", (stem,)).fetchone() or (0,))[0]
                    for stem in stems.get(n, [])
                ]
                frequencies[word.lower()] = min(counts) if counts else 0
            db.execute("DELETE FROM temp.astro_qwords")
        return frequencies

    def text_ranking(self, match: Match, limit: int, paper_ids: list[str] | None,
                     exclude: Sequence[str] = ()) -> list[tuple[int, float]]:
        """(chunk id, BM25 score, higher is better) for the best `limit` chunks not of an excluded kind.

        The kind filter looks at the best few rows only (fetched with room to spare, more when that
        is not enough), so FTS5 never scores more than it must.
        """
        if not match:
            return []
        query = match.fts5()
        wanted = limit
        while True:
            fetched = self._bm25_rows(query, wanted * 2 if exclude else wanted, paper_ids)
            kept = self.without_kinds(fetched, exclude)
            if len(kept) >= limit or len(fetched) < (wanted * 2 if exclude else wanted) or wanted >= limit * 16:
                return kept[:limit]
            wanted *= 4

    def _bm25_rows(self, query: str, limit: int, paper_ids: list[str] | None) -> list[tuple[int, float]]:
        sql = "SELECT rowid, -rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?"
        try:
            if paper_ids is None:
                rows = self.db.execute(sql, (query, limit)).fetchall()
            else:
                rows = []
                ranged = sql.replace("MATCH ?", "MATCH ? AND rowid BETWEEN ? AND ?")
                for paper_id in paper_ids:
                    low, high = self.db.execute("SELECT min(id), max(id) FROM chunks WHERE paper_id = ?",
                                                (paper_id,)).fetchone()
                    if low is not None:
                        rows += self.db.execute(ranged, (query, low, high, limit)).fetchall()
                owned = self._owned([int(r[0]) for r in rows], paper_ids)
                rows = sorted((r for r in rows if int(r[0]) in owned), key=lambda r: -r[1])[:limit]
        except sqlite3.OperationalError as exc:
            raise SearchSyntaxError(f"the full-text index could not read the query ({exc}).") from None
        return [(int(r[0]), float(r[1])) for r in rows]

    def _owned(self, chunk_ids: list[int], paper_ids: list[str]) -> set[int]:
        if not chunk_ids:
            return set()
        marks, papers = ",".join("?" * len(chunk_ids)), ",".join("?" * len(paper_ids))
        rows = self.db.execute(f"SELECT id FROM chunks WHERE id IN ({marks}) AND paper_id IN ({papers})",
                               [*chunk_ids, *paper_ids]).fetchall()
        return {int(r[0]) for r in rows}

    def check_text_index(self, repair: bool) -> bool:
        try:
            self.db.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
        except sqlite3.DatabaseError:
            if repair:
                self.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
            return True
        return False

    # --- vectors ---------------------------------------------------------------------------------
    def store_vectors(self, chunk_ids: list[int], vectors: list[list[float]], model: str) -> None:
        from astro_cli.research.search.vectors import pack

        self._execute_many(
            "INSERT OR REPLACE INTO chunk_vectors (chunk_id, model, dim, vector) VALUES (?, ?, ?, ?)",
            [(cid, model, len(vec), pack(vec)) for cid, vec in zip(chunk_ids, vectors)],
        )

    def vector_index(self, model: str) -> VectorIndex | None:
        """Every vector of the model as one normalised matrix, kept until the stored vectors change."""
        import numpy as np

        from astro_cli.research.search.vectors import EmbeddingError, VectorIndex

        stamp_row = self.db.execute(
            "SELECT count(*), coalesce(max(chunk_id), 0) FROM chunk_vectors WHERE model = ?", (model,)
        ).fetchone()
        stamp = (int(stamp_row[0]), int(stamp_row[1]))
        if stamp[0] == 0:
            return None
        cached = self._vectors
        if cached is not None and cached.model == model and cached.stamp == stamp:
            return cached
        rows = self.db.execute(
            "SELECT v.chunk_id, c.paper_id, v.vector FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id "
            "WHERE v.model = ? ORDER BY v.chunk_id",
            (model,),
        ).fetchall()
        if len({len(r[2]) for r in rows}) != 1:
            raise EmbeddingError(f"stored vectors of {model} have different sizes; re-parse the papers")
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1).copy()
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix /= np.where(norms == 0, 1, norms)
        self._vectors = VectorIndex(model, stamp, np.array([r[0] for r in rows], dtype=np.int64),
                                    [r[1] for r in rows], matrix)
        return self._vectors

    def vector_ranking(self, model: str, query: list[float], limit: int,
                       paper_ids: list[str] | None) -> list[tuple[int, float]]:
        from astro_cli.research.search.vectors import rank_by_vector

        index = self.vector_index(model)
        return [] if index is None else rank_by_vector(index, query, limit, paper_ids)

    def vectors_of(self, paper_id: str) -> list[tuple[int, str, list[float]]]:
        from astro_cli.research.search.vectors import unpack

        rows = self.db.execute("SELECT c.ord, v.model, v.vector FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id "
                               "WHERE c.paper_id = ? ORDER BY c.ord", (paper_id,)).fetchall()
        return [(int(r[0]), r[1], unpack(r[2])) for r in rows]
