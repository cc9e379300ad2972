"""The library on a PostgreSQL server a research group shares: tsvector full text, pgvector vectors.

One connection per astro process (autocommit; explicit transactions for what must be whole),
opened on first use, migrated under the schema's advisory lock (pg_schema.py). Every operation is a
unit: when the connection is lost in the middle of one (the server restarted, a network blip), it
is opened again and the unit retried once; if that fails too, LibraryUnavailable says so in one
sentence. Nothing of the session is lost: messages live in the workspace's SQLite file.

Full text: `websearch_to_tsquery` (no query can be a syntax error) over a generated tsvector with
a GIN index, ranked by `ts_rank_cd` term by term, weighted by BM25's inverse document frequency.
Vectors: the pgvector extension's cosine distance, with an HNSW index per vector size; on a
server without pgvector, searches are full text and `vectors_note` says why.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from astro_cli.research.library.storage.base import LibraryStore, operation
from astro_cli.research.library.storage.pg_connect import ServerAddress, connect, explain
from astro_cli.research.library.storage.shapes import NoteScope
from astro_cli.research.records import Paper
from astro_cli.research.search.fts import Match

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")
TEXT_CONFIG = "english"  # must match the generated column of chunks (pg_schema.py)
SATURATION = 0.1  # K of idf * r / (r + K); 0.05-0.3 ranked the question set alike, 0.02 and 1 worse
MAX_SCORED = 32  # terms scored one by one (fts.MAX_TERMS bounds a match the same way)
POSTINGS = 1500  # the plan keeps words whose chunks add up to this (FTS5: 12,000; its ranking reads no rows)
CANDIDATES = 1000  # at most this many matching chunks are ranked (see text_ranking)
STAMP_SECONDS = 1.0  # how long index_stamp's answer is reused
NO_VECTORS = ("the group library's server has no pgvector extension, so searches use full text alone "
              "(its administrator can add it: CREATE EXTENSION vector)")


@lru_cache(maxsize=512)
def _sql(statement: str) -> str:
    """The shared `?` placeholders in psycopg's style (a literal % doubled)."""
    return statement.replace("%", "%%").replace("?", "%s")


