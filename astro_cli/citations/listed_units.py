"""A unit written once after a list of numbers belongs to each of them (issue 43, stop 54 follow-up).

Papers write `loops of 40 and 80 Mm`, `around 2.5 and 3.5 MK`, `rates of 0.01, 0.03, 0.1, and 1.0 erg s^-1 cm^-3`:
the unit after the last number is the unit of every number of the list. Read alone, `40` has no unit, and a claim's
`40,000 km` (the same length) finds nothing to convert. A number takes the unit of the next one when only a comma,
`and` or `or` stands between them (a `%` too: `1, 2 and 5%`), it has none of its own, and it is no range or percentage.
"""

from __future__ import annotations

import re
from dataclasses import replace

from astro_cli.citations.quantity import Quantity

_LIST = re.compile(r"\s*(?:,\s*(?:(?:and|or)\s+)?|(?:and|or)\s+)", re.IGNORECASE)


def shared_units(text: str, found: list[Quantity]) -> list[Quantity]:
    """`found` (in the order they stand in `text`) with the unit of a list's last number given to the others."""
    out = list(found)
    for i in range(len(out) - 2, -1, -1):
        here, after = out[i], out[i + 1]
        if (here.unit is None and (after.unit is not None or after.percent) and not here.percent and not here.worded and not here.year
                and here.high is None and _LIST.fullmatch(text, here.end, after.start)):
            out[i] = replace(here, unit=after.unit, percent=after.percent)
    return out
