"""Pseudo-relevance feedback (RM3-style): the words the first passages share, as one more keyword list.

A researcher's question and the passage that answers it often share few words, while the passages
the question does find are on its topic and use the paper's own vocabulary for it. The most
distinctive words of the first few fused passages that the question lacks (each word's share of a
passage, weighted by the passage's rank, times its rarity in the library) are searched as one more
BM25 list, fused below the question's own lists (passages.py). Chosen on CosmoPaperQA's development
split among 72 settings that keep the project's question sets whole, with and without vectors
(benchmarks/RESULTS.md "Stop 54 — retrieval"); stop 15's version, which fused the widened question
instead of the new words alone and read the BM25 ranking only, did not help.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence

from astro_cli.research.search.windows import stem
from astro_cli.stopwords import STOPWORDS

PASSAGES = 5  # the first fused passages that give the words
WORDS = 20  # words added
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)  # three letters or more: no numbers, no symbols' pieces


def feedback_words(texts: Sequence[str], asked: Collection[str],
                   frequencies: Callable[[list[str]], Mapping[str, int]], chunks: int, n: int = WORDS) -> list[str]:
    """The n most distinctive words of `texts` (best passage first) that are not among `asked`
    (compared by windows.stem); `frequencies` gives how many of the library's `chunks` hold each word."""
    asked_stems = {stem(word) for word in asked}
    weight: dict[str, float] = {}
    form: dict[str, str] = {}
    for rank, text in enumerate(texts, start=1):
        words = [w for w in (m.lower() for m in _WORD.findall(text))
                 if w not in STOPWORDS and stem(w) not in asked_stems]
        for word in words:
            form.setdefault(stem(word), word)
        for key, count in Counter(stem(w) for w in words).items():
            weight[key] = weight.get(key, 0.0) + count / len(words) / rank
    if not weight:
        return []
    found = frequencies([form[key] for key in weight])
    scored = []
    for key, share in weight.items():
        held = found.get(form[key], 0)
        scored.append((share * math.log(1 + (chunks - held + 0.5) / (held + 0.5)), form[key]))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [word for _, word in scored[:n]]