class PostgresStore(LibraryStore):
    kind = "postgresql"
    shared = True
    postings_budget = POSTINGS

    def __init__(self, address: ServerAddress, fallback_password: Callable[[], str | None] = lambda: None) -> None:
        self.address = address
        self._password = fallback_password
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = threading.RLock()
        self._in_unit = False
        self._tx_depth = 0
        self._vectors = False
        self._hnsw: set[int] = set()
        self._frequencies: tuple[tuple[int, int], dict[str, int]] = ((-1, -1), {})
        self._common: dict[str, float] | None = None
        self._stamp: tuple[float, tuple[int, int]] | None = None

    @property
    def where(self) -> str:
        return self.address.shown

    # --- the connection --------------------------------------------------------------------------
    def connection(self) -> psycopg.Connection[Any]:
        """The open connection (opened, and the schema migrated, on first use)."""
        if self._conn is None or self._conn.closed:
            from astro_cli.research.library.storage import pg_schema

            conn = connect(self.address, self._password)
            pg_schema.migrate(conn)
            self._vectors = pg_schema.extension_installed(conn, "vector") and 2 in pg_schema.recorded(conn)
            self._conn = conn
        return self._conn

    def _unit(self, work: Callable[[], T]) -> T:
        import psycopg

        with self._lock:
            if self._in_unit:
                return work()
            self._in_unit = True
            try:
                try:
                    return work()
                except psycopg.OperationalError as exc:
                    if not self._lost():
                        raise explain(self.address, exc) from None
                self._drop()
                try:
                    return work()  # once more, on a new connection
                except psycopg.OperationalError as exc:
                    self._drop()
                    raise explain(self.address, exc, lost=True) from None
            finally:
                self._in_unit = False
                self._tx_depth = 0

    def _lost(self) -> bool:
        conn = self._conn
        return conn is None or conn.closed or conn.broken

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:  # noqa: BLE001 - a broken connection may fail to close; it is gone either way
                pass
        self._conn = None

    def close(self) -> None:
        with self._lock:
            self._drop()

    # --- primitives ------------------------------------------------------------------------------
    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self._lock:
            cursor = self.connection().execute(_sql(sql), list(params))
            if cursor.description is None:
                return []
            return [_plain(row) for row in cursor.fetchall()]

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        with self._lock:
            return self.connection().execute(_sql(sql), list(params)).rowcount

    def _execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        with self._lock, self.connection().cursor() as cursor:
            cursor.executemany(_sql(sql), rows)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._tx_depth:
                self._tx_depth += 1
                try:
                    yield
                finally:
                    self._tx_depth -= 1
                return
            with self.connection().transaction():
                self._tx_depth = 1
                try:
                    yield
                finally:
                    self._tx_depth = 0

    def _lock_paper(self, paper_id: str) -> Paper | None:
        return self._paper("SELECT * FROM papers WHERE id = ? FOR UPDATE", (paper_id,))

    def _scope(self, scope: NoteScope) -> tuple[str, list[Any]]:
        return " AND added_by = ? AND workspace = ?", [scope.added_by, scope.workspace]

    # --- full text -------------------------------------------------------------------------------
    @operation
    def index_stamp(self) -> tuple[int, int]:
        """(highest chunk id, about how many chunks): the planner's estimate, exact when it has none.

        Asked several times by one search, so the answer is kept for STAMP_SECONDS: a paper another
        member adds is searched at once, its words' counts are refreshed a second later.
        """
        now = time.monotonic()
        if self._stamp is not None and now - self._stamp[0] < STAMP_SECONDS:
            return self._stamp[1]
        row = self._one("SELECT coalesce((SELECT max(id) FROM chunks), 0) AS high, "
                        "(SELECT reltuples::bigint FROM pg_class WHERE oid = 'chunks'::regclass) AS approx")
        high = int(row["high"]) if row else 0
        approx = int(row["approx"] or 0) if row else 0
        if approx <= 0 and high:
            approx = int(self._scalar("SELECT count(*) AS n FROM chunks") or 0)
        self._stamp = (now, (high, approx))
        return high, approx

    @operation
    def document_frequencies(self, words: list[str]) -> dict[str, int]:
        """Chunks holding each word (stemmed by the index's configuration), counted up to the budget:
        a word beyond it is left out whatever its exact count."""
        return {w.lower(): self._df(w) for w in words}

    def _df(self, term: str) -> int:
        """Chunks holding a word or phrase; kept until the index changes.

        A common word's count comes from the planner's statistics of the tsvector column (the
        frequencies ANALYZE keeps for its most common lexemes): counting 30,000 rows costs tens
        of milliseconds. A rarer word, or a phrase, is counted (phrases up to the budget, which is
        all the plan needs to know of them).
        """
        stamp = self.index_stamp()
        if self._frequencies[0] != stamp:
            self._frequencies = (stamp, {})
            self._common = None
        known = self._frequencies[1]
        key = term.lower()
        if key not in known:
            known[key] = self._estimate(term, stamp[1]) if " " not in term.strip() else self._count(term, POSTINGS + 1)
        return known[key]

    def _estimate(self, word: str, total: int) -> int:
        common = self._common_lexemes()
        lexemes = [r["lexeme"] for r in self._rows(f"SELECT lexeme FROM unnest(to_tsvector('{TEXT_CONFIG}', ?))",
                                                    (word,))]
        if not lexemes:
            return 0  # a stop word of the text configuration: it matches nothing
        if common and all(lexeme in common for lexeme in lexemes):
            return min(int(common[lexeme] * total) for lexeme in lexemes)
        rarest = min(common.values()) if common else 0.0
        return self._count(word, max(POSTINGS, int(rarest * total)) + 1)

    def _count(self, term: str, cap: int) -> int:
        return int(self._scalar(
            f"SELECT count(*) AS n FROM (SELECT 1 FROM chunks WHERE tsv @@ websearch_to_tsquery('{TEXT_CONFIG}', ?) "
            "LIMIT ?) AS found", (_quoted(term), cap)) or 0)

    def _common_lexemes(self) -> dict[str, float]:
        """lexeme -> share of chunks holding it, for the most common lexemes (empty before ANALYZE)."""
        if self._common is None:
            row = self._one("SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs "
                            "FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'chunks' "
                            "AND attname = 'tsv'")
            elems, freqs = (row or {}).get("elems") or [], (row or {}).get("freqs") or []
            self._common = {str(e): float(f) for e, f in zip(elems, freqs)}  # freqs ends with 3 summary values
        return self._common

    @operation
    def text_ranking(self, match: Match, limit: int, paper_ids: list[str] | None,
                     exclude: Sequence[str] = ()) -> list[tuple[int, float]]:
        """(chunk id, score) of the best `limit` matching chunks: BM25's shape over PostgreSQL's ranking.

        Each term (a word or a phrase) scores `idf * r / (r + K)`, where r is `ts_rank_cd` of the
        chunk for that term alone (how often and how densely it occurs), K saturates it as BM25's
        k1 does, and idf is BM25's inverse document frequency from the GIN index. ts_rank_cd of the
        whole query alone has no idf: a common word counted as much as a rare one, and it found 19
        of the question set's 24 literal questions against FTS5's 24 (benchmarks/RESULTS.md).

        Ranking reads every matched row (about 15 µs each), so at most CANDIDATES matches, taken
        as the GIN index finds them, are ranked: this bites only when even the rarest words of a
        question occur together in more chunks than that, where they cannot tell passages apart.
        """
        if not match:
            return []
        terms = list(dict.fromkeys(term for alternative in match.alternatives for term in alternative))[:MAX_SCORED]
        total = max(self.index_stamp()[1], 1)
        weights = [math.log(1 + (total - df + 0.5) / (df + 0.5)) for df in (self._df(t) for t in terms)]
        queries = ", ".join(f"websearch_to_tsquery('{TEXT_CONFIG}', ?) AS q{n}" for n in range(len(terms)))
        ranks = ", ".join(f"ts_rank_cd(c.tsv, t.q{n}) AS r{n}" for n in range(len(terms)))
        score = " + ".join(f"{w:.6f} * r.r{n} / (r.r{n} + {SATURATION})" for n, w in enumerate(weights))
        where = ""
        params: list[Any] = [match.websearch(), *(_quoted(t) for t in terms)]
        if exclude:
            where += " AND c.kind <> ALL(?)"
            params.append(list(exclude))
        if paper_ids is not None:
            where += " AND c.paper_id = ANY(?)"
            params.append(list(paper_ids))
        rows = self._rows(
            f"WITH t AS (SELECT websearch_to_tsquery('{TEXT_CONFIG}', ?) AS m, {queries}), "
            f"c AS (SELECT c.id, c.tsv FROM t, chunks c WHERE c.tsv @@ t.m{where} LIMIT {CANDIDATES:d}) "
            f"SELECT c.id, {score} AS score FROM t, c, LATERAL (SELECT {ranks}) AS r "
            f"ORDER BY score DESC, c.id LIMIT ?", [*params, limit])
        return [(int(r["id"]), float(r["score"])) for r in rows]

    # --- vectors ---------------------------------------------------------------------------------
    def vectors_note(self) -> str | None:
        self._unit(self.connection)
        return None if self._vectors else NO_VECTORS

    @operation
    def store_vectors(self, chunk_ids: list[int], vectors: list[list[float]], model: str) -> None:
        if self.vectors_note():
            return
        with self.transaction():
            self._execute_many(
                "INSERT INTO chunk_vectors (chunk_id, model, dim, embedding) VALUES (?, ?, ?, ?::vector) "
                "ON CONFLICT (chunk_id) DO UPDATE SET model = excluded.model, dim = excluded.dim, "
                "embedding = excluded.embedding",
                [(cid, model, len(vec), _vector_text(vec)) for cid, vec in zip(chunk_ids, vectors)],
            )
        for dim in {len(vec) for vec in vectors} - self._hnsw:
            self._hnsw_index(dim)

    def _hnsw_index(self, dim: int) -> None:
        """An HNSW index for vectors of one size (pgvector indexes only columns of a fixed size)."""
        from astro_cli.research.library.storage.pg_schema import SCHEMA_LOCK

        with self.transaction():
            self._execute("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK,))
            self._execute(f"CREATE INDEX IF NOT EXISTS chunk_vectors_hnsw_{dim:d} ON chunk_vectors USING hnsw "
                          f"((embedding::vector({dim:d})) vector_cosine_ops) WHERE dim = {dim:d}")
        self._hnsw.add(dim)

    @operation
    def vector_ranking(self, model: str, query: list[float], limit: int,
                       paper_ids: list[str] | None) -> list[tuple[int, float]]:
        if self.vectors_note():
            return []
        dim, vector = len(query), _vector_text(query)
        if paper_ids is not None:  # an exact scan of the papers' chunks: the index would filter after the fact
            rows = self._rows(
                "SELECT v.chunk_id, 1 - (v.embedding <=> ?::vector) AS score FROM chunk_vectors v "
                "JOIN chunks c ON c.id = v.chunk_id WHERE v.model = ? AND v.dim = ? AND c.paper_id = ANY(?) "
                "ORDER BY score DESC, v.chunk_id LIMIT ?", (vector, model, dim, list(paper_ids), limit))
        else:
            with self.transaction():
                self._execute(f"SET LOCAL hnsw.ef_search = {max(40, min(1000, limit * 2)):d}")
                rows = self._rows(
                    f"SELECT chunk_id, 1 - (embedding::vector({dim:d}) <=> ?::vector({dim:d})) AS score "
                    f"FROM chunk_vectors WHERE dim = {dim:d} AND model = ? "
                    f"ORDER BY embedding::vector({dim:d}) <=> ?::vector({dim:d}) LIMIT ?",
                    (vector, model, vector, limit))
        return [(int(r["chunk_id"]), float(r["score"])) for r in rows]

    @operation
    def vectors_of(self, paper_id: str) -> list[tuple[int, str, list[float]]]:
        if self.vectors_note():
            return []
        rows = self._rows("SELECT c.ord, v.model, v.embedding::text AS vector FROM chunk_vectors v "
                          "JOIN chunks c ON c.id = v.chunk_id WHERE c.paper_id = ? ORDER BY c.ord", (paper_id,))
        return [(int(r["ord"]), r["model"], [float(x) for x in r["vector"].strip("[]").split(",")]) for r in rows]


def _quoted(term: str) -> str:
    """A term as websearch_to_tsquery reads a phrase: quoted, never an operator."""
    return '"' + term.replace('"', " ") + '"'


def _vector_text(vector: Sequence[float]) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """Timestamps as the ISO text the SQLite library stores, so both read the same."""
    for key, value in row.items():
        if isinstance(value, datetime):
            row[key] = value.isoformat(timespec="seconds")
    return row
