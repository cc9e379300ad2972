"""Ranking chunks by their best few sentences: one value in a long paragraph is found by its window.

BM25 scores a chunk as a whole: a 1,500-character paragraph that states the asked value once,
among a dozen others, ranks below shorter passages that repeat the question's common words, and a
vector of the whole chunk averages the one sentence away. Here each candidate chunk (those the
other lists found) is scored by its best window of WINDOW sentences in a row: the summed inverse
document frequency of the question's words the window holds. The words are compared by a short
prefix (a crude stem that needs no stemmer: "polarization" and "polarized" meet). The ranking is
one more list of the fusion (passages.py), so a chunk no other list found is not added by it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

WINDOW = 2  # sentences in a row
PREFIX = 6  # characters a word is compared by
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[$\\])|\n\s*\n")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def stem(word: str) -> str:
    return word.lower()[:PREFIX]


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s and s.strip()]


def idf(frequencies: Mapping[str, int], chunks: int) -> dict[str, float]:
    """Each question word's weight from how many chunks hold it (the BM25 form, never negative)."""
    return {stem(word): math.log(1 + (chunks - df + 0.5) / (df + 0.5)) for word, df in frequencies.items()}


def best_window(text: str, weights: Mapping[str, float]) -> float:
    """The highest summed weight of the distinct question words in any WINDOW sentences in a row."""
    parts = [{stem(w) for w in _WORD.findall(s)} for s in sentences(text)] or [set()]
    best = 0.0
    for start in range(max(1, len(parts) - WINDOW + 1)):
        seen = set().union(*parts[start : start + WINDOW])
        best = max(best, sum(weight for word, weight in weights.items() if word in seen))
    return best


def window_ranking(texts: Mapping[int, str], weights: Mapping[str, float]) -> list[tuple[int, float]]:
    """(chunk id, best window score), best first; chunks holding no question word are left out."""
    scored = [(cid, best_window(text, weights)) for cid, text in texts.items()]
    return sorted(((cid, s) for cid, s in scored if s > 0), key=lambda pair: (-pair[1], pair[0]))

