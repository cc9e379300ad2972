"""Vectors as the library stores and ranks them: packed floats, one model's normalised matrix,
cosine ranking. Shared by the embedding work (embed.py) and the storage that keeps the vectors
(storage/), so neither imports the other for them."""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any


class EmbeddingError(Exception):
    """The embedding model failed; one sentence (search falls back to BM25)."""


def pack(vector: list[float]) -> bytes:
    return array("f", vector).tobytes()


def unpack(blob: bytes) -> list[float]:
    values = array("f")
    values.frombytes(blob)
    return values.tolist()


@dataclass
class VectorIndex:
    """All vectors of one model as a normalised matrix: a chunk's rows (its windows, or its one
    vector) are consecutive, from `starts[i]` for the i-th chunk of `chunk_ids`."""

    model: str
    stamp: tuple[int, int]
    chunk_ids: Any  # numpy int64 array, one per chunk
    paper_ids: list[str | None]  # one per chunk
    matrix: Any  # numpy float32 (rows, dim), rows of unit length
    starts: Any = None  # numpy int64 array, one per chunk; None: one row per chunk


def index_of(model: str, stamp: tuple[int, int], rows: list[tuple[int, str | None, bytes]]) -> VectorIndex:
    """The index of (chunk id, paper id, packed vector) rows ordered by chunk id (a chunk may have several)."""
    import numpy as np

    if len({len(r[2]) for r in rows}) != 1:
        raise EmbeddingError(f"stored vectors of {model} have different sizes; re-parse the papers")
    matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1).copy()
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix /= np.where(norms == 0, 1, norms)
    owners = np.array([r[0] for r in rows], dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]]) if len(rows) else np.zeros(0, dtype=np.int64)
    return VectorIndex(model, stamp, owners[starts], [rows[i][1] for i in starts.tolist()], matrix, starts)


def rank_by_vector(index: VectorIndex, query: list[float], limit: int,
                   paper_ids: list[str] | None = None) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity of its best row) of the `limit` chunks closest to the query vector."""
    import numpy as np

    q = np.asarray(query, dtype=np.float32)
    if q.shape[0] != index.matrix.shape[1]:
        raise EmbeddingError(
            f"the query vector has {q.shape[0]} dimensions but the stored ones have {index.matrix.shape[1]}"
        )
    q /= np.linalg.norm(q) or 1.0
    scores = index.matrix @ q
    if index.starts is not None and len(index.starts) != len(scores):
        scores = np.maximum.reduceat(scores, index.starts)  # a chunk scores as its best window
    if paper_ids is not None:
        allowed = set(paper_ids)
        mask = np.array([p in allowed for p in index.paper_ids], dtype=bool)
        scores = np.where(mask, scores, -np.inf)
    limit = min(limit, len(scores))
    if limit <= 0:
        return []
    top = np.argpartition(-scores, limit - 1)[:limit]
    top = top[np.argsort(-scores[top], kind="stable")]
    return [(int(index.chunk_ids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]
