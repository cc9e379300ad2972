"""Is the passage's value a bound the claim turns around, or a statement the claim negates? (issue 43, stop 53)

The claim's number can stand in the passage and still be misreported: `A_B < 0.35` (a 1σ upper limit) told as
`A_B > 0.35` or as a measured `0.35`; `more than 1075 hours` as `less than`; `lithium depletion is not expected`
as `is expected`. Three rules, each only where every place the passage states the value says the same:
- the direction: a value bounded from above (`<`, `≤`, `≲`, `less than`, `below`, `under`, `at most`, `up to`,
  `upper limit`, `or less`) is not one bounded from below (`>`, `≳`, `more than`, `above`, `over`, `at least`,
  `exceeding`, `lower limit`, `or more`), nor the reverse;
- an upper limit is no measurement: a passage's upper limit (`<`, `≲`, `upper limit of`; not an extent such as `up
  to 11 days`) claimed as a plain value (no comparison, no `limit`/`bound`/`threshold` word, no `...er than` near
  it) is not stated;
- the negation: where the passage states the value, its clause and its sentence are negated (`not`, `no`, `never`,
  `neither`, `nor`, `none`, `cannot`, `without`, `n't`) as the claim's are; a claim that bounds its value is not
  held to it (`cannot detect periods beyond two years` is an `upper limit of two years`).
Not compared: ranges (`0 < A_B < 1`, `between`), comparisons in other words (`brighter than Kp < 7`, whose
direction is the adjective's), a negation in another sentence, and double negations.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.agree import Stated, matching
from astro_cli.citations.claims import Claim
from astro_cli.citations.quantity import Quantity

_APPROX = r"(?:\s*(?:\$|\{|\}|\\sim|\\approx|about|around|roughly|approximately|nearly|[∼~≈≃]))*\s*"
_UPPER = re.compile(r"(?:<|≤|≲|\\lesssim|\\leq?|\\la\b|\\lt\b|\bless\s+than|\bfewer\s+than|\bsmaller\s+than|"
                    r"\blower\s+than|\bshorter\s+than|\bbelow|\bunder|\bat\s+most|\bup\s+to|\bno\s+more\s+than|"
                    r"\bnot\s+more\s+than|\bupper\s+limits?\s+(?:of|on|at)(?:\s+[^\s,;.]+){0,8}?\s+(?:of|as|at|is)?)"
                    + _APPROX + r"$", re.IGNORECASE)
_LOWER = re.compile(r"(?:>|≥|≳|\\gtrsim|\\geq?|\\ga\b|\\gt\b|\bmore\s+than|\bgreater\s+than|\blarger\s+than|"
                    r"\bhigher\s+than|\blonger\s+than|\babove|\bover|\bat\s+least|\bexceed(?:s|ing|ed)?|"
                    r"\bno\s+less\s+than|\bnot\s+less\s+than|\blower\s+limits?\s+(?:of|on|at)(?:\s+[^\s,;.]+){0,8}?"
                    r"\s+(?:of|as|at|is)?)" + _APPROX + r"$", re.IGNORECASE)
# an upper limit as a measurement reports it (`A_B < 0.35`, `an upper limit of 6.8%`), not an extent (`up to 11 days`)
_LIMIT = re.compile(r"(?:<|≤|≲|\\lesssim|\\leq?|\\la\b|\\lt\b|\bupper\s+limits?\s+(?:of|on|at)(?:\s+[^\s,;.]+){0,8}?"
                    r"\s+(?:of|as|at|is)?)" + _APPROX + r"$", re.IGNORECASE)
_AFTER_UPPER = re.compile(r"^[^\s,;.]*\s+or\s+(?:less|fewer|lower|smaller|below)\b", re.IGNORECASE)
_AFTER_LOWER = re.compile(r"^[^\s,;.]*\s+(?:or|and)\s+(?:more|greater|higher|larger|above|over)\b", re.IGNORECASE)
_HEDGED = re.compile(r"\b(?:limit|limits|bound|bounds|threshold|cut|cutoff|constrain\w*|\w+er\s+than|between|beyond|"
                     r"range|within|less|more|below|above|under|over|most|least|up\s+to|exceed\w*)\b|[<>≤≥≲≳]",
                     re.IGNORECASE)
_MORE = re.compile(r"\b(?:beyond|exceed\w*|more\s+than|above|over|greater\s+than|longer\s+than|larger\s+than|"
                   r"higher\s+than)\b", re.IGNORECASE)
_FEWER = re.compile(r"\b(?:below|under|less\s+than|fewer\s+than|shorter\s+than|smaller\s+than|lower\s+than)\b",
                    re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|none|cannot|without)\b|n't\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\\[$(])")
_BREAK = re.compile(r"[,;:()]|\s(?:and|but|while|whereas|although|though|so|than|which)\s")


def direction(text: str, start: int, end: int) -> str | None:
    """`upper`, `lower` or None: how the text bounds the number at `start:end`."""
    before, after = text[max(0, start - 80):start], text[end:end + 30]
    if _UPPER.search(before) or _AFTER_UPPER.match(after):
        return "upper"
    if _LOWER.search(before) or _AFTER_LOWER.match(after):
        return "lower"
    return None


@lru_cache(maxsize=512)
def _sentences(passage: str) -> tuple[tuple[int, int], ...]:
    cuts = [0, *(m.end() for m in _SENTENCE.finditer(passage)), len(passage)]
    return tuple(zip(cuts, cuts[1:]))


def _negated(text: str) -> bool:
    return len(_NEGATION.findall(text)) % 2 == 1


def bound_reason(claim: Claim, passage: str, stated: Stated) -> str | None:
    """Why the passage's value is not the claim's statement (a bound turned around, a limit told as a value, a
    negation added or dropped); None when it may be."""
    for own in claim.quantities:
        if own.high is not None:
            continue
        found = [q for q in matching(own, stated) if q.high is None]
        if not found:
            continue
        why = _bound(own, claim.text, found, passage)
        if why:
            return why
    text = _without_cites(claim)
    for own in claim.quantities:
        if _turned(text, own, [direction(passage, q.start, q.end) for q in matching(own, stated)]):
            continue  # `cannot detect periods beyond two years` is the passage's `upper limit of two years`
        # both the value's clause and its sentence: a negation elsewhere in the sentence (`for Q ≤ 1/2, the oscillator
        # has no oscillatory behavior`) may be the claim's own, told in another order
        negated = _negated(_clause(text, own.start, own.end)), _negated(text)
        places = [(_negated(_clause(passage, q.start, q.end)), _negated(passage[a:b]))
                  for q in matching(own, stated) for a, b in [_sentence_at(passage, q.start)]]
        if places and all(place[0] != negated[0] and place[1] != negated[1] for place in places):
            return ("the passage says the opposite: it negates what the claim states" if not negated[0]
                    else "the passage says the opposite: the claim negates what it states")
    return None


def _bound(own: Quantity, text: str, found: list[Quantity], passage: str) -> str | None:
    mine = direction(text, own.start, own.end)
    theirs = {direction(passage, q.start, q.end) for q in found}
    if len(theirs) != 1:
        return None
    (their,) = theirs
    if their is None or mine == their:
        return None
    if mine is not None:
        return f"{own.text} is an {their} bound in the passage, not an {mine} one"
    limits = all(_LIMIT.search(passage[max(0, q.start - 80):q.start]) for q in found)
    if their == "upper" and limits and not _HEDGED.search(text[max(0, own.start - 60):own.end + 30]):
        return f"{own.text} is an upper limit in the passage, not a measured value"
    return None


def _turned(text: str, own: Quantity, theirs: list[str | None]) -> bool:
    """Whether a negated comparison of the claim is the passage's bound (`cannot ... beyond 2 years`: at most 2)."""
    near = text[max(0, own.start - 60):own.start]
    if not _negated(_clause(text, own.start, own.end)) or not theirs:
        return False
    turned = "upper" if _MORE.search(near) else "lower" if _FEWER.search(near) else None
    return turned is not None and all(t == turned for t in theirs)


def _sentence_at(passage: str, position: int) -> tuple[int, int]:
    return next(((a, b) for a, b in _sentences(passage) if a <= position < b), (0, len(passage)))


def _clause(text: str, start: int, end: int) -> str:
    """The clause around `start:end`: from the last break before it to the next one after it."""
    a, b = _sentence_at(text, start)
    breaks = [m for m in _BREAK.finditer(text, a, b)]
    first = max((m.end() for m in breaks if m.end() <= start), default=a)
    last = min((m.start() for m in breaks if m.start() >= end), default=b)
    return text[first:last]


def _without_cites(claim: Claim) -> str:
    text = claim.text
    for a, b in sorted(claim.spans, reverse=True):
        text = text[:a] + " " + text[b:]
    return text
