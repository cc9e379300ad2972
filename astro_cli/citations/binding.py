"""Is the passage's number the claim's quantity, or the same value of another one?

A passage often states several values of one kind (`5 × 10^3 for third order PLD, ∼5 × 10^4 for fourth order`;
`a tenth of the binaries ... n_b/n_s ≈ 0.05`), so a claim's value found somewhere in it proves little: `third-order
PLD needs 5e4` finds 5 × 10^4, `a twentieth of binaries` finds 0.05. One rule decides (issue 43, stop 52): each
number has *anchors*, the content words of its clause (`,` `;` `:` and `and`/`but`/`while`/`whereas` end one,
never inside a number such as `between 5 and 11`); the claim's number is bound to the passage's equal value only
if no other value of the same kind (a unit of the same kind; a bare number or percent for a bare one) stands in a
clause that shares more of the claim's anchors. Ties stand: the rule refutes a claim only when the passage
itself ties the claim's words to another value. Not compared: tables (their rows are, support.py), a passage
too long to read as prose (a data file), and a claim whose number has no words around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from astro_cli.citations.agree import LONG, Stated, matching
from astro_cli.citations.claims import POINTERS, Claim
from astro_cli.citations.greek import NAMES, SYMBOLS
from astro_cli.citations.quantities import passage_quantities
from astro_cli.citations.quantity import Quantity
from astro_cli.citations.terms import EXTRA_STOP, stem
from astro_cli.citations.units import same_kind
from astro_cli.stopwords import STOPWORDS

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\\[$(])")  # a blank line around a display equation ends nothing
_CLAUSE = re.compile(r"[,;:]\s|\s\(|\)(?=[\s,.;:])|\s(?:and|but|while|whereas|or|against|versus|vs\.?|compared\s+(?:to|with))\s|"
                     r"\s[–—]{1,2}\s|\s--?\s")
# `between Sector 1 and Sector 67`: one span, whatever words its ends carry
_BETWEEN = re.compile(r"\bbetween\b(?:(?!\band\b)[^,;:])*$", re.IGNORECASE)
_CONTRAST = re.compile(r"against|versus|vs|compared")
_MARKUP = re.compile(r"\\(?:rm|mathrm|textrm|text|mathit|mathbf|it|bf|mathcal|cal|left|right)\b\s*|[{}$]")
_ITEM = re.compile(r"\s*(?:(?:and|or)\s+)?(?:\$|\\sim|\\approx|[∼~≈])*\s*[-+−]?\.?\d")
_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)
_OPENS = re.compile(r"\s*(?:[A-Z\[(\"“]|\\(?:sub)*section|\\paragraph)")  # a passage that starts a sentence
_CLOSES = re.compile(r"[.!?)\]}\"”]\s*$")  # a passage that ends a sentence
_COMMAND = re.compile(r"\\([A-Za-z]+)")
NAME_DIGITS = re.compile(r"(?<![\\A-Za-z])[A-Z][A-Za-z]*$")  # `K2`, `M3-M5`: a name's digits (`\approx40` is none)
_TOKEN = re.compile(r"[^\W\d_]\w*")
_SUBSCRIPT_GAP = re.compile(r"_\s+")
_SYMBOL = re.compile("[" + re.escape("".join(chr(code) for code in SYMBOLS)) + "]")
# LaTeX's words and the words of comparison that say nothing of which quantity a number is
_NOT_ANCHORS = frozenset("""approx sim simeq lesssim gtrsim times frac begin end equation eqnarray align cases quad
    mbox label ref cite citep citet sqrt exp log sum int cdot pm mp odot oplus star than least most more less over
    under above below between within order ratio either neither whether per via among respectively""".split())


@dataclass(frozen=True)
class Anchored:
    """A quantity of a text, the stems of the words of its clause and of its sentence, and which sentence."""

    quantity: Quantity
    clause: frozenset[str]
    sentence: frozenset[str]
    index: int
    cut: bool = False  # its sentence lost its start where the passage was cut from the paper


def _command(match: re.Match[str]) -> str:
    """A LaTeX command is markup (`\\tag`, `\\addtocounter`), not a word, unless it writes a Greek letter."""
    return f" {match.group(1)}" if match.group(1).lower() in NAMES else " "


@lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    """The anchors of a stretch of text: stems of its content words and symbols; a Greek letter is its name, so
    the claim's `α` is the passage's `\\alpha` (and `Γ_a` is `\\Gamma_{\\rm a}`)."""
    plain = _COMMAND.sub(_command, _SUBSCRIPT_GAP.sub("_", _MARKUP.sub("", text)))
    if _SYMBOL.search(plain):  # a translation is a dict lookup per character: only for a text with a Greek letter
        plain = plain.translate(SYMBOLS)
    out = set()
    for token in _TOKEN.findall(plain):
        low = token.lower()
        if low in STOPWORDS or low in EXTRA_STOP or low in _NOT_ANCHORS:
            continue
        if len(token) >= 3 or "_" in token or (len(token) == 2 and token.isupper()) or low in NAMES:
            out.add(stem(token))
    return frozenset(out)


def text_words(text: str) -> frozenset[str]:
    """The anchor words of a text, its numbers' digits left out (together.py compares two statements by them)."""
    return _words(text)


