"""Does the claim turn the passage's comparison around? (issue 43, stop 54: direction words)

`stars with R_0 < 0.13 have steeper FFD slopes` where the passage writes `shallower`; `above redshift 1` where it
writes `z < 1`; `taken before MJD 56715` where it writes `MJD > 56715`. Each direction word has an axis and a sign
(a small table of antonym pairs: more/less, higher/lower, larger/smaller, above/below, exceeds/falls short,
increases/decreases, brighter/fainter, earlier/later, before/after, steeper/shallower, at least/at most, `>`/`<`,
enhanced/suppressed, over-/underestimated, positive/negative, longer/shorter, closer/farther, heavier/lighter,
redder/bluer, metal-rich/metal-poor, faster/slower, hotter/cooler, older/younger, stronger/weaker, wider/narrower).
Each clause of the claim with such a word is set beside the clause of its best-matching passage sentence that
shares most of its words; when an odd number of their common axes are turned (`larger R_0 ... shallower` against
`smaller R_0 ... steeper` turns two: the same statement), the claim is unsupported, with the two words as the reason.
A comparison told the other way round (`B is fainter than A` for `A is brighter than B`: the two sides of `than`
swap places; a bound on a side, `R_0 ≥ 0.13`, tells them apart first) is the same statement. A passage clause fits
a claim clause by shared words, a shared figure counting three. On magnitudes `fainter` is a larger number (`fainter than
8` is `> 8`); `before`/`after` a number is `<`/`>`.
`more`/`less` grade the direction word they stand before (`more metal-poor` is lower metallicity, not more of an
amount). Not compared: a sentence sharing under 40% of the claim's words, words of other meaning (`decline an offer`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from astro_cli.citations.aligned import aligned, claim_text, clauses, plain, shares, words, wordset
from astro_cli.citations.claims import Claim

LEAST_SHARE = 0.4  # the passage sentence must hold this share of the claim's words to be the one it rests on

_NUMBER_NEXT = r"(?=\s+(?:[A-Za-z]+\s+)?[~≈]?\s*[-+]?\d)"
# (pattern, axis, sign); the first that matches at a place wins
_TABLE: tuple[tuple[str, str, int], ...] = (
    (r"\b(?:lighter|less\s+massive)\b", "mass", -1),
    (r"\b(?:heavier|more\s+massive)\b", "mass", 1),
    (r"\b(?:farther|more\s+distant)\b", "distance", 1),
    (r"\bno(?:t)?\s+(?:more|greater|higher|larger)\s+than\b", "amount", -1),
    (r"\bno(?:t)?\s+(?:less|fewer|lower|smaller)\s+than\b", "amount", 1),
    (r"\b(?:higher|greater|larger)\s+metallicit(?:y|ies)\b", "metals", 1),  # `metal-poor` is lower metallicity
    (r"\b(?:lower|smaller)\s+metallicit(?:y|ies)\b", "metals", -1),
    (r"\bat\s+least\b", "amount", 1),
    (r"\bat\s+most\b", "amount", -1),
    (r"\bfalls?\s+short\b|\bfell\s+short\b", "amount", -1),
    (r"\b(?:more|greater|higher|larger|bigger)\b(?!\s*-?\s*(?:order|limit|bound|resolution))", "amount", 1),
    (r"\b(?:less|fewer|lower|smaller)\b(?!\s*-?\s*(?:order|limit|bound|resolution))", "amount", -1),
    (r"\babove\b|\bexceed(?:s|ed|ing)?\b|\boutnumber(?:s|ed|ing)?\b", "amount", 1),
    (r"\bbelow\b", "amount", -1),
    (r"[>≥≳]", "amount", 1),
    (r"[<≤≲]", "amount", -1),
    (r"\bbefore" + _NUMBER_NEXT, "amount", -1),
    (r"\bafter" + _NUMBER_NEXT, "amount", 1),
    (r"\b(?:before|earlier|prior\s+to)\b", "time", -1),
    (r"\b(?:after|later)\b", "time", 1),
    (r"\b(?:increas(?:e|es|ed|ing)|ris(?:e|es|ing)|rose|grow(?:s|ing)?|grew)\b", "change", 1),
    (r"\b(?:decreas(?:e|es|ed|ing)|declin(?:e|es|ed|ing)|drop(?:s|ped|ping)?|diminish(?:es|ed|ing)?|"
     r"fall(?:s|ing)?|fell)\b", "change", -1),
    (r"\b(?:enhanc(?:e|es|ed|ing|ement)|boost(?:s|ed)?)\b", "boost", 1),
    (r"\b(?:suppress(?:es|ed|ing|ion)?|inhibit(?:s|ed|ing)?|quench(?:es|ed|ing)?)\b", "boost", -1),
    (r"\b(?:overestimat\w*|overpredict\w*)\b", "estimate", 1),
    (r"\b(?:underestimat\w*|underpredict\w*)\b", "estimate", -1),
    (r"\b(?:positive(?:ly)?|correlat(?:e|es|ed|ion|ions)\s+positively)\b", "polarity", 1),
    (r"\b(?:negative(?:ly)?|anti-?correlat\w*)\b", "polarity", -1),
    (r"\b(?:longer)\b", "length", 1),
    (r"\b(?:shorter)\b", "length", -1),
    (r"\b(?:closer|nearer)\b", "distance", -1),
    (r"\bredder\b", "colour", 1),
    (r"\bbluer\b", "colour", -1),
    (r"\bmetal-rich\b", "metals", 1),
    (r"\bmetal-poor\b", "metals", -1),
    (r"\bbrighter\b", "bright", 1),
    (r"\bfainter\b", "bright", -1),
    (r"\bsteeper\b", "slope", 1),
    (r"\b(?:shallower|flatter)\b", "slope", -1),
    (r"\b(?:faster|quicker)\b", "speed", 1),
    (r"\bslower\b", "speed", -1),
    (r"\b(?:hotter|warmer)\b", "heat", 1),
    (r"\b(?:cooler|colder)\b", "heat", -1),
    (r"\bolder\b", "age", 1),
    (r"\byounger\b", "age", -1),
    (r"\bstronger\b", "strength", 1),
    (r"\bweaker\b", "strength", -1),
    (r"\bwider\b|\bbroader\b", "width", 1),
    (r"\bnarrower\b", "width", -1),
)
_ENTRIES = tuple((re.compile(p, re.IGNORECASE), axis, sign) for p, axis, sign in _TABLE)
# where a direction word may start: a cheap scan of the words (exact words and stems), then the table at those places
_TOKEN = re.compile(r"[^\W\d_]+|[<>≤≥≲≳]")
_FIRST = frozenset("""no not at fall falls fell more less fewer greater higher larger bigger lower smaller above below before
    after earlier prior later rose grew longer shorter farther closer nearer heavier lighter redder bluer brighter
    fainter steeper shallower flatter faster quicker slower hotter warmer cooler colder older younger stronger weaker
    wider broader narrower positive positively negative negatively anti metal < > ≤ ≥ ≲ ≳""".split())
_STEMS = ("exceed", "outnumber", "increas", "ris", "grow", "decreas", "declin", "drop", "diminish", "enhanc", "boost",
          "suppress", "inhibit", "quench", "overestimat", "overpredict", "underestimat", "underpredict", "correlat",
          "anticorrelat")
_MAGNITUDE = re.compile(r"\bmag(?:nitudes?|s)?\b|\b[A-Za-z]_?mag\b", re.IGNORECASE)


@dataclass(frozen=True)
class Mark:
    """One direction word: where it stands, its axis and sign, and the word as written."""

    start: int
    axis: str
    sign: int
    word: str


@lru_cache(maxsize=256)
def _entries(start: str) -> tuple[tuple[re.Pattern[str], str, int], ...]:
    """The table's entries that can match a word beginning so (their pattern writes those letters), in order."""
    return tuple(e for e in _ENTRIES if start in e[0].pattern.lower())


