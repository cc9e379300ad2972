"""Uncertainties written in prose: `γ = −2.92, uncertain by 0.11`, `−0.045 to within 0.009 dex`, `10.6, with an
uncertainty of +5.9 and −4.5`, `uncertain by 5%`.

The number after such a phrase is the uncertainty of the quantity just before it, not a value of its own: read
apart, `0.11` was looked for as a value and a faithful claim was flagged (the passage writes `−2.92 ± 0.11`),
while a wrong uncertainty could not be told from a missing number. A percentage is relative to the value
(`2.92, uncertain by 5%` is ± 0.146). The phrase must follow the value closely (no sentence or clause break
between), the value must be a single number without an uncertainty of its own, and the units must agree.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.citations.quantity import Quantity

_PHRASE = re.compile(
    r"(?:\b(?:uncertain(?:ty)?|errors?|accura(?:te|cy)|precis(?:e|ion))\s+(?:is\s+|was\s+|of\s+|by\s+|to\s+|at\s+)?"
    r"(?:only\s+)?(?:about\s+|roughly\s+|approximately\s+|around\s+|∼\s*|~\s*|±\s*)?"
    r"|\bto\s+within\s+(?:about\s+|roughly\s+|±\s*)?)$",
    re.IGNORECASE,
)
_WORDS = ("uncertain", "error", "accura", "precis", "within")
_BREAK = re.compile(r"[.;:!?](?:\s|$)|\n\s*\n")
_MINUS_AFTER = re.compile(r"\s*(?:and|,|/)?\s*-\s*(?P<dn>\d+(?:\.\d+)?)")


def attach(norm: str, found: list[Quantity], spans: list[tuple[int, int]]) -> list[Quantity]:
    """`found` (with their spans in `norm`) with each prose uncertainty merged into the value before it."""
    if not found:
        return found
    lowered = norm.lower()
    if not any(word in lowered for word in _WORDS):
        return found
    out: list[Quantity] = []
    out_spans: list[tuple[int, int]] = []
    skip_until = -1
    for quantity, (start, end) in zip(found, spans, strict=True):
        if start < skip_until:
            continue
        phrase = _PHRASE.search(norm, max(0, start - 48), start)
        if out and phrase is not None and _fits(out[-1], quantity) and _close(norm, out_spans[-1], phrase.start()):
            value = out[-1]
            minus = quantity.value
            if quantity.signed and quantity.value > 0 and (after := _MINUS_AFTER.match(norm, end)):
                minus, skip_until = float(after.group("dn")), after.end()
            scale = abs(value.value) / 100.0 if quantity.percent and not value.percent else 1.0
            decimals = value.decimals if scale != 1.0 else quantity.decimals
            out[-1] = replace(value, plus=abs(quantity.value) * scale, minus=abs(minus) * scale,
                              error_decimals=decimals, unit=value.unit or quantity.unit, end=quantity.end,
                              text=norm[out_spans[-1][0]:max(end, skip_until)].strip())
            out_spans[-1] = (out_spans[-1][0], max(end, skip_until))
            continue
        out.append(quantity)
        out_spans.append((start, end))
    return out


def _close(norm: str, value: tuple[int, int], phrase: int) -> bool:
    """Whether the phrase follows a value closely (no clause break between) and that value is no part of a name
    (`TRAPPIST-1 host star, achieving ... a precision of 2.5 m/sec` states 2.5 m/s, not an error of the `1`)."""
    return not _BREAK.search(norm, value[1], phrase) and not re.search(
        r"[^\W\d_]-$", norm[max(0, value[0] - 2):value[0]])


def _fits(value: Quantity, error: Quantity) -> bool:
    """Whether `error` can be the uncertainty of `value`: a single number, units alike (or a relative %)."""
    if value.plus is not None or value.high is not None or error.high is not None or value.year or error.worded:
        return False
    if error.percent:
        return True
    return error.unit is None or value.unit is None or error.unit == value.unit