def _cuts(pattern: re.Pattern[str], text: str, numbers: list[Quantity], start: int, end: int) -> list[tuple[int, int]]:
    """`text[start:end]` cut where `pattern` matches, except inside a number (`between 5 and 11 Myr`), at the `and`
    of `between ... and` and between two numbers of a list."""
    cuts = [start] + [m.start() for m in pattern.finditer(text, start, end)
                      if not any(q.start < m.start() < q.end for q in numbers) and not _item(text, m, numbers)
                      and not (m.group(0).strip() == "and" and _BETWEEN.search(text, max(start, m.start() - 60),
                                                                             m.start()))] + [end]
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def _item(text: str, cut: re.Match[str], numbers: list[Quantity]) -> bool:
    """Whether a break only separates two numbers of a list: a number right before it (`16 K and 14 K`, `from 20 days
    and 25 years`) and one right after; `5 × 10^4 for fourth order and ∼3 × 10^5 for fifth order` is two clauses."""
    if _CONTRAST.search(cut.group(0)):
        return False  # `11 days against 8.5 days in the Pleiades`: two things compared, not a list
    return bool(_ITEM.match(text, cut.end())) and any(0 <= cut.start() - q.end <= 2 and not q.worded for q in numbers)


def anchored(text: str, numbers: list[Quantity], skip: list[tuple[int, int]] | None = None) -> list[Anchored]:
    """Each quantity with its clause's and its sentence's words; the numbers themselves (digits and units, not
    number words) and the `skip` spans (a claim's citations and handles) are blanked first."""
    blank = list(text)
    for a, b in [*(skip or []), *((q.start, q.end) for q in numbers if not q.worded)]:
        blank[a:b] = " " * (b - a)
    words = "".join(blank)
    out = []
    for index, (first, last) in enumerate(_cuts(_SENTENCE, text, numbers, 0, len(text))):
        if not any(first <= q.start < last for q in numbers):
            continue
        sentence = _words(words[first:last])
        clause: frozenset[str] = frozenset()
        # `M_A = 1.44, ... and M_Bb = 0.944 for the tertiary and two close binary components, respectively`: the
        # words that end a `respectively` list belong to every item of it, so the sentence is one clause
        respectively = _RESPECTIVELY.search(text, first, last) is not None
        before: list[Quantity] = []
        for start, end in [(first, last)] if respectively else _cuts(_CLAUSE, text, numbers, first, last):
            # a clause with no words of its own (`16 K and 14 K`, `2.9 (1st order), 4.7 (2nd order)`) is an item of
            # the list the clause before it opened, unless a value of a kind that clause lacks qualifies it (`70% of
            # the innermost ..., and about 50% at 200 pc`: the 50% is not the innermost candidates')
            inside = [q for q in numbers if start <= q.start < end]
            own = _words(words[start:end])
            qualified = any(not any(same_kind(q.unit, b.unit) and q.percent == b.percent for b in before)
                            for q in inside) and len(inside) > 1
            clause = own or (frozenset() if qualified else clause)
            out += [Anchored(q, clause, sentence, index) for q in inside]
            before = inside or before
    return out