@lru_cache(maxsize=8192)
def marks(text: str) -> tuple[Mark, ...]:
    """The direction words of a text, in order; `brighter`/`fainter` of magnitudes as numbers (fainter is larger)."""
    out = []
    magnitudes = _MAGNITUDE.search(text) is not None
    end = 0
    for token in _TOKEN.finditer(text):
        word = token.group(0).lower()
        if token.start() < end or (word not in _FIRST and not word.startswith(_STEMS)):
            continue
        for pattern, axis, sign in _entries(word[:2]):
            m = pattern.match(text, token.start())
            if m is None:
                continue
            if axis == "bright" and magnitudes:
                axis, sign = "amount", -sign
            out.append(Mark(m.start(), axis, sign, m.group(0)))
            end = m.end()
            break
    return _graded(text, out)


def _graded(text: str, found: list[Mark]) -> tuple[Mark, ...]:
    """`more`/`less` before a direction word of another axis grade that word, not an amount: `more metal-poor` is
    metal-poor (lower metallicity), `less metal-poor` is metal-rich, `more massive` is heavier."""
    out: list[Mark] = []
    for mark in found:
        last = out[-1] if out else None
        if (last is not None and last.axis == "amount" and last.word.lower() in ("more", "less")
                and mark.axis != "amount" and not text[last.start + len(last.word):mark.start].strip()):
            out[-1] = Mark(last.start, mark.axis, mark.sign * last.sign, text[last.start:mark.start + len(mark.word)])
            continue
        out.append(mark)
    return tuple(out)


