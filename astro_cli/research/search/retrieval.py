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

from collections.abc import Collection, Mapping, Sequence

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


def fuse(lists: Mapping[str, Sequence[int]], weights: Mapping[str, float], keyword_only: Collection[int] = (),
         vector_lists: Collection[str] = (), tie_break: Sequence[int] = (), k: int = RRF_K) -> list[tuple[int, float]]:
    """Reciprocal rank fusion fair to papers whose vectors are not made yet (issue 42).

    A chunk in `keyword_only` cannot be in a vector list, so its plain sum would rank it below any
    chunk both kinds of list found: a paper just added (vectors pending) sank under keyword-only
    results. Its sum is scaled by (all weights / the weights of the lists it can be in), so it is
    fused over the lists that exist for its paper, as its mean; other chunks' scores are unchanged.
    `tie_break` (the literal three-word runs) orders chunks whose fused scores are equal.
    """
    total = sum(weights.get(name, 1.0) for name in lists)
    present = sum(weights.get(name, 1.0) for name in lists if name not in vector_lists)
    scale = total / present if present and keyword_only else 1.0
    scores: dict[int, float] = {}
    for name, ranking in lists.items():
        weight = weights.get(name, 1.0)
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    for item in keyword_only:
        if item in scores:
            scores[item] *= scale
    literal = {item: rank for rank, item in enumerate(tie_break)}
    last = len(literal)
    return sorted(scores.items(), key=lambda pair: (-round(pair[1], 12), literal.get(pair[0], last), pair[0]))
