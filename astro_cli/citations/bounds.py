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
  `neither`, `nor`, `none`, `cannot`, `without`, `n't`, and the words that negate by their meaning: `absent`, `lacks`,
  `devoid`, `unable`, `rarely`, `seldom`, `free of`, `cloud-free`, `fails to`) as the claim's are, so a paraphrase
  (`no clouds` for `cloud free`) keeps its parity; a claim that bounds its value is not
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
_NOT = r"(?<!\bno\s)(?<!\bnot\s)"  # `no smaller than` bounds from below, `no larger than` from above
_UPPER = re.compile(r"(?:<|≤|≲|\\lesssim|\\leq?|\\la\b|\\lt\b|" + _NOT + r"\b(?:less|fewer|smaller|lower|shorter)\s+than|"
                    r"\bbelow|\bunder|\bat\s+most|\bup\s+to|\bno(?:t)?\s+(?:more|larger|greater|higher|longer|bigger)\s+than|"
                    r"\bupper\s+limits?\s+(?:of|on|at)(?:\s+[^\s,;.]+){0,8}?\s+(?:of|as|at|is)?)"
                    + _APPROX + r"$", re.IGNORECASE)
_LOWER = re.compile(r"(?:>|≥|≳|\\gtrsim|\\geq?|\\ga\b|\\gt\b|" + _NOT + r"\b(?:more|greater|larger|higher|longer)\s+than|"
                    r"\babove|\bover|\bat\s+least|\bexceed(?:s|ing|ed)?|"
                    r"\bno(?:t)?\s+(?:less|fewer|smaller|lower|shorter)\s+than|\blower\s+limits?\s+(?:of|on|at)(?:\s+[^\s,;.]+){0,8}?"
                    r"\s+(?:of|as|at|is)?)" + _APPROX + r"$", re.IGNORECASE)
# an upper limit as a measurement reports it (`A_B < 0.35`, `an upper limit of 6.8%`), not an extent (`up to 11 days`)
_LIMIT = re.compile(r"(?:<|≤|≲|\\lesssim|\\leq?|\\la\b|\\lt\b|\bupper\s+limits?\s+(?:of|on|at)(?:\s+[^\s,;.]+){0,8}?"
                    r"\s+(?:of|as|at|is)?)" + _APPROX + r"$", re.IGNORECASE)
# `50 or fewer`, and with the counted noun between (`about 50 systems or fewer`, stop 54 43c)
_AFTER_UPPER = re.compile(r"^[^\s,;.]*(?:\s+[A-Za-z-]+)?\s+or\s+(?:less|fewer|lower|smaller|below)\b", re.IGNORECASE)
_AFTER_LOWER = re.compile(r"^[^\s,;.]*(?:\s+[A-Za-z-]+)?\s+(?:or|and)\s+(?:more|greater|higher|larger|above|over)\b",
                          re.IGNORECASE)
_HEDGED = re.compile(r"\b(?:limit|limits|bound|bounds|threshold|cut|cutoff|constrain\w*|\w+er\s+than|between|beyond|"
                     r"range|within|less|more|below|above|under|over|most|least|up\s+to|exceed\w*)\b|[<>≤≥≲≳]",
                     re.IGNORECASE)
_MORE = re.compile(r"\b(?:beyond|exceed\w*|more\s+than|above|over|greater\s+than|longer\s+than|larger\s+than|"
                   r"higher\s+than)\b", re.IGNORECASE)
_FEWER = re.compile(r"\b(?:below|under|less\s+than|fewer\s+than|shorter\s+than|smaller\s+than|lower\s+than)\b",
                    re.IGNORECASE)
# the lookahead: what a negation can start with (case folded as the pattern is), so most characters fail at once
_NEGATION = re.compile(r"(?=[ncwaldursf\s-])(?:\b(?:not|no|never|neither|nor|none|cannot|without|absent|absence|lack(?:s|ed|ing)?|devoid|"
                       r"unable|rarely|seldom|fail(?:s|ed)?\s+to)\b|n't\b|(?<=\w)-free\b|"
                       r"\s+free(?=\s*(?:[,.;:)]|$|of\b|and\b)))",
                       re.IGNORECASE)
# `without X`, `and no X`, `with no X`: a phrase that qualifies a thing (not `have no clouds`, `be cloud free`)
_PRIVATIVE = re.compile(r".*(?:\bwithout|\b(?:and|with|or)\s+no)$", re.IGNORECASE | re.DOTALL)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\\[$(])")
_BREAK = re.compile(r"[,;:()]|\s(?:and|but|while|whereas|although|though|so|than|which)\s")


def direction(text: str, start: int, end: int) -> str | None:
    """`upper`, `lower` or None: how the text bounds the number at `start:end`."""
    before, after = text[max(0, start - 60):start], text[end:end + 30]
    if _UPPER.search(before) or _AFTER_UPPER.match(after):
        return "upper"
    if _LOWER.search(before) or _AFTER_LOWER.match(after):
        return "lower"
    return None


