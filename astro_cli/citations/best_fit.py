"""The sentence that fits best decides (issue 43, stop 54).

A passage states several values of one kind in sentences about different things (`For the main flow ... 200
epochs.` / `For the conditional flow ... 600 epochs.`); binding.py compares the clauses of one sentence, and across
sentences refutes a claim only when the sentence of its value shares none of its words. The rule here, across
sentences: among the passage's sentences holding a rival value (of the claim number's kind and shape, binding.py's
`rivals`; not a name's digits such as `NGC 2516`), the one sharing the most of the claim's words decides. When it
holds another value, and each sentence holding the claim's value shares fewer of them (the sentence before it in
its paragraph counts with it when that one states no rival: `These data have R ~ 2000`), by `MARGIN` with at most
`SLACK` words of its own or by being a strict subset, the claim took its value from the wrong sentence. Between
paragraphs the same holds by a strict subset (`For the main flow ...: 200 epochs. ... a learning rate of 10^-5.`).
The claim's words are its sentence's, or, when it states several values, each value's clause's; a sentence that
states another of the claim's values is one it drew on, never a rival. Not compared: two values of one sentence
(binding.py's), tables, long texts, a sentence cut where the passage was cut, numbers in words, years.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from astro_cli.citations.agree import LONG, matching, stated_in
from astro_cli.citations.binding import Anchored, claim_anchored, passage_anchored, rivals, text_words
from astro_cli.citations.claims import Claim
from astro_cli.citations.quantity import Quantity

MARGIN = 2  # how many more of the claim's words the deciding sentence must share than the value's best sentence
MIN_WORDS = 2  # a deciding sentence shares at least this many of the claim's words
SLACK = 1  # how many claim words a sentence of the claim's value may share that the deciding sentence lacks
_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\\[$(])")
_DESIGNATION = re.compile(r"(?:\b[A-Z]{2,}|\b[A-Z][a-z]+-)\s?$")  # `NGC 2516`, `TIC 235056185`, `Kepler-`: a name


@dataclass(frozen=True)
class _Place:
    """A passage value with the words of its sentence, of the sentence before in its paragraph (`These data have
    ...` speaks of the sentence before's subject) and where that one stands, and of its paragraph."""

    anchored: Anchored
    before: frozenset[str]
    before_at: tuple[int, int]
    paragraph: frozenset[str]


def _spans(passage: str, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    cuts = [0] + [m.end() for m in pattern.finditer(passage)] + [len(passage)]
    return list(zip(cuts, cuts[1:]))


@lru_cache(maxsize=512)
def _places(passage: str) -> tuple[tuple[_Place, ...], dict[int, _Place], tuple[tuple[Quantity, tuple[_Place, ...]], ...]]:
    """The passage's values (not in words, not years, not in a cut sentence, not a name's digits) with their
    sentence's and paragraph's words; and the same grouped by what a claim value could be rivalled by (unit,
    count, percent: binding.py's `rivals` of one member is that of all), each group with one member."""
    paragraphs = [(a, b, text_words(passage[a:b])) for a, b in _spans(passage, _PARAGRAPH)]
    sentences = _spans(passage, _SENTENCE)
    values = passage_anchored(passage)
    out = []
    groups: dict[tuple[str | None, bool, bool, bool], list[_Place]] = {}
    for value in values:
        q = value.quantity
        if q.worded or q.year or value.cut or _DESIGNATION.search(passage, max(0, q.start - 12), q.start):
            continue
        at = next((i for i, (a, b) in enumerate(sentences) if a <= q.start < b), 0)
        first, last, paragraph = next((a, b, w) for a, b, w in paragraphs if a <= q.start < b)
        a, b = sentences[at - 1] if at and sentences[at - 1][0] >= first else (q.start, q.start)
        out.append(_Place(value, text_words(passage[a:b]) if b > a else frozenset(), (a, b), paragraph))
        key = (q.unit, q.percent, q.plus is None and q.decimals >= 0 and float(q.value).is_integer(), _yearlike(q))
        groups.setdefault(key, []).append(out[-1])
    grouped = tuple((members[0].anchored.quantity, tuple(members)) for members in groups.values())
    return tuple(out), {id(p.anchored.quantity): p for p in out}, grouped


@lru_cache(maxsize=512)
def _words_of(passage: str) -> frozenset[str]:
    """The words of the passage's sentences that hold values (what any rival sentence could share)."""
    return frozenset().union(*(p.anchored.sentence for p in _places(passage)[0]))


def _yearlike(q: Quantity) -> bool:
    return q.unit is None and q.decimals == 0 and 1600 <= q.value <= 2099 and q.high is None and "," not in q.bare


def _shape(q: Quantity) -> str:
    return "range" if q.high is not None else "error" if q.plus is not None else "value"


def _comparable(claim: Quantity, other: Quantity) -> bool:
    """A range is another range's rival, a value with an uncertainty another such value's; a bare value either."""
    mine, theirs = _shape(claim), _shape(other)
    return mine == theirs or mine == "value" and theirs == "error"


def _wins(words: frozenset[str], rival: _Place, equal: _Place, others: list[_Place]) -> bool:
    """Whether the rival's sentence (else its paragraph) fits the claim's words better than the value's."""
    if rival.anchored.index == equal.anchored.index:
        return False  # one sentence: its clauses decide (binding.py)
    theirs, ours = words & rival.anchored.sentence, words & equal.anchored.sentence
    if not any(equal.before_at[0] <= o.anchored.quantity.start < equal.before_at[1] for o in others):
        ours |= words & equal.before  # the sentence before, stating no rival value, names the value's subject
    if len(theirs) < MIN_WORDS:
        return False
    if len(theirs) >= len(ours) + MARGIN and len(ours - theirs) <= SLACK or theirs > ours:
        return True
    if rival.paragraph == equal.paragraph:
        return False
    return words & rival.paragraph > words & equal.paragraph


def best_fit_reason(claim: Claim, passage: str) -> str | None:
    """Why a claim's value stands only in sentences that fit the claim worse than one giving another value."""
    if len(passage) >= LONG or passage.count("|") >= 5:
        return None
    places, by_id, grouped = _places(passage)
    every = _words_of(passage)
    if not grouped or places[0].anchored.index == places[-1].anchored.index:
        return None  # values in one sentence at most: binding.py's clauses decide
    stated = stated_in(passage)  # its matches are cached and shared with the other rules
    mine = claim_anchored(claim)
    for own in mine:
        q = own.quantity
        if q.worded or q.year or not own.sentence:
            continue
        found = matching(q, stated)
        if not found:
            continue
        # a claim of one value is about it all; of several, each value's clause says what it is
        words = own.sentence if len(mine) == 1 else own.clause or own.sentence
        if len(words & every) < MIN_WORDS:
            continue  # no sentence of the passage can share enough of the claim's words to decide
        same = set(map(id, found))
        equal = [by_id[i] for i in same if i in by_id]
        if not equal:
            continue
        same_value = [p for members in (m for rep, m in grouped if rivals(q, rep)) for p in members
                      if id(p.anchored.quantity) not in same and p.anchored.quantity.value != q.value
                      and _comparable(q, p.anchored.quantity)]
        # a sentence stating another of the claim's values is one the claim drew on, not a rival statement
        drawn = {by_id[id(m)].anchored.index for o in mine if o is not own for m in matching(o.quantity, stated)
                 if id(m) in by_id} if len(mine) > 1 and same_value else set()
        others = [p for p in same_value if p.anchored.index not in drawn]
        if not others:
            continue
        # of rivals that fit alike, the nearest in size (`600 epochs`, not the `4` of `Section 4` beside it)
        fits = [(len(words & p.anchored.sentence), len(words & p.paragraph), p) for p in others]
        top = max(f[:2] for f in fits)
        if top[0] < MIN_WORDS:
            continue  # no rival sentence shares enough of the claim's words to decide
        best = min((p for a, b, p in fits if (a, b) == top), key=lambda p: _distance(q.value, p.anchored.quantity.value))
        if all(_wins(words, best, e, others) for e in equal):
            return _reason(q.text, best)
    return None


def _distance(a: float, b: float) -> float:
    """How far apart two values are in size (orders of magnitude)."""
    return abs(math.log10(abs(a) + 1e-30) - math.log10(abs(b) + 1e-30))


def _reason(value: str, place: _Place) -> str:
    return (f"{value} is in the passage, but the sentence that fits the claim best gives "
            f"{place.anchored.quantity.text}")
