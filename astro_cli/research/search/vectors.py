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
    """All vectors of one model as a normalised matrix, with each row's chunk and paper."""

    model: str
    stamp: tuple[int, int]
    chunk_ids: Any  # numpy int64 array
    paper_ids: list[str | None]
    matrix: Any  # numpy float32 (n, dim), rows of unit length


def rank_by_vector(index: VectorIndex, query: list[float], limit: int,
                   paper_ids: list[str] | None = None) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity) of the `limit` rows closest to the query vector."""
    import numpy as np

    q = np.asarray(query, dtype=np.float32)
    if q.shape[0] != index.matrix.shape[1]:
        raise EmbeddingError(
            f"the query vector has {q.shape[0]} dimensions but the stored ones have {index.matrix.shape[1]}"
        )
    q /= np.linalg.norm(q) or 1.0
    scores = index.matrix @ q
    if paper_ids is not None:
        allowed = set(paper_ids)
        mask = np.array([p in allowed for p in index.paper_ids], dtype=bool)
        scores = np.where(mask, scores, -np.inf)
    limit = min(limit, len(scores))
    top = np.argpartition(-scores, limit - 1)[:limit]
    top = top[np.argsort(-scores[top], kind="stable")]
    return [(int(index.chunk_ids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]
