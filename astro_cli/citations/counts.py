"""Numbers in words that need not be stated as the claim words them (issue 43, stop 53).

- A count after a definite determiner names a set the reader already knows, it states no result: `averaged over
  the seven planets`, `the two Gaia studies`. It is checked only where the passage counts the same thing (a number
  before the noun that follows it: `the five GLR angles` against the passage's `five GLR resonant angles`); a
  passage that never counts it cannot tell, so it is not held against the claim.
- A fraction in words is the passage's fraction in figures: `a tenth` is `1/10` or `\\frac{1}{10}`; so is a decimal
  (`0.2` is `1/5`, at the decimal's precision).
"""

from __future__ import annotations

import re
from fractions import Fraction

from astro_cli.citations.number_words import WORDS
from astro_cli.citations.quantity import Quantity
from astro_cli.citations.terms import stem

_DEFINITE = re.compile(r"\b(?:the|these|those|its|their|all|both|our|his|her)\s+$", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_][\w-]*|\d+(?:\.\d+)?")
# a number and the one or two words after it, nothing but spaces between (`five GLR resonant angles`, `12 planets`)
_COUNTED = re.compile(r"(?:(?<![\w.,/-])\d+(?![\d.,/])|\b(?:" + "|".join(WORDS) + r")\b)\s+([^\W\d_][\w-]*)"
                      r"(?:\s+([^\W\d_][\w-]*))?", re.IGNORECASE)


def presupposed(quantity: Quantity, text: str, passage: str) -> bool:
    """Whether a claim's count in words names a known set (`the seven planets`) the passage does not count."""
    if not quantity.worded or not float(quantity.value).is_integer() or quantity.unit or quantity.percent:
        return False
    if not _DEFINITE.search(text[:quantity.start]):
        return False
    nouns = {stem(w) for w in _WORD.findall(text[quantity.end:])[:2] if not w[0].isdigit()}
    for match in _COUNTED.finditer(passage):
        if nouns & {stem(w) for w in match.groups() if w}:
            return False  # the passage counts it: the claim's count is checked
    return True


def as_figures(quantity: Quantity, passage: str) -> bool:
    """Whether a fraction the claim writes in words (`a tenth`, `two thirds`) or as a decimal (`0.2` for `NSR = 1/5`)
    stands in the passage in figures."""
    if float(quantity.value).is_integer() or not 0 < quantity.value < 1 or quantity.unit or quantity.percent:
        return False
    part = Fraction(quantity.value).limit_denominator(20)
    p, q = part.numerator, part.denominator
    if not quantity.worded and abs(p / q - quantity.value) >= 0.5 * 10.0 ** -max(quantity.decimals, 0):
        return False  # `0.33` is 1/3 at its precision; `0.31` is no small fraction
    return re.search(rf"(?<![\d.]){p}\s*/\s*{q}(?![\d.])|\\[dt]?frac\s*\{{?\s*{p}\s*\}}?\s*\{{?\s*{q}\s*\}}?",
                     passage) is not None
