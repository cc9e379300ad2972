"""A table's unit, scale or `%` written once in its header, not beside each number (issue 43, stop 53).

Papers write `ρ_* [g/cm^3] | 75.05`, `M_p [10^{−5} M_*] | 1.297± 0.025`, `σ_μ/μ [%] | 1.3`: the cell holds the bare
number. A claim `(1.297 ± 0.025) × 10^-5` or `1.3%` is stated there, and `75.05 mg/cm^3` is not (the header says
g/cm^3, so the bare 75.05 is no support for another prefix). The header's marks are read from the table's
bracketed groups and lone `%` cells; which column each belongs to is not worked out, so a cell is taken with
each of the table's marks: the rule can tell a wrong prefix or exponent, not a unit moved to another column.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from astro_cli.citations.agree import Stated, check_quantity, stated_in
from astro_cli.citations.quantity import Quantity
from astro_cli.citations.units import UNIT, same_kind, unit_key

_GROUP = re.compile(r"\[([^\[\]|]{1,40})\]")
_LONE_PERCENT = re.compile(r"\|\s*%\s*\||\[\s*%\s*\]|\[\s*wt\s*%\s*\]")
_POWER = re.compile(r"10\s*\^\s*\{?\s*([-−+]?\s*\d+)\s*\}?")


@lru_cache(maxsize=256)
def header_marks(passage: str) -> tuple[tuple[int, str | None, bool], ...]:
    """(power of ten, unit key, percent) of each mark of a table's header; () when the passage is no table."""
    if passage.count("|") < 5:
        return ()
    marks: set[tuple[int, str | None, bool]] = set()
    for group in _GROUP.finditer(passage):
        inside = group.group(1)
        power = _POWER.search(inside)
        scale = int(power.group(1).replace("−", "-").replace(" ", "")) if power else 0
        rest = _POWER.sub(" ", inside).replace("{", "").replace("}", "").strip()
        unit = UNIT.fullmatch(rest)
        key = unit_key(unit.group(0)) if unit else None
        if scale or key:
            marks.add((scale, key, False))
    if _LONE_PERCENT.search(passage):
        marks.add((0, None, True))
    return tuple(sorted(marks, key=lambda m: (m[0], m[1] or "", m[2])))


@lru_cache(maxsize=256)
def header_stated(passage: str) -> Stated:
    """The table's bare numbers, each as if written with each mark of its header."""
    marks = header_marks(passage)
    if not marks:
        return Stated(())
    bare = [q for q in stated_in(passage).items if q.unit is None and not q.percent]
    return Stated(tuple(_marked(q, scale, unit, percent) for q in bare for scale, unit, percent in marks))


def _marked(q: Quantity, scale: int, unit: str | None, percent: bool) -> Quantity:
    f = 10.0 ** scale

    def times(v: float | None) -> float | None:
        return None if v is None else v * f

    return replace(q, value=q.value * f, high=times(q.high), plus=times(q.plus), minus=times(q.minus),
                   decimals=q.decimals - scale, high_decimals=q.high_decimals - scale,
                   error_decimals=q.error_decimals - scale, unit=unit, percent=percent)


def header_reason(claim: Quantity, stated: Stated, passage: str) -> str | None:
    """Why a claim's value with a unit is not the table's, when the header gives a unit of its kind and no number
    carries the claim's unit itself (`75.05 mg/cm^3` against `ρ_* [g/cm^3] | 75.05`); None otherwise."""
    if claim.unit is None:
        return None
    units = [u for _, u, _ in header_marks(passage) if u is not None and same_kind(u, claim.unit)]
    if not units:
        return None
    written = Stated(tuple(q for q in stated.items if q.unit is not None))
    if check_quantity(claim, written) is None or check_quantity(claim, header_stated(passage)) is None:
        return None
    return f"{claim.text} is not in the passage (its table gives {', '.join(sorted(set(units)))})"
