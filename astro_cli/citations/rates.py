"""A rate or a density is per something: `0.022 per hour` is not `0.022 [day^{-1}]` (issue 43, stop 54).

units.py reads the unit after a number (`km/s`, `erg`), not what a count is per: `0.022 flares per hour`,
`10 objects deg^{-2}`, `10 per square arcminute` were bare numbers on both sides and matched. The rule: the
denominator of a value is read after it (`per [square] <unit>`, `/<unit>`, `<unit>^{-n}`, within two words:
`flares per day`) or, in a table, from its header (`Flare Rate [day^{−1}]`); a claim value with a denominator whose
every match in the passage has another one (a time for a time, an angle for an angle, or another power) is refuted.
A value the passage gives with no denominator is left alone (the paper may say `per day` once, in its caption).
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.agree import matching, stated_in
from astro_cli.citations.claims import Claim

_UNITS = {
    "s": "s", "sec": "s", "second": "s", "seconds": "s", "min": "min", "minute": "min", "minutes": "min",
    "h": "h", "hr": "h", "hour": "h", "hours": "h", "d": "d", "day": "d", "days": "d", "week": "wk", "weeks": "wk",
    "month": "mo", "months": "mo", "yr": "yr", "year": "yr", "years": "yr",
    "arcsec": "arcsec", "arcsecond": "arcsec", "arcseconds": "arcsec", "arcmin": "arcmin", "arcminute": "arcmin",
    "arcminutes": "arcmin", "deg": "deg", "degree": "deg", "degrees": "deg", "sr": "sr",
}
_UNIT = "|".join(sorted(map(re.escape, _UNITS), key=len, reverse=True))
_SQUARE = r"(?:(?P<square>square|sq\.?)\s+)?"
_POWER = r"\s*\^\s*\{?\s*[-−](?P<power>\d)\s*\}?"
# within two words after the number: `per [square] day`, `/day`, `day^{-1}`, `\deg^{-2}` (LaTeX's `$`, `\` dropped)
_AFTER = re.compile(r"[\s$]*(?:[A-Za-z][\w-]*[\s$]+){0,2}?(?:(?:per\s+|/\s*)" + _SQUARE + r"(?P<unit>" + _UNIT +
                    r")\b(?:\s*\^\s*\{?\s*(?P<sq>2)\s*\}?)?|\\?(?P<unit2>" + _UNIT + r")" + _POWER + ")")
_HEADER = re.compile(r"\[\s*(?P<unit>" + _UNIT + r")" + _POWER + r"\s*\]")


def _read(match: re.Match[str]) -> tuple[str, int]:
    if match.group("unit2"):
        return _UNITS[match.group("unit2")], int(match.group("power"))
    return _UNITS[match.group("unit")], 2 if match.group("square") or match.group("sq") else 1


def per(text: str, end: int) -> tuple[str, int] | None:
    """What the value ending at `end` is per (unit key, power), if the text says so right after it."""
    found = _AFTER.match(text, end, min(len(text), end + 40))
    return _read(found) if found else None


@lru_cache(maxsize=256)
def _header(passage: str) -> tuple[tuple[str, int], ...]:
    """The denominators a table's header gives its columns (`[day^{−1}]`); () when the passage is no table."""
    if passage.count("|") < 5:
        return ()
    return tuple({(_UNITS[m.group("unit")], int(m.group("power"))) for m in _HEADER.finditer(passage)})


def rate_reason(claim: Claim, passage: str) -> str | None:
    """Why a claim's rate or density is the passage's number per another unit; None when it may not be."""
    if "per " not in claim.text and "^" not in claim.text and "/" not in claim.text:
        return None
    own = stated_in(passage)  # where its values stand in this text (not the index of the passages read together)
    for q in claim.quantities:
        wanted = per(claim.text, q.end)
        if wanted is None:
            continue
        found = matching(q, own)
        header = _header(passage)
        theirs = [per(passage, m.end) or (header[0] if len(header) == 1 and "|" in passage else None)
                  for m in found]
        if found and all(t is not None and t != wanted for t in theirs):
            unit, power = next(t for t in theirs if t is not None)
            return f"{q.text} is per {_name(unit, power)} in the passage, not per {_name(*wanted)}"
    return None


def _name(unit: str, power: int) -> str:
    return unit if power == 1 else f"{unit}^{power}"
