"""The field's own synonyms: the Unified Astronomy Thesaurus's labels for a concept the question names.

A question says "CMB" where the paper says "cosmic microwave background", "BAO" where it says "baryon
acoustic oscillations"; BM25 over the question's words cannot meet the other spelling. The UAT (the
field's public controlled vocabulary, CC BY-SA 3.0; uat_labels.tsv says where it comes from) gives
each concept a preferred label and alternate labels. A run of the question's words equal to one
label adds the concept's other labels as phrases, searched as one more keyword list that the fusion
weighs below the question's own (passages.py). Labels that differ only by case, punctuation or a
plural are left out: the index's stemming already meets them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).with_name("uat_labels.tsv")
MAX_ADDED = 12  # alternate labels added to one question, at most (each is a phrase the index must look up)
MIN_CHARS = 3  # a shorter label ("L1", "Hz") is too ambiguous to stand for a concept
ABBREVIATION = 5  # a one-word label this short is an abbreviation: it names its concept only as written
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Thesaurus:
    """Each label (as its words, lower-cased) to the concepts it names; each concept's labels."""

    concepts: tuple[tuple[str, ...], ...]
    by_label: dict[tuple[str, ...], tuple[int, ...]]
    longest: int

    def alternates(self, question: str) -> list[str]:
        """The other labels of the concepts the question names, longest names first, none the
        question already holds, at most MAX_ADDED."""
        written = tuple(_WORD.findall(question or ""))
        words = tuple(w.lower() for w in written)
        held = {_loose(words[i : i + n]) for n in range(1, self.longest + 1) for i in range(len(words) - n + 1)}
        added: list[str] = []
        for n in range(min(self.longest, len(words)), 0, -1):
            for i in range(len(words) - n + 1):
                keys = [words[i : i + n]] + ([(_CASED + written[i],)] if n == 1 else [])
                for concept in (c for key in keys for c in self.by_label.get(key, ())):
                    for label in self.concepts[concept]:
                        key = _words(label)
                        if _loose(key) in held or " ".join(key) in added or len(" ".join(key)) < MIN_CHARS:
                            continue
                        added.append(" ".join(key))
        return added[:MAX_ADDED]


_CASED = "="  # marks a key kept in its own case (an abbreviation)


def _words(label: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _WORD.findall(label))


def _key(label: str) -> tuple[str, ...]:
    """The words a question must hold to name the label: an abbreviation in its own case ("dEs", the dwarf
    ellipticals, is not the question's "DES", the Dark Energy Survey), any other label in any case."""
    written = _WORD.findall(label)
    if len(written) == 1 and len(written[0]) <= ABBREVIATION:
        return (_CASED + written[0],)
    return tuple(w.lower() for w in written)


def _loose(words: tuple[str, ...]) -> tuple[str, ...]:
    """Words as the index's stemming would meet them: a plural's `s` does not make a new label."""
    return tuple(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words)


def parse(text: str) -> Thesaurus:
    """uat_labels.tsv's text (`id<TAB>preferred<TAB>alternate...`, `#` lines are its provenance)."""
    concepts: list[tuple[str, ...]] = []
    by_label: dict[tuple[str, ...], list[int]] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        labels = tuple(label for label in line.split("\t")[1:] if label.strip())
        concepts.append(labels)
        for label in labels:
            key = _key(label)
            if len(" ".join(_words(label))) >= MIN_CHARS:
                by_label.setdefault(key, []).append(len(concepts) - 1)
    longest = max((len(key) for key in by_label), default=0)
    return Thesaurus(tuple(concepts), {k: tuple(v) for k, v in by_label.items()}, longest)


@lru_cache(maxsize=1)
def uat() -> Thesaurus:
    """The shipped UAT labels, read once a process (56 kB): a read-only table, like the stop words."""
    return parse(DATA.read_text(encoding="utf-8"))
