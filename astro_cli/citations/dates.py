"""A date is compared whole (issue 43, stop 54).

A number from 1600 to 2099 is a year only by context (quantities.py), and a year is never compared as a value:
`MJD 58543 (1 March 2018)` passed against the passage's `MJD 58543 (2019 March 1)`. The rule: the dates a claim
writes (`1 March 2018`, `March 1, 2018`, `2018 March 1`, `2018-03-01`, `March 2018`) must be dates the passage
writes, compared on the parts the claim gives; a claim date the passage does not write, where the passage writes
dates at all, is refuted. A passage without dates is left to the other rules.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.claims import Claim

_MONTHS = {m: i + 1 for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july",
                                            "august", "september", "october", "november", "december"))}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
# a month is capitalised (`we may 2019` names none)
_MONTH = r"(?P<m{n}>" + "|".join(sorted((m.capitalize() for m in _MONTHS), key=len, reverse=True)) + r")\.?"
_DAY, _YEAR = r"(?P<d{n}>[0-3]?\d)(?:st|nd|rd|th)?", r"(?P<y{n}>(?:1[6-9]|20)\d\d)"
_FORMS = [
    _DAY + r"\s+" + _MONTH + r",?\s+" + _YEAR,  # 1 March 2018
    _MONTH + r"\s+" + _DAY + r",?\s+" + _YEAR,  # March 1, 2018
    _YEAR + r",?\s+" + _MONTH + r"\s+" + _DAY,  # 2018 March 1
    _YEAR + r"-(?P<mm{n}>[01]\d)-" + _DAY,  # 2018-03-01
    _MONTH + r",?\s+" + _YEAR,  # March 2018
]
_DATE = re.compile(r"(?<![\w-])(?:" + "|".join(f.replace("{n}", str(i)) for i, f in enumerate(_FORMS))
                   + r")(?![\w-])")
_ANY_YEAR = re.compile(r"(?:1[6-9]|20)\d\d")

Date = tuple[int, int, int | None]


def _read(match: re.Match[str]) -> Date:
    parts = {k[0] if not k.startswith("mm") else "mm": v for k, v in match.groupdict().items() if v}
    month = int(parts["mm"]) if "mm" in parts else _MONTHS[parts["m"].lower().rstrip(".")]
    return int(parts["y"]), month, int(parts["d"]) if "d" in parts else None


@lru_cache(maxsize=512)
def dates_in(text: str) -> tuple[tuple[Date, str], ...]:
    """The dates a text writes, (year, month, day or None) with their words."""
    if _ANY_YEAR.search(text) is None:
        return ()  # every form writes a year: most claims have none, and the forms are slow to try everywhere
    return tuple((_read(m), m.group(0)) for m in _DATE.finditer(text))


def date_reason(claim: Claim, passage: str) -> str | None:
    """Why a date of the claim is not the passage's; None when it may be (or the passage writes no date)."""
    wanted = dates_in(claim.text)
    if not wanted:
        return None
    theirs = dates_in(passage)
    if not theirs:
        return None
    for (year, month, day), words in wanted:
        if not any(y == year and m == month and (day is None or d is None or d == day) for (y, m, d), _ in theirs):
            near = [w for (y, m, d), w in theirs if (m, d) == (month, day) or y == year] or [theirs[0][1]]
            return f"{words} is not a date of the passage (it gives {', '.join(dict.fromkeys(near))})"
    return None