def direction_reason(claim: Claim, passage: str) -> str | None:
    """Why the passage states the claim's comparison the other way round; None when it does not."""
    text = claim_text(claim)
    if not marks(text) or not marks(plain(passage)):
        return None
    ignore = _ignored(text)
    # the sentence it rests on by its words other than the direction words (`steeper` must not align with `steeper`)
    count = len(set(words(text)) - ignore) or 1
    found = max(aligned(text, passage), key=lambda a: len(a.shared - ignore), default=None)
    if found is None or len(found.shared - ignore) / count < LEAST_SHARE:
        return None
    sentence = found.sentence
    if not marks(sentence):
        return None
    theirs = clauses(sentence)
    for clause in clauses(text):
        mine = marks(clause)
        if not mine:
            continue
        own = wordset(clause) - ignore
        best = max(theirs, key=lambda c: _fit(own, c))
        turned = _turned(mine, marks(best), clause, best)
        if turned is not None:
            return f"the passage says {turned[1]}, not {turned[0]}"
    return None


def _fit(own: frozenset[str], clause: str) -> int:
    """How well a passage clause fits a claim clause: shared words, a shared figure counting three (`80%` tells
    `80% of flares with A < 3%` from `93% of flares with A ≥ 3%` where both share `flares` and `3`)."""
    common = shares(own, wordset(clause))
    return len(common) + 2 * sum(1 for w in common if w[0].isdigit())


@lru_cache(maxsize=4096)
def _ignored(text: str) -> frozenset[str]:
    """The direction words themselves: not what aligns a claim with a sentence (`steeper` with `shallower`)."""
    return frozenset(words(" ".join(m.word for m in marks(text))))


def _signs(found: tuple[Mark, ...], axis: str) -> tuple[int, ...]:
    return tuple(m.sign for m in found if m.axis == axis)


def _turned(mine: tuple[Mark, ...], theirs: tuple[Mark, ...], clause: str, their_clause: str) -> tuple[str, str] | None:
    """(the claim's word, the passage's) when an odd number of the common axes are turned around, else None."""
    turned, kept = [], 0
    for axis in dict.fromkeys(m.axis for m in mine):
        a, b = _signs(mine, axis), _signs(theirs, axis)
        if not b:
            continue
        if a == b:
            kept += 1
        elif a == tuple(-s for s in b):
            turned.append(axis)
    if len(turned) % 2 == 0:
        return None
    axis = turned[0]
    own = next(m for m in mine if m.axis == axis)
    other = next(m for m in theirs if m.axis == axis)
    if _swapped(clause, own, their_clause, other):
        return None
    return own.word.strip(), other.word.strip()


def _swapped(clause: str, own: Mark, their_clause: str, other: Mark) -> bool:
    """Whether the two sides of a comparison with `than` changed places (`B fainter than A` for `A brighter than
    B`): the claim's side after `than` fits the passage's side before it better than the passage's side after it.
    A bound or value on a side (`R_0 ≥ 0.13`) tells the sides apart first; the words only where none does."""
    mine, theirs = _sides(clause, own), _sides(their_clause, other)
    if mine is None or theirs is None:
        return False
    for index in (1, 0):  # bounds first, then words
        (before, after), (their_before, their_after) = mine[index], theirs[index]
        if (before or after) and (their_before or their_after):
            straight = len(before & their_before) + len(after & their_after)
            crossed = len(before & their_after) + len(after & their_before)
            if straight != crossed:
                return crossed > straight
    return False


_THAN = re.compile(r"\bthan\b", re.IGNORECASE)
_BOUND = re.compile(r"([<>≤≥≲≳])\s*([-+]?\d[\d.]*)")


def _sides(clause: str, mark: Mark) -> tuple[tuple[frozenset[str], frozenset[str]], ...] | None:
    """The words and the bounds of a comparison's two sides, each without what both sides share; None without `than`."""
    than = _THAN.search(clause, mark.start + len(mark.word))
    if than is None:
        return None
    before, after = clause[:mark.start] + " " + clause[mark.start + len(mark.word):than.start()], clause[than.end():]
    pairs = []
    for read in (lambda t: frozenset(words(t)), lambda t: frozenset(a + b for a, b in _BOUND.findall(t))):
        one, two = read(before), read(after)
        pairs.append((one - two, two - one))
    return tuple(pairs)
