"""A question that names a paper of the library asks about that paper.

Researchers name the paper they mean: "in CAMELS, what is ...", "the optical depth according to
the Planck 2018 lowE analysis". Such a word does two things badly as a search term: across the
library it is one signal among many, so another paper's passage can come first (issue 42: 14 of
CosmoPaperQA's 105 rank-1 hits were another paper's), and inside the named paper it is in most
passages, so it lifts the ones that repeat it over the one that answers. Read as a name, it keeps
the search to that paper and leaves the ranking to the question's other words: on CosmoPaperQA's
development split, recall @1 14 -> 17 of 42 (benchmarks/RESULTS.md "Stop 52 — retrieval").

A word names a paper when it is typed with a capital inside the question (not its first word),
is not a number or a stop word, is a word of exactly one paper's title in the library, and that
paper holds at least SHARE of the passages that use the word most (the word's best BM25 passages):
where other papers use it as much ("Gaussian", or "Planck" among cosmology papers that all cite
Planck), it is the question's topic, not a name. A filter the user gave (`--paper`) is never
second-guessed: no name is read then.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from astro_cli.stopwords import STOPWORDS

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MIN_CHARS = 3  # ACT, SPT; shorter capitals are symbols (H0, As)
SHARE = 2 / 3  # of the word's best passages, from the paper whose title holds it


@dataclass
class Naming:
    papers: list[str] = field(default_factory=list)  # the ids of the papers the question names
    phrasings: list[str] = field(default_factory=list)  # the phrasings without the naming words


def named_papers(titles: Mapping[str, str], phrasings: list[str], users: Callable[[str], list[str]]) -> Naming:
    """The papers the phrasings name (by their titles: id -> title) and the phrasings without those
    words; nothing named gives an empty Naming. `users(word)`: the papers of the word's best
    passages, best first (one entry a passage)."""
    owners: dict[str, set[str]] = {}
    for paper_id, title in titles.items():
        for word in _WORD.findall(title or ""):
            owners.setdefault(word.lower(), set()).add(paper_id)
    named: list[str] = []
    stripped: list[str] = []
    for phrasing in phrasings:
        words = list(_WORD.finditer(phrasing))
        names = [m for m in words[1:] if _name_like(m.group()) and len(owners.get(m.group().lower(), ())) == 1
                 and _mostly(users(m.group()), next(iter(owners[m.group().lower()])))]
        for match in names:
            named += [pid for pid in owners[match.group().lower()] if pid not in named]
        text = phrasing
        for match in reversed(names):
            text = text[: match.start()] + text[match.end():]
        left = [w for w in _WORD.findall(text) if w.lower() not in STOPWORDS]
        stripped.append(text if left else phrasing)  # a question that is only a name searches by it
    return Naming(named, stripped) if named else Naming()


def _mostly(papers: list[str], paper_id: str) -> bool:
    return bool(papers) and papers.count(paper_id) >= SHARE * len(papers)


def _name_like(word: str) -> bool:
    return (len(word) >= MIN_CHARS and any(ch.isupper() for ch in word) and not word.isdigit()
            and word.lower() not in STOPWORDS)
