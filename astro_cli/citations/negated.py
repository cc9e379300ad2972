"""Does the claim negate what its passage states, or state what it negates? (issue 43, stop 54: negation, detection)

`The GALEX NUV flux correlates with the flare rate` where the passage finds `no correlation`; `significantly lower`
where it says `not statistically significant`; `PZFlow fails the outlier requirement` where `PZFlow meets` it.
A negation (`not`, `no`, `never`, `without`, `neither`, `nor`, `cannot`, `n't`, `fails (to)`, `unable to`, `lack of`,
`absence of`, `free of`, `cloud-free`, `non-`/`un-` detections) covers the words after it to the clause's end
(at most six). A word of the claim is turned when the passage sentence negates it, the claim does not and the
passage states it plainly nowhere (or the reverse). The claim is unsupported when the negated clause's head (its
first word, past adverbs) is such a word and the sentence shares at least 30% of the claim's words; undecided
(reported unverified) when it shares 25-30% (the alignment is weak). A negation about `other` things (`we do not
recover the three other candidates`) is about another set. A claim that negates the same words as the passage
(`no clouds` for `cloud free`) keeps its parity.
A claim that something was detected, where the sentence it rests on (30% of its words) gives only an upper limit
and no detection, is unsupported: `the passage gives only an upper limit, not a detection`.
A negation over a comparison (`cannot detect periods beyond two years`, `no star lies south of -7°`) is a bound, left
to bounds.py, where the sentence it rests on states one (`limit`, `up to`, `below`, `exceeding`, `<`...) or shares
under 30% of its words; where it states none, it is a negation of the words before the comparison (`PZFlow fails the
outlier requirement above redshift 1.5` against `PZFlow meets the outlier requirements for all redshifts`). A number
ends a negation's words.
Not compared: double negations, `not only`, a bound (`no more than`: directions.py), negations by meaning alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from astro_cli.citations.aligned import Aligned, aligned, claim_text, plain, sentences, shares, words
from astro_cli.citations.claims import Claim

STRONG_SHARE = 0.3  # a sentence sharing this share of the claim's words is the one it rests on
WEAK_SHARE = 0.25
SCOPE = 6  # content words a negation covers

_NEGATION = re.compile(
    r"\b(?:not|no|never|without|neither|nor|cannot|none\s+of|fail(?:s|ed|ing)?\s+(?:to|the|its|their)|unable\s+to|"
    r"lack(?:s|ed|ing)?(?:\s+of)?|absence\s+of|absent|free\s+of)\b|n't\b|"
    r"\bnon-?(?=detect)|\bun(?=detect)", re.IGNORECASE)
_NOT_NEGATION = re.compile(r"\s*(?:only|just|necessarily|(?:more|less|fewer|greater|larger|smaller|higher|lower|"
                           r"later|earlier)\s+than|doubt)\b", re.IGNORECASE)
_END = re.compile(r"[,;:.!?()]|\s(?:but|while|whereas|although|though|which|because|since)\s", re.IGNORECASE)
_ADVERB = re.compile(r"ly$")
_RAW = re.compile(r"[^\W_][\w'-]*")
_BOUNDED = re.compile(r"\b(?:beyond|above|below|over|under|exceed\w*|\w+er\s+than|more|less|fewer|"
                      r"south|north|east|west|outside|inside|within)\b", re.IGNORECASE)
_FREE = re.compile(r"\b([^\W\d_]{3,})[\s-]free\b", re.IGNORECASE)
_DETECTED = re.compile(r"\bdetect(?:s|ed|ion|ions)?\b", re.IGNORECASE)
_LIMIT = re.compile(r"\bupper\s+limits?\b|\blimit(?:s|ed)?\s+(?:on|of|to)\b", re.IGNORECASE)
_STATES_BOUND = re.compile(r"\b(?:limits?|at\s+(?:most|least)|up\s+to|beyond|below|above|under|over|within|between|"
                           r"maximum|minimum|less|more|fewer|exceed\w*)\b|[<>≤≥≲≳]", re.IGNORECASE)
_NUMBER = re.compile(r"[-+−]?\d")  # a number ends a negation's words (`without uncertainties were given 0.015 dex`)
_NEGATORS = frozenset("""not no never without neither nor cannot none fail fails failed failing unable lack lacks
    lacked lacking absence absent""".split())
_LOWER_WORD = re.compile(r"[a-z]+")
_TRYING = re.compile(r"\b(?:attempt\w*|tr(?:y|ies|ied)|manag\w*|seek\w*|sought|aim\w*|intend\w*|been\s+able)\s+to\b",
                     re.IGNORECASE)
_OTHERS = re.compile(r"\b(?:other|others|rest|remaining)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Scopes:
    """The stems a text negates (with each negation's head) and the stems it states plainly."""

    negated: frozenset[str]
    heads: frozenset[str]
    plain: frozenset[str]
    bounded: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())  # negations of a bound: words, heads

    @cached_property
    def unbounded(self) -> Scopes:
        """The negations of bounds taken as plain negations (`fails the requirement above redshift 1.5`)."""
        words_, heads = self.bounded
        return Scopes(self.negated | words_, self.heads | heads, self.plain - words_)


def _may_negate(text: str) -> bool:
    """A cheap look for a negation's words before the regex (most sentences have none)."""
    low = text.lower()
    return "n't" in low or "detect" in low or "free" in low or not _NEGATORS.isdisjoint(_LOWER_WORD.findall(low))


