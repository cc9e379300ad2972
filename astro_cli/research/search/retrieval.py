"""Retrieval logic that knows no database: merging rankings.

A researcher's question often does not use the paper's words ("what share of proposals should
the sampler keep" for the acceptance fraction). The model can give a second phrasing with the
field's technical terms; each phrasing's ranking, the ranking of all of them together and the
vector rankings are merged by reciprocal rank fusion (Cormack et al. 2009), which needs no
calibration between BM25 scores and cosines. Kept free of SQL so another store (issue 20) can use
it as it is.

Pseudo-relevance feedback (RM3: the words of the first passages added to the question) was tried
on the question set of tests/fixtures/questions and did not help (benchmarks/RESULTS.md), so it
is not here.
"""

from __future__ import annotations

from collections.abc import Sequence

RRF_K = 60  # the constant of Cormack et al. (2009); damps the weight of the very first ranks


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = RRF_K,
                           weights: Sequence[float] | None = None) -> list[tuple[int, float]]:
    """Merge ranked id lists: score(id) = sum over lists of weight / (k + rank), rank from 1."""
    scores: dict[int, float] = {}
    for n, ranking in enumerate(rankings):
        weight = weights[n] if weights else 1.0
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
