"""Numbers written as words: `twelve planets`, `a factor of two`, `ten days`, `two hundred`, `half`, `a tenth`,
and the order of an expansion (`third-order polynomials`, `3rd order`, LaTeX's `3$^{\\rm rd}$ order`).

A claim that says "a factor of four" where the passage says "a factor of 2" states a wrong number as surely as
one that writes 4. Cardinal words from two to ninety are read (with a following `hundred`, `thousand` or
`million` as a multiplier), with the unit or `%` that follows. Not read: `one` (a pronoun as often as a
number), ordinals (`third`, `first`: positions, not amounts) except before `order`, a word in a compound (`two-sided`,
`three-body`, `twenty-five`), and `thousands of` alone (vague). A word number alone does not make a sentence a
claim (quantities.py marks it `worded`); it is checked when the sentence is a claim for another reason.
"""

from __future__ import annotations

import re

WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
         "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
         "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
         "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_SCALE = {"hundred": 100, "thousand": 1000, "million": 10 ** 6}
NUMBER_WORD = re.compile(r"(?<![\w-])(?P<word>" + "|".join(sorted(WORDS, key=len, reverse=True)) + r")"
                         r"(?:\s+(?P<scale>hundred|thousand|million))?(?![\w-])", re.IGNORECASE)


def word_value(match: re.Match[str]) -> int:
    """The value a NUMBER_WORD match writes."""
    value = WORDS[match.group("word").lower()]
    scale = match.group("scale")
    return value * _SCALE[scale.lower()] if scale else value


_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
             "ninth": 9, "tenth": 10}
# `third-order PLD`, `fourth order polynomials`, `3rd-order`: the order is a number (unit "order": matched only by
# another order, never by a bare 3 elsewhere in the passage); other ordinals are positions.
ORDER = re.compile(r"(?<![\w-])(?P<ordinal>" + "|".join(_ORDINALS) + r"|\d{1,2}\^?(?:st|nd|rd|th))[\s-]+order\b",
                   re.IGNORECASE)
_FRACTIONS = {"half": 0.5, "a twentieth": 0.05, "a hundredth": 0.01}
_PARTS = {"third": 3, "quarter": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}
# `half as many`, `by about half`, `a tenth of the binaries` (not `half-light`, `a quarter` alone: Kepler's quarters);
# a count of parts, `one third`, `two thirds`, `three quarters of` (`One third` is not the passage's `Two thirds`)
_COUNT = r"(?P<count>one|two|three|four|five|six|seven|eight|nine|a)[\s-]+"
FRACTION = re.compile(r"(?<![\w-])(?P<fraction>half|a\s+twentieth|a\s+hundredth|" + _COUNT
                      + r"(?:(?P<part>" + "|".join(p for p in _PARTS if p != "quarter") + r")s?|(?P<quarter>quarter)s?\s+of)"
                      r")(?![\w-])", re.IGNORECASE)
_SMALL = "|".join(["one", *(w for w in WORDS if WORDS[w] <= 10)])
# `nine in ten`, `one out of five`, `two in a hundred`: a share, the value of the fraction (`90%` in the passage)
RATIO = re.compile(rf"(?<![\w-])(?P<n>{_SMALL}|\d)\s+(?:in|out\s+of)\s+(?P<d>{_SMALL}|a\s+hundred|a\s+thousand|\d+)"
                   r"(?![\w-])", re.IGNORECASE)
_TRIGGERS = frozenset(WORDS) | frozenset(_ORDINALS) | {"order", "half", "twentieth", "hundredth"} | {
    form for part in _PARTS for form in (part, part + "s")}
_TOKEN = re.compile(r"[a-z]+")

def any_word(text: str) -> bool:
    """Whether the text may hold a number in words: one cheap look, as most texts have none and every claim is
    looked at (a regex of all the words costs more than the rest of the claim's reading)."""
    return not _TRIGGERS.isdisjoint(_TOKEN.findall(text.lower()))


def ratio_value(match: re.Match[str]) -> float:
    """The share a RATIO match writes (`nine in ten` is 0.9)."""

    def number(word: str) -> int:
        word = " ".join(word.lower().split())
        return 1 if word == "one" else 100 if word == "a hundred" else 1000 if word == "a thousand" else (
            int(word) if word.isdigit() else WORDS[word])

    denominator = number(match.group("d"))
    return number(match.group("n")) / denominator if denominator else 0.0


def order_value(match: re.Match[str]) -> int:
    """The order an ORDER match names."""
    ordinal = match.group("ordinal").lower()
    return _ORDINALS[ordinal] if ordinal in _ORDINALS else int(ordinal[:-2].rstrip("^"))


def fraction_value(match: re.Match[str]) -> float:
    """The value a FRACTION match writes."""
    if match.group("count"):
        count = match.group("count").lower()
        part = (match.group("part") or match.group("quarter")).lower()
        return (1 if count in ("one", "a") else WORDS[count]) / _PARTS[part]
    return _FRACTIONS[" ".join(match.group("fraction").lower().split())]
