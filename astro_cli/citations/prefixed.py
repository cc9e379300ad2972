"""Does the claim negate a word of its passage by a prefix? (issue 43, stop 54 follow-up)

`The filament remains unresolved` where the passage says `it is resolved`; `the fit is inconsistent with` where it
says `consistent with`. A word with a negating prefix (`un-`, `dis-`, `non-`; `in-`/`im-`/`ir-`/`il-` only before
an adjective's ending: `-ent`, `-ant`, `-ible`, `-able`, `-ive`, `-ete`, `-ect`, `-ular`) is the negation of
the same word without it. In the passage sentence the claim rests on (sharing at least 40% of its words), one side
writes the prefixed word and the other the bare one, and neither writes both: the claim is unsupported.
Not compared: words of four letters or fewer after the prefix (`disk`, `unit`), negations by meaning alone
(`vanished` for `survive`), sentences with another negation word (left to negated.py).
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.aligned import aligned, claim_text
from astro_cli.citations.claims import Claim

LEAST_SHARE = 0.4
_PREFIXED = re.compile(r"(?:un|dis|non-?)(?P<a>[a-z]{5,})|(?:in|im|ir|il)(?P<b>[a-z]{3,}(?:ent|ant|ible|able|ive|ete|ect|"
                       r"ular))(?:ly|s)?$")
_ENDINGS = r"(?:ent|ant|ible|able|ive|ete|ect|ular)"
_CANDIDATE = re.compile(rf"\b(?:(?:un|dis|non-?)[a-z]{{5,}}|(?:in|im|ir|il)[a-z]{{3,}}{_ENDINGS}(?:ly|s)?\b)")
_STARTS = ("un", "dis", "non", "in", "im", "ir", "il")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z-]*")
_OTHER_NEGATION = re.compile(r"\b(?:not|no|never|without|cannot|nor|neither)\b|n't\b", re.IGNORECASE)


@lru_cache(maxsize=8192)
def _tokens(text: str) -> frozenset[str]:
    return frozenset(t.lower() for t in _TOKEN.findall(text))


@lru_cache(maxsize=512)
def _bare_stems(text: str) -> frozenset[str]:
    """The stems a text's prefixed words negate (cached per passage: a cheap look before any alignment)."""
    return frozenset(_stem(b) for t in _tokens(text) if (b := _bare(t)) is not None)


@lru_cache(maxsize=512)
def _all_stems(passage: str) -> frozenset[str]:
    return frozenset(_stem(t) for t in _tokens(passage))


@lru_cache(maxsize=4096)
def _said(text: str) -> frozenset[str]:
    """The stems a claim's prefixed words negate (once per claim: it is compared with each passage it cites)."""
    return frozenset(_stem(bare) for t in _CANDIDATE.findall(text.lower()) if (bare := _bare(t)) is not None)


@lru_cache(maxsize=4096)
def _claim_stems(text: str) -> frozenset[str]:
    return frozenset(_stem(t) for t in _tokens(text))


def _bare(token: str) -> str | None:
    if not token.startswith(_STARTS):
        return None  # most words: no regex
    m = _PREFIXED.fullmatch(token)
    return None if m is None else (m.group("a") or m.group("b"))


@lru_cache(maxsize=16384)
def _stem(word: str) -> str:
    """A word without its inflection, so `resolved` meets `resolve`, `agrees` meets `agree`."""
    return re.sub(r"(?:ed|es|s|d|ly)$", "", word) if len(word) > 5 else word


def _turned(mine: frozenset[str], theirs: frozenset[str]) -> tuple[str, str] | None:
    """(the prefixed word of `mine`, the bare word of `theirs`) when `mine` negates by a prefix what `theirs` states."""
    their_stems = {_stem(t): t for t in theirs}
    my_stems = {_stem(t) for t in mine}
    for token in sorted(mine):
        bare = _bare(token)
        if bare is None:
            continue
        stem = _stem(bare)
        if stem in their_stems and stem not in my_stems and not any(_stem(t) == _stem(token) for t in theirs):
            return token, their_stems[stem]
    return None


def prefix_reason(claim: Claim, passage: str) -> str | None:
    """Why the claim's word and the passage's are each other's negation by a prefix; None when they are not."""
    text = claim_text(claim)
    negated = _bare_stems(passage)
    lower = text.lower()
    if _said(text).isdisjoint(_all_stems(passage)) and (
            not any(stem in lower for stem in negated) or negated.isdisjoint(_claim_stems(text))):
        return None  # no prefixed word on either side that the other states bare (most claims): cheap looks
    found = next(iter(aligned(text, passage)), None)
    if found is None or found.share < LEAST_SHARE:
        return None
    if _OTHER_NEGATION.search(text) or _OTHER_NEGATION.search(found.sentence):
        return None
    mine, theirs = _tokens(text), _tokens(found.sentence)
    turned = _turned(mine, theirs)
    if turned is not None:
        return f"the passage says {turned[1]}, not {turned[0]}"
    turned = _turned(theirs, mine)
    if turned is not None:
        return f"the passage says {turned[0]}, not {turned[1]}"
    return None
