"""A `respectively` list pairs its names with its values in order (issue 43, stop 53 follow-up).

`split them into training and test sets consisting of 80% and 20% of the galaxies, respectively`: 80% is the
training set's, 20% the test set's. A claim swapping them (`20% for training and 80% for testing`) finds both
numbers, and binding.py reads a `respectively` sentence as one clause, so it passed. The rule: in a passage sentence
with `respectively`, the last list of single words (`training and test`) with as many items as there are values
after it, and words between (`fainter and reported 3003 and 1860` lists no names), is paired with them
in order; a claim value whose clause names another item of the list, and not its
own, is refuted. A list with a count or a determiner for an item (`rotational modulation, and two Savitzky-Golay
filters with a 6 h and 3 h window, respectively`) joins clauses, not names, and pairs nothing (stop 54, 43c).
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.agree import LONG, Stated, matching
from astro_cli.citations.binding import claim_anchored
from astro_cli.citations.claims import Claim
from astro_cli.citations.number_words import WORDS
from astro_cli.citations.quantities import passage_quantities
from astro_cli.citations.quantity import Quantity
from astro_cli.citations.terms import stem

_SENTENCE = re.compile(r"[^.!?]*\brespectively\b[^.!?]*", re.IGNORECASE)
_COUNTS = frozenset(WORDS) | {"one", "a", "an", "the", "both", "all", "each"}
_LIST = re.compile(r"\b([A-Za-z][\w-]*)((?:,\s*[A-Za-z][\w-]*)*),?\s+(?:and|or)\s+([A-Za-z][\w-]*)\b")


@lru_cache(maxsize=512)
def _pairs(passage: str) -> tuple[tuple[str, Quantity, frozenset[str]], ...]:
    """(item stem, its value, the other items' stems) of each `respectively` sentence of the passage."""
    out = []
    for sentence in _SENTENCE.finditer(passage):
        values = [q for q in passage_quantities(sentence.group(0)) if not q.worded and not q.year]
        if len(values) < 2:
            continue
        for found in reversed(list(_LIST.finditer(sentence.group(0)))):
            items = [found.group(1), *[w.strip() for w in found.group(2).split(",") if w.strip()], found.group(3)]
            if any(w.lower() in _COUNTS for w in items):  # `modulation, and two filters with a 6 h and 3 h window`
                continue  # a count or a determiner names nothing: the list is of clauses, not of names
            after = [q for q in values if q.start >= found.end()]
            gap = sentence.group(0)[found.end():after[0].start] if after else ""
            if len(items) == len(after) and re.search(r"[A-Za-z]", gap):  # `fainter and reported 3003`: no names
                stems = [stem(w) for w in items]
                out += [(s, q, frozenset(stems) - {s}) for s, q in zip(stems, after)]
                break
    return tuple(out)


@lru_cache(maxsize=512)
def _mentions(passage: str) -> bool:
    """Whether the passage writes `respectively` (once per passage: lowering a long passage for each claim cost more
    than the rule)."""
    return "respectively" in passage.lower()


def respectively_reason(claim: Claim, passage: str) -> str | None:
    """Why a claim's value is another item's of a `respectively` list; None when it may not be."""
    if len(passage) >= LONG or not _mentions(passage):
        return None
    pairs = _pairs(passage)
    if not pairs:
        return None
    for own in claim_anchored(claim):
        for item, value, others in pairs:
            if not matching(own.quantity, Stated((value,))):
                continue
            named = own.clause & others
            if named and item not in own.clause:
                return (f"{own.quantity.text} is the passage's value for {item}, not for {', '.join(sorted(named))} "
                        f"(a `respectively` list)")
    return None
