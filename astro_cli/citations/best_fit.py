"""The sentence that fits best decides (issue 43, stop 54).

A passage states several values of one kind in sentences about different things (`For the main flow ... 200
epochs.` / `For the conditional flow ... 600 epochs.`); binding.py compares the clauses of one sentence, and across
sentences refutes a claim only when the sentence of its value shares none of its words. The rule here, across
sentences: among the passage's sentences holding a value of the claim number's kind (binding.py's `rivals`), the
one whose words share the most of the claim's decides. When it holds another value, and every sentence holding
the claim's value shares fewer of the claim's words, and none shares more than `SLACK` word the deciding sentence
lacks, the claim took its value from the wrong sentence. Where sentences tie, the paragraph decides the same way
(`For the main flow ..., we trained for 200 epochs. We used Adam, starting with a learning rate of 10^-5.`).
Not compared: tables, long texts, a sentence cut where the passage was cut from the paper, numbers in words, years.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from astro_cli.citations.agree import LONG, Stated, matching
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
    """A passage value with the words of its sentence, of its sentence and the one before (`These data have ...`
    speaks of the sentence before's subject), and of its paragraph."""

    anchored: Anchored
    context: frozenset[str]
    paragraph: frozenset[str]


def _spans(passage: str, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    cuts = [0] + [m.end() for m in pattern.finditer(passage)] + [len(passage)]
    return list(zip(cuts, cuts[1:]))


@lru_cache(maxsize=512)
def _places(passage: str) -> tuple[tuple[_Place, ...], Stated]:
    """The passage's values (not in words, not years, not in a cut sentence, not a name's digits) with their
    sentence's and paragraph's words."""
    paragraphs = [(a, b, text_words(passage[a:b])) for a, b in _spans(passage, _PARAGRAPH)]
    sentences = _spans(passage, _SENTENCE)
    values = passage_anchored(passage)
    out = []
    for value in values:
        q = value.quantity
        if q.worded or q.year or value.cut or _DESIGNATION.search(passage, max(0, q.start - 12), q.start):
            continue
        at = next((i for i, (a, b) in enumerate(sentences) if a <= q.start < b), 0)
        # the sentence before lends its words when it states no value of its own (it names the subject)
        a, b = sentences[at - 1] if at else (0, 0)
        lends = at and not any(a <= v.quantity.start < b for v in values)
        before = text_words(passage[a:b]) if lends else frozenset()
        paragraph = next((w for a, b, w in paragraphs if a <= q.start < b), frozenset())
        out.append(_Place(value, value.sentence | before, paragraph))
    return tuple(out), Stated(tuple(p.anchored.quantity for p in out))


def _shape(q: Quantity) -> str:
    return "range" if q.high is not None else "error" if q.plus is not None else "value"


def _comparable(claim: Quantity, other: Quantity) -> bool:
    """A range is another range's rival, a value with an uncertainty another such value's; a bare value either."""
    mine, theirs = _shape(claim), _shape(other)
    return mine == theirs or mine == "value" and theirs == "error"


def _wins(words: frozenset[str], rival: _Place, equal: _Place) -> bool:
    """Whether the rival's sentence (else its paragraph) fits the claim's words better than the value's."""
    if rival.anchored.index == equal.anchored.index:
        return False  # one sentence: its clauses decide (binding.py)
    theirs, ours = words & rival.anchored.sentence, words & equal.context
    if len(theirs) < MIN_WORDS:
        return False
    if len(theirs) >= len(ours) + MARGIN and len(ours - theirs) <= SLACK or theirs > ours:
        return True
    if rival.paragraph == equal.paragraph or len(theirs) + 1 < len(ours):
        return False
    return words & rival.paragraph > words & equal.paragraph


def best_fit_reason(claim: Claim, passage: str) -> str | None:
    """Why a claim's value stands only in sentences that fit the claim worse than one giving another value."""
    if len(passage) >= LONG or passage.count("|") >= 5:
        return None
    places, stated = _places(passage)
    if len(places) < 2:
        return None
    mine = claim_anchored(claim)
    for own in mine:
        q = own.quantity
        if q.worded or q.year or not own.sentence:
            continue
        same = set(map(id, matching(q, stated)))
        equal = [p for p in places if id(p.anchored.quantity) in same]
        if not equal:
            continue
        # a sentence stating another of the claim's values is one the claim drew on, not a rival statement
        drawn = {p.anchored.index for o in mine if o is not own
                 for m in [set(map(id, matching(o.quantity, stated)))] for p in places if id(p.anchored.quantity) in m}
        others = [p for p in places if id(p.anchored.quantity) not in same and rivals(q, p.anchored.quantity)
                  and p.anchored.quantity.value != q.value and p.anchored.index not in drawn
                  and _comparable(q, p.anchored.quantity)]
        if not others:
            continue
        # a claim of one value is about it all; of several, each value's clause says what it is
        words = own.sentence if len(mine) == 1 else own.clause or own.sentence
        best = max(others, key=lambda p: (len(words & p.anchored.sentence), len(words & p.paragraph)))
        if all(_wins(words, best, e) for e in equal):
            return _reason(q.text, best)
    return None


def _reason(value: str, place: _Place) -> str:
    return (f"{value} is in the passage, but the sentence that fits the claim best gives "
            f"{place.anchored.quantity.text}")
