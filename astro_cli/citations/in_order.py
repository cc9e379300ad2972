"""Two lists of one length pair their items in order, `respectively` or not (issue 43, stop 54).

`fit the three FFDs for M3-M5, M0-M2, and K5-K8 stars ... They measured slopes of 0.94 ± 0.04, 0.69 ± 0.05,
0.82 ± 0.14 per bin`: the first slope is M3-M5's, the second M0-M2's. A claim giving `0.69 ± 0.05 for K5-K8` finds
its number and its words; respectively.py needs the word. The rule: a list of names (`A, B and C`) and, in the
same sentence after it or in the next sentence, a run of as many values with nothing but separators between them
(`,`, `and`, `$`, spaces) and of one kind, are paired by position; a claim value whose clause names another item of the list,
and not its own, is refuted. The items must be names or symbols (each has a capital
or a digit: `M3-M5`, `TOI-700`), never common words (`composition and size`, `core and halo`), whose lists pair
with the numbers after them by chance; the digits of a name (`M3`, `K5`) are no values.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.agree import LONG, Stated, matching
from astro_cli.citations.binding import claim_anchored, rivals, text_words
from astro_cli.citations.claims import Claim
from astro_cli.citations.quantities import passage_quantities
from astro_cli.citations.quantity import Quantity

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\\[$(])")
_ITEM = r"[A-Za-z][\w\-–]*"
_LIST = re.compile(rf"\b({_ITEM})((?:,\s*{_ITEM})*),?\s+(?:and|or)\s+({_ITEM})\b")
_NAME = re.compile(r"[A-Z0-9]")  # a name or a symbol (`M3-M5`, `TOI-700`, `ZTF`), not a common word (`core`)
_SEPARATOR = re.compile(r"(?:[\s$,]|\band\b)*")


@lru_cache(maxsize=512)
def _pairs(passage: str) -> tuple[tuple[str, frozenset[str], Quantity, frozenset[str]], ...]:
    """(an item, its words, its value, the other items' words) of each pair of lists of the passage."""
    if "," not in passage:
        return ()
    cuts = [0] + [m.end() for m in _SENTENCE.finditer(passage)] + [len(passage)]
    sentences = list(zip(cuts, cuts[1:]))
    values = [q for q in passage_quantities(passage) if not q.worded and not q.year
              and not (q.start and passage[q.start - 1].isalnum())]
    out: list[tuple[str, frozenset[str], Quantity, frozenset[str]]] = []
    for at, (a, b) in enumerate(sentences):
        for found in _LIST.finditer(passage, a, b):
            items = [found.group(1), *[w.strip() for w in found.group(2).split(",") if w.strip()], found.group(3)]
            words = [text_words(item) for item in items]
            if not all(words) or len(set(words)) < len(words) or not all(_NAME.search(item) for item in items):
                continue
            end = sentences[at + 1][1] if at + 1 < len(sentences) else b
            run = _first_run(passage, [q for q in values if found.end() <= q.start < end], len(items))
            if run:
                everyone = frozenset().union(*words)
                out += [(item, w, q, everyone - w) for item, w, q in zip(items, words, run)]
    return tuple(out)


def _first_run(passage: str, values: list[Quantity], size: int) -> list[Quantity]:
    """The first run of values with only separators between them, if it is `size` long (else none)."""
    run: list[Quantity] = []
    for q in values:
        if run and not _SEPARATOR.fullmatch(passage, run[-1].end, q.start):
            if len(run) >= 2:
                break
            run = []
        run.append(q)
    alike = all(rivals(run[0], q) and (q.plus is None) == (run[0].plus is None) for q in run)
    return run if len(run) == size and size >= 2 and alike else []


def in_order_reason(claim: Claim, passage: str) -> str | None:
    """Why a claim's value is another item's of two lists paired in order; None when it may not be."""
    if len(passage) >= LONG or passage.count("|") >= 5:
        return None
    pairs = _pairs(passage)
    if not pairs:
        return None
    for own in claim_anchored(claim):
        for item, words, value, others in pairs:
            if not own.clause & others or words & own.clause or not matching(own.quantity, Stated((value,))):
                continue
            return (f"{own.quantity.text} is the passage's value for {item} (the item in its place of the list "
                    f"the passage pairs with its values), not for the item the claim names")
    return None