@lru_cache(maxsize=512)
def _sentences(passage: str) -> tuple[tuple[int, int], ...]:
    cuts = [0, *(m.end() for m in _SENTENCE.finditer(passage)), len(passage)]
    return tuple(zip(cuts, cuts[1:]))


@lru_cache(maxsize=4096)
def _negates(text: str) -> bool:
    """Whether a claim writes a negation anywhere (asked once per claim, not once per quantity)."""
    return _NEGATION.search(text) is not None


def _negated(text: str, span: tuple[int, int], value: int) -> bool:
    """Whether `text[span]` negates the value at `value`. A privative phrase after the value (`25 observations
    without a grating`, `... and no grating`) qualifies a thing named after it, not the value's statement; a verb's
    negation (`have no clouds`, `be cloud free`, `not`) does negate it."""
    found = [m for m in _NEGATION.finditer(text, *span)
             if m.start() < value or not _PRIVATIVE.match(text, max(0, m.start() - 6), m.end())]
    return len(found) % 2 == 1


@lru_cache(maxsize=8192)
def _marks(passage: str, start: int, end: int) -> tuple[str | None, bool, bool, bool]:
    """A passage value's direction, whether its clause and its sentence are negated, and whether it is an upper
    limit as measurements report one; once per value of a passage (a session checks many claims against it)."""
    limit = _LIMIT.search(passage[max(0, start - 80):start]) is not None
    return (direction(passage, start, end), _negated(passage, _clause_span(passage, start, end), start),
            _negated(passage, _sentence_at(passage, start), start), limit)


def bound_reason(claim: Claim, passage: str, stated: Stated) -> str | None:
    """Why the passage's value is not the claim's statement (a bound turned around, a limit told as a value, a
    negation added or dropped); None when it may be."""
    text = ""
    for own in claim.quantities:
        found = matching(own, stated)
        if not found:
            continue
        marks = [_marks(passage, q.start, q.end) for q in found]
        singles = [m for q, m in zip(found, marks) if q.high is None]
        if own.high is None and singles:
            why = _bound(own, claim.text, singles)
            if why:
                return why
        if not any(m[2] for m in marks) and not _negates(claim.text):
            continue  # no negation on either side (most claims): nothing more to compare
        text = text or _without_cites(claim)
        negated = (_negated(text, _clause_span(text, own.start, own.end), own.start),
                   _negated(text, (0, len(text)), own.start))
        if negated[0] and _turned(text, own, [m[0] for m in marks]):
            continue  # `cannot detect periods beyond two years` is the passage's `upper limit of two years`
        # both the value's clause and its sentence: a negation elsewhere in the sentence (`for Q ≤ 1/2, the oscillator
        # has no oscillatory behavior`) may be the claim's own, told in another order
        if all(m[1] != negated[0] and m[2] != negated[1] for m in marks):
            return ("the passage says the opposite: it negates what the claim states" if not negated[0]
                    else "the passage says the opposite: the claim negates what it states")
    return None


def _bound(own: Quantity, text: str, marks: list[tuple[str | None, bool, bool, bool]]) -> str | None:
    theirs = {m[0] for m in marks}
    if len(theirs) != 1 or None in theirs:
        return None
    (their,) = theirs
    mine = direction(text, own.start, own.end)
    if mine == their:
        return None
    if mine is not None:
        return f"{own.text} is an {their} bound in the passage, not an {mine} one"
    if their == "upper" and all(m[3] for m in marks) and not _HEDGED.search(text[max(0, own.start - 60):own.end + 30]):
        return f"{own.text} is an upper limit in the passage, not a measured value"
    return None


def _turned(text: str, own: Quantity, theirs: list[str | None]) -> bool:
    """Whether a negated comparison of the claim (its clause is negated) is the passage's bound (`cannot ... beyond 2 years`: at most 2)."""
    near = text[max(0, own.start - 60):own.start]
    if not theirs:
        return False
    turned = "upper" if _MORE.search(near) else "lower" if _FEWER.search(near) else None
    return turned is not None and all(t == turned for t in theirs)


def _sentence_at(passage: str, position: int) -> tuple[int, int]:
    return next(((a, b) for a, b in _sentences(passage) if a <= position < b), (0, len(passage)))


def _clause_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The clause around `start:end`: from the last break before it to the next one after it."""
    a, b = _sentence_at(text, start)
    breaks = [m for m in _BREAK.finditer(text, a, b)]
    first = max((m.end() for m in breaks if m.end() <= start), default=a)
    last = min((m.start() for m in breaks if m.start() >= end), default=b)
    return first, last


def _without_cites(claim: Claim) -> str:
    """The claim with its citations and handles blanked, each character kept in its place."""
    text = claim.text
    for a, b in claim.spans:
        text = text[:a] + " " * (b - a) + text[b:]
    return text