@lru_cache(maxsize=8192)
def scopes(text: str) -> Scopes:
    """What a text negates: the words after each negation to the clause's end (at most six)."""
    if not _may_negate(text):
        return Scopes(frozenset(), frozenset(), frozenset(words(text)))
    negated: list[str] = []
    heads: list[str] = []
    bounded: tuple[list[str], list[str]] = ([], [])
    covered: list[tuple[int, int]] = []
    for m in _NEGATION.finditer(text):
        if _NOT_NEGATION.match(text, m.end()):
            continue
        end = (found.start() + m.end()) if (found := _END.search(text[m.end():])) else len(text)
        end = (number.start() + m.end()) if (number := _NUMBER.search(text[m.end():end])) else end
        scope = words(text[m.end():end])[:SCOPE]
        if _OTHERS.search(text[m.end():end]):
            continue  # `we do not recover the three other candidates`: about another set than the claim's
        # `have not attempted to include`: the head is what was not done, past a verb of trying
        head = next((w for w in _RAW.findall(_TRYING.sub(" ", text[m.end():end]))
                     if not _ADVERB.search(w) and words(w)), None)
        cut = _BOUNDED.search(text, m.end(), end)
        if cut is not None:
            # `cannot detect periods beyond two years`, `no star lies south of -7°`: a bound of a number (bounds.py),
            # unless the passage states no bound there (negation_verdict)
            bounded[0].extend(words(text[m.end():cut.start()]))
            bounded[1].extend(words(head)[:1] if head and text.find(head, m.end()) < cut.start() else [])
            continue
        covered.append((m.start(), end))
        negated += scope
        if head:
            heads.append(words(head)[0])
    for m in _FREE.finditer(text):  # `cloud free`, `dust-free`: the word before is negated
        covered.append((m.start(), m.end()))
        negated += words(m.group(1))
        heads += words(m.group(1))[:1]
    rest = text
    for a, b in sorted(covered, reverse=True):
        rest = rest[:a] + " " + rest[b:]
    plain_words = set(words(rest))
    return Scopes(frozenset(negated), frozenset(heads), frozenset(plain_words),
                  (frozenset(bounded[0]), frozenset(bounded[1])))


def negation_verdict(claim: Claim, passage: str) -> tuple[str, str] | None:
    """(`unsupported` or `undecided`, why) when the claim turns a negation of the passage around; None otherwise."""
    text = claim_text(claim)
    negates, detected = _flags(text)
    if not negates and not detected and not _negates(passage):
        return None
    mine = scopes(text)
    if detected:
        limit = next((f for f in aligned(text, passage) if f.share >= STRONG_SHARE and _LIMIT.search(f.sentence)
                      and not _DETECTED.search(f.sentence)), None)
        if limit is not None:
            return "unsupported", "the passage gives only an upper limit, not a detection"
    weak: str | None = None
    for found in aligned(text, passage):
        if found.share < WEAK_SHARE:
            break
        theirs = scopes(found.sentence)
        if not (theirs.negated or mine.negated or mine.bounded[0] or theirs.bounded[0]):
            continue
        own = mine
        if found.share >= STRONG_SHARE and not _states_bound(found.sentence):
            own, theirs = mine.unbounded, theirs.unbounded
        if not theirs.negated and not own.negated:
            continue
        why = _turned(own, theirs, found, _whole(passage))
        if why is None:
            continue
        if found.share >= STRONG_SHARE:
            return "unsupported", why[1]
        weak = weak or why[1]
    return ("undecided", weak) if weak else None


def _only(stems: frozenset[str], inside: frozenset[str], outside: frozenset[str]) -> set[str]:
    """The stems that stand in `inside` and nowhere in `outside`."""
    return shares(stems, inside) - shares(stems, outside)


@lru_cache(maxsize=8192)
def _flags(text: str) -> tuple[bool, bool]:
    """Whether a claim negates anything, and whether it claims a detection (and no limit, no negation)."""
    negates = _may_negate(text) and _NEGATION.search(text) is not None
    return negates, not negates and _DETECTED.search(text) is not None and not _LIMIT.search(text)


@lru_cache(maxsize=8192)
def _states_bound(sentence: str) -> bool:
    return _STATES_BOUND.search(sentence) is not None


@lru_cache(maxsize=512)
def _negates(passage: str) -> bool:
    return _may_negate(passage) and _NEGATION.search(plain(passage)) is not None


@lru_cache(maxsize=256)
def _whole(passage: str) -> Scopes:
    """What the whole passage negates and states plainly (a word it also states plainly elsewhere is not turned)."""
    each = [scopes(s) for s in sentences(passage)]
    return Scopes(frozenset().union(*(e.negated for e in each)), frozenset(),
                  frozenset().union(*(e.plain for e in each)))


def _turned(mine: Scopes, theirs: Scopes, found: Aligned, whole: Scopes) -> tuple[bool, str] | None:
    """(strong, why) when one side negates the other's plain words."""
    own_plain = mine.plain - mine.negated
    dropped = _only(frozenset(own_plain), theirs.negated, whole.plain)  # the passage negates, the claim does not
    if shares(set(dropped), set(theirs.heads)):
        return True, f"the passage negates it: {_quote(found.sentence, dropped)}"
    added = _only(mine.negated, theirs.plain, whole.negated)  # the claim negates, the passage does not
    if shares(set(added), set(mine.heads)):
        return True, "the claim negates what the passage states"
    return None


def _quote(sentence: str, stems: set[str]) -> str:
    """The negation of the passage that covers the claim's words, as the passage writes it (short)."""
    for m in _NEGATION.finditer(sentence):
        tail = sentence[m.end():m.end() + 60]
        if shares(stems, set(words(tail))):
            said = (m.group(0) + tail).split(",")[0].split(".")[0].strip()
            return f"“{' '.join(said.split()[:8])}”"
    return "“" + " ".join(sentence.split()[:10]) + "”"

