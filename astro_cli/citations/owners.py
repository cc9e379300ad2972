"""Whose value is it? The object a number is told `for` in the claim and in the passage (issue 43, stop 53).

`Estimates range from 16.1 wt% for planet g up to 26.6 wt% for planet c`: a claim `from 16.1 wt% for planet h` has
its number, its unit and its words, and the wrong planet. A value followed, within its clause, by `for`, `of`,
`in`, `on` or `around` and a planet's letter (`planet h`, `TRAPPIST-1 h`, `b`) or a designation (`for HD 144548`)
is that object's (not a list's: `4 transits of planets b, c, ... respectively`); a claim's value tied to one object is not stated by the passage's equal value tied to another
(every place the passage states it). Not compared: a value with no object after it on either side, objects named
before the value (`planet h's radius is`), tables (their rows and columns are, planets.py).
"""

from __future__ import annotations

import re

from astro_cli.citations.agree import Stated, matching
from astro_cli.citations.claims import DESIGNATION, Claim

_TIED = re.compile(r"\s*(?:[^\s,;.()]{1,8}\s+){0,2}(?:for|of|in|on|around)\s+(?:the\s+)?(?:(?:planet|TRAPPIST-1)\s+"
                   r"(?P<letter>[b-h])(?![\w-])(?!\s*,|\s+and\b)|(?P<name>\S.{0,30}))", re.IGNORECASE)


_PLANET_LETTER = re.compile(r"\d\s?([b-h])$")


def owner(text: str, end: int) -> str | None:
    """The object the number ending at `end` is told for (a planet's letter, a designation squashed), if any."""
    tied = _TIED.match(text, end)
    if tied is None:
        return None
    if tied.group("letter"):
        return tied.group("letter").lower()
    name = DESIGNATION.match(tied.group("name"))
    if name is None:
        return None
    letter = _PLANET_LETTER.search(name.group(0))  # `TRAPPIST-1b`, `Kepler-90 h`: the planet, as `planet h` is
    return letter.group(1) if letter else re.sub(r"[\s-]", "", name.group(0)).lower()


def owner_reason(claim: Claim, passage: str, stated: Stated) -> str | None:
    """Why the passage's equal value is another object's; None when it may be the claim's."""
    if len(passage) > 20_000 or passage.count("|") >= 5:
        return None
    for own in claim.quantities:
        mine = owner(claim.text, own.end)
        if mine is None:
            continue
        theirs = {owner(passage, q.end) for q in matching(own, stated)}
        if theirs and None not in theirs and mine not in theirs:
            return f"{own.text} is in the passage, but for {', '.join(sorted(t for t in theirs if t))}"
    return None