@lru_cache(maxsize=512)
def passage_anchored(text: str) -> tuple[Anchored, ...]:
    """A passage's values with their words; pointers (`Figure 9`, `Equation (18)`) are no values."""
    values = [q for q in passage_quantities(text) if not POINTERS.search(text[max(0, q.start - 14):q.start])
              and not NAME_DIGITS.search(text, max(0, q.start - 12), q.start)]
    out = anchored(text, values)
    # a chunk cut mid-sentence lost the words before its first sentence's numbers, or after its last one's
    cut = ({0} if not _OPENS.match(text) else set()) | ({max(a.index for a in out)} if out and not _CLOSES.search(
        text) else set())
    return tuple(replace(a, cut=True) if a.index in cut else a for a in out)


@lru_cache(maxsize=512)
def _passage(text: str) -> tuple[tuple[Anchored, ...], Stated]:
    theirs = passage_anchored(text)
    return theirs, Stated(tuple(a.quantity for a in theirs))


def claim_anchored(claim: Claim) -> list[Anchored]:
    """A claim's quantities with their words, computed once per claim (cached)."""
    return _claim_anchored(claim.text, claim.quantities, tuple(claim.spans))


@lru_cache(maxsize=4096)
def _claim_anchored(text: str, numbers: tuple[Quantity, ...], spans: tuple[tuple[int, int], ...]) -> list[Anchored]:
    return anchored(text, list(numbers), list(spans))  # a claim is checked against each passage of its paper


def unbound(claim: Claim, passage: str) -> str | None:
    """Why a claim's number, stated in the passage, is not the claim's quantity there; None when it may be."""
    if len(passage) >= LONG or passage.count("|") >= 5:
        return None
    theirs, stated = _passage(passage)
    if not theirs:
        return None
    for own in _claim_anchored(claim.text, claim.quantities, tuple(claim.spans)):
        if not own.clause:
            continue
        # the passage's values are the very objects `stated` holds: compared by identity, not by their fields
        same = {id(q) for q in matching(own.quantity, stated)}
        equal = [a for a in theirs if id(a.quantity) in same] if same else []
        if not equal:
            continue  # found otherwise (a subscript, a range's two numbers): not this rule's to judge
        others = [a for a in theirs if id(a.quantity) not in same and rivals(own.quantity, a.quantity)
                  and (own.quantity.worded or not a.quantity.worded)]  # `all three surveys` is no rival of `16,476`
        rival = _rival(own, equal, others)
        if rival is not None:
            shared = sorted(own.clause & rival.clause)
            return (f"{own.quantity.text} is in the passage, but for another quantity: where it speaks of "
                    f"{', '.join(_surface(claim.text, shared))} it gives {rival.quantity.text}")
    return None


def _rival(own: Anchored, equal: list[Anchored], others: list[Anchored]) -> Anchored | None:
    """The passage's other value the claim's words point to, if they point to one rather than to its value: in the
    value's sentence, a clause holding every claim word the value's clause holds and more; elsewhere, any clause
    holding some of them when the value's sentence holds none."""
    for other in others:
        theirs = own.clause & other.clause
        if not theirs:
            continue
        if all(own.clause & e.clause < theirs if e.index == other.index
               else not own.clause & e.sentence and not e.cut for e in equal):
            return other
    return None


def rivals(claim: Quantity, other: Quantity) -> bool:
    """Whether `other` is a value the claim's quantity could have been: the same kind of unit, a count for a count,
    a percentage for a percentage (`4.8% higher` and a ratio of `1.048` are one quantity), not a year."""
    if not same_kind(claim.unit, other.unit) or _count(claim) != _count(other) or claim.percent != other.percent:
        return False
    year = (other.unit is None and other.decimals == 0 and 1600 <= other.value <= 2099 and other.high is None
            and "," not in other.bare)  # `1,847 stars` is a count: a year is never written with a thousands comma
    return not year


def _count(q: Quantity) -> bool:
    """A bare whole number (`12 planets`, `two`): a count, never a rival of a measured value (`0.125 ± 0.012`)."""
    return q.unit is None and not q.percent and q.plus is None and q.decimals >= 0 and float(q.value).is_integer()


def _surface(text: str, stems: list[str]) -> list[str]:
    """The claim's own words for the shared stems (the researcher reads `binaries`, not `binari`)."""
    words = {stem(t): t for t in _TOKEN.findall(_MARKUP.sub("", text))}
    return [words.get(s, s) for s in stems]
