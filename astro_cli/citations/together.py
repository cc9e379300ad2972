"""A sentence's values belong together: two numbers a claim writes together must stand together in the passage.

A passage often gives parallel statements, each pairing its own values (`In the ZTF g filter there are 18,718
stars (~75%) ... In the ZTF r filter there are 24,313 stars (~97%)`; `our sample of R_0 ≤ 0.12 includes 13,132
flares from 800 stars; our sample of R_0 > 0.12 includes 5,603 flares from 747 stars`). A claim joining one
statement's value to another's (`18,718 stars, about 97% of the sample`) finds each number, and binding.py's words
cannot part them (the statements share their words). The rule: when a claim states two values in one sentence, and
the passage never states them in one part (a sentence, or a `;`-part of one), and each part holding one holds a
rival of the other (a value of its kind, binding.py's `rivals`), the claim joined two statements: a swap.
Numbers in words and years are not compared; nor tables (row_labels.py) and long texts.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from astro_cli.citations.agree import LONG, Stated, matching, stated_in
from astro_cli.citations.binding import rivals, text_words
from astro_cli.citations.claims import POINTERS, Claim
from astro_cli.citations.quantities import passage_quantities
from astro_cli.citations.quantity import Quantity

PARALLEL = 0.6  # the share of the shorter part's words the other part must have
_PART = re.compile(r"(?<=[.!?])(?<![\s.(][A-Za-z]\.)\s+(?=[A-Z\\\[$(])|;\s")  # `i.e.`, `A.` end nothing


@lru_cache(maxsize=512)
def _parts(text: str) -> tuple[tuple[tuple[Quantity, ...], Stated, frozenset[str]], ...]:
    """The passage's parts, each with its values (numbers in words left out) and its words."""
    values = [q for q in passage_quantities(text) if not q.worded and not q.year
              and not POINTERS.search(text[max(0, q.start - 14):q.start])]  # `Section 4` is no value
    cuts = [*_starts(text), len(text)]
    out = []
    for a, b in zip(cuts, cuts[1:]):
        inside = tuple(q for q in values if a <= q.start < b)
        out.append((inside, Stated(inside), text_words(text[a:b]) if inside else frozenset()))
    return tuple(out)


@lru_cache(maxsize=512)
def _starts(text: str) -> list[int]:
    """Where each part of the text starts."""
    return [0] + [m.end() for m in _PART.finditer(text)]


def apart_reason(claim: Claim, passage: str) -> str | None:
    """Why two values the claim writes together belong to two statements of the passage; None when they may not."""
    own = [q for q in claim.quantities if not q.worded and not q.year]
    if len(own) < 2 or len(passage) >= LONG or passage.count("|") >= 5:
        return None
    # where the passage states each value: its matches in the whole passage (cached, shared with the other rules),
    # then the part each stands in; a passage stating fewer than two of them has nothing to part
    whole = stated_in(passage)
    found = {id(q): matching(q, whole) for q in own}
    if sum(1 for q in own if found[id(q)]) < 2:
        return None
    parts = _parts(passage)
    starts = _starts(passage)
    holding = {id(q): {i for m in found[id(q)] if _holds(parts, i := bisect.bisect_right(starts, m.start) - 1, m)}
               for q in own}
    for first in own:
        for second in own:
            where, there = holding[id(first)], holding[id(second)]
            if first is second or not where or not there or where & there or not _parallel(parts, where, there):
                continue
            mine = _partner(parts, where, second, first)
            theirs = _partner(parts, there, first, second)
            if mine is not None and theirs is not None:
                return (f"{first.text} and {second.text} are not stated together: the passage gives {first.text} "
                        f"with {mine.text}, and {second.text} with {theirs.text}")
    return None


def _holds(parts: tuple[tuple[tuple[Quantity, ...], Stated, frozenset[str]], ...], index: int, value: Quantity) -> bool:
    """Whether the part holds the value as one of its own (a pointer or a number in words is none)."""
    return any(v.start == value.start for v in parts[index][0])


def _partner(parts: tuple[tuple[tuple[Quantity, ...], Stated, frozenset[str]], ...], where: set[int], kind: Quantity,
             found: Quantity) -> Quantity | None:
    """The value of `kind`'s kind each part in `where` pairs with `found` (the same one in all), if all pair one."""
    partners = set()
    for i in where:
        values, stated, _ = parts[i]
        own = set(map(id, matching(found, stated)))
        pick = [p for p in values if id(p) not in own and p.value != kind.value and rivals(kind, p)]
        if not pick:
            return None
        partners.add(pick[0])
    return next(iter(partners))


def _parallel(parts: tuple[tuple[tuple[Quantity, ...], Stated, frozenset[str]], ...], where: set[int],
              there: set[int]) -> bool:
    """Whether a part of one and a part of the other are parallel statements (most of their words shared)."""
    for i in where:
        for j in there:
            a, b = parts[i][2], parts[j][2]
            if a and b and len(a & b) >= PARALLEL * min(len(a), len(b)):
                return True
    return False
