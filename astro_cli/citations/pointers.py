"""A pointer's number is no value (issue 43, stop 54).

`A summary ... is reported in Table 2.2`, `see Section 4`, `Equation (3)`: the number names a part of the paper.
The claim's own pointers are never read as quantities (claims.py); the passage's were, so `within 2 arcmin of the
target` found the `2.2` of `Table 2.2` (the passage's `2″` is arcseconds), and `the five ensemble flows` the `5`
of `the flow ensemble in Section 5` (the paper trains 4). The rule: a claim value whose every
match in the passage follows a pointer word (claims.py's `POINTERS`), that no table header states, and that the
passage writes nowhere else as a number it could not read (`a 12GB GPU`), is not in the passage.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.agree import Stated, check_quantity, matching, stated_in
from astro_cli.citations.claims import POINTERS, Claim
from astro_cli.citations.headers import header_stated


def pointer_reason(claim: Claim, passage: str) -> str | None:
    """Why a claim's value stands in the passage only as the number of a table, figure, section or equation."""
    pointed = _pointed(passage)
    if not pointed:
        return None
    own = stated_in(passage)  # where its values stand in this text (not the index of the passages read together)
    for q in claim.quantities:
        if q.year:
            continue
        found = matching(q, own)
        if found and all(m.start in pointed for m in found) \
                and check_quantity(q, header_stated(passage)) is not None and not _unread(q.bare, passage, own):
            return f"{q.text} is not in the passage (its {found[0].text} numbers a table, figure, section or equation)"
    return None


@lru_cache(maxsize=512)
def _pointed(passage: str) -> frozenset[int]:
    """Where the passage's numbers after a pointer word start (cached: one passage, many claims)."""
    return frozenset(m.start() for m in re.finditer(r"\d", passage)
                     if POINTERS.search(passage, max(0, m.start() - 14), m.start()))


def _unread(number: str, passage: str, stated: Stated) -> bool:
    """Whether the passage writes the number where no value was read (`a 12GB GPU`): it may be the claim's."""
    spans = [(q.start, q.end) for q in stated.items]
    return any(not any(a <= m.start() < b for a, b in spans)
               for m in re.finditer(r"(?<![\w.])" + re.escape(number) + r"(?![\d])", passage))
