"""Numbers written as words: `twelve planets`, `a factor of two`, `ten days`, `two hundred`.

A claim that says "a factor of four" where the passage says "a factor of 2" states a wrong number as surely as
one that writes 4. Cardinal words from two to ninety are read (with a following `hundred`, `thousand` or
`million` as a multiplier), with the unit or `%` that follows. Not read: `one` (a pronoun as often as a
number), ordinals (`third`, `first`: positions, not amounts), a word in a compound (`two-sided`,
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
