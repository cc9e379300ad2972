"""Does a passage state a claim's quantity? Values compared after unit conversion, within the claim's precision.

- The value: the claim's number, rounded as the claim wrote it (`0.02` is `0.019`; `1930` is not `1925`), equals
  one the passage states, after converting the passage's unit to the claim's (`36 hr` is `1.5 d`). An integer
  the claim gives as approximate (`about 40,000`) may round away its trailing zeros.
- A unit on both sides must agree (`500 nm` is not `500 μm`; `5 GHz` is not `5 MHz`); a number with no unit on
  either side is compared by value alone — unless the passage gives that number with another unit too (`2 days`
  contradicts `2 hours`, whatever bare `2` it also has).
- Percent and fraction are the same only when one of them carries a `%` (`25%` is `0.25`; `10` is not `0.1`).
- A range needs both ends, in one range of the passage (or as two single numbers): `5–100` is not stated by
  `30–100` and `5–10`; an uncertainty must equal the passage's (`± 0.002`, `^{+a}_{-b}`), or, where the
  passage's number carries none (a catalogue's error column), be stated in the passage too.
- The uncertainty of a passage's number is not a value of its own: `0.019` is not stated by `0.040^{+0.031}_{-0.019}`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from astro_cli.citations.quantities import passage_quantities
from astro_cli.citations.quantity import Quantity
from astro_cli.citations.units import ONLY_ITSELF, factor


@dataclass(eq=False)
class Stated:
    """The quantities of a text, indexed by value, so a claim is looked up without a scan of them all. Compared
    by identity, so the matches of a claim's quantity in it are computed once (`matching`)."""

    items: tuple[Quantity, ...]
    values: list[float] = field(default_factory=list)
    owners: list[int] = field(default_factory=list)
    units: frozenset[str | None] = frozenset()
    # (unit, percent) -> the values and owners of that kind alone, made on the first lookup by kind
    kinds: dict[tuple[str | None, bool], tuple[list[float], list[int]]] | None = None

    def __post_init__(self) -> None:
        pairs = sorted((v, i) for i, q in enumerate(self.items)
                       for v in ((q.value,) if q.high is None else (q.value, q.high)))
        self.values = [v for v, _ in pairs]
        self.owners = [i for _, i in pairs]
        self.units = frozenset(q.unit for q in self.items)

    def near(self, wanted: float, margin: float) -> list[Quantity]:
        low = bisect.bisect_left(self.values, wanted - margin)
        high = bisect.bisect_right(self.values, wanted + margin)
        if high - low <= 1:  # most lookups: none or one (no list of owners to make unique)
            return [self.items[self.owners[low]]] if high > low else []
        return [self.items[i] for i in dict.fromkeys(self.owners[low:high])]

    def near_kind(self, wanted: float, margin: float, unit: str | None, percent: bool) -> list[Quantity]:
        """`near`'s quantities of one unit and percent, in the same order: a claim's value is looked up once per unit
        the passage uses, and most of its units (and percent for most) hold none of it."""
        if self.kinds is None:
            self.kinds = {}
            for value, owner in zip(self.values, self.owners):
                item = self.items[owner]
                values, owners = self.kinds.setdefault((item.unit, item.percent), ([], []))
                values.append(value)
                owners.append(owner)
        kind = self.kinds.get((unit, percent))
        if kind is None:
            return []
        values, owners = kind
        low = bisect.bisect_left(values, wanted - margin)
        high = bisect.bisect_right(values, wanted + margin)
        if high - low <= 1:
            return [self.items[owners[low]]] if high > low else []
        return [self.items[i] for i in dict.fromkeys(owners[low:high])]


_BARE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
LONG = 20_000  # a text this long (a data file, a table a tool printed) is read for its values alone


@lru_cache(maxsize=512)
def stated_in(text: str) -> Stated:
    """The quantities of a passage; of a long text (a file's data), its numbers' values only, which is fast."""
    if len(text) < LONG:
        return Stated(passage_quantities(text))
    return Stated(tuple(Quantity(float(m.group(0)), 0) for m in _BARE.finditer(text)))


def combined(parts: tuple[Stated, ...]) -> Stated:
    return parts[0] if len(parts) == 1 else Stated(tuple(q for part in parts for q in part.items))


def _tolerance(q: Quantity, decimals: int) -> float:
    tolerance = 0.5 * 10.0 ** (-decimals) if decimals > -300 else 0.0
    if q.approx and decimals == 0 and q.high is None:
        digits = str(int(abs(q.value)))
        zeros = len(digits) - len(digits.rstrip("0"))
        tolerance = max(tolerance, 0.5 * 10.0 ** zeros)
    return tolerance + abs(q.value) * 1e-9


@lru_cache(maxsize=4096)
def _scales(claim_unit: str | None, claim_percent: bool,
            units: frozenset[str | None]) -> tuple[tuple[str | None, bool, float], ...]:
    """(the passage's unit, percent, the factor that turns its number into the claim's) for each way it may hold it;
    a function of the units alone, so computed once per claim unit and passage (cached)."""
    out = []
    for unit in sorted(units, key=lambda u: (u is None, u != claim_unit, u or "")):  # a unit that agrees first
        if unit is None and claim_unit in ONLY_ITSELF:
            continue
        if claim_unit and unit and unit != claim_unit:
            scale = factor(unit, claim_unit)
            if scale is None:
                continue
        else:
            scale = 1.0
        for percent in (False, True):
            if percent == claim_percent:
                out.append((unit, percent, scale))
            else:
                out.append((unit, percent, scale * (100.0 if claim_percent else 0.01)))
    return tuple(out)


def _close(wanted: float, found: float, tolerance: float) -> bool:
    return abs(wanted - found) <= tolerance


def _errors_agree(claim: Quantity, found: Quantity, scale: float, stated: Stated) -> bool:
    """The claim's uncertainty is the passage's: on the same number, or — when that number carries none, as
    in a catalogue's separate error column (`parallax 2.303409`, `parallax_error 0.03333763`) — stated apart."""
    if claim.plus is None or claim.minus is None:
        return True
    tolerance = 0.5 * 10.0 ** (-claim.error_decimals) + abs(claim.plus) * 1e-9
    if found.plus is None or found.minus is None:
        return all(any(_close(error, v * scale, tolerance) for q in stated.near(error / scale, tolerance / abs(scale))
                       if q.plus is None for v in (q.value,))
                   for error in {claim.plus, claim.minus})
    return _close(claim.plus, found.plus * scale, tolerance) and _close(claim.minus, found.minus * scale, tolerance)


def _all_matches(claim: Quantity, wanted: float, decimals: int, stated: Stated, errors: bool) -> Iterator[Quantity]:
    """The passage quantities whose value (or range end) is `wanted` in the claim's unit."""
    tolerance = _tolerance(claim, decimals)
    # a fraction in words (`two thirds`) is as precise as the passage's number: `66%` is two thirds, `60%` is not
    worded = claim.worded and not float(wanted).is_integer()
    for unit, percent, scale in _scales(claim.unit, claim.percent, stated.units):
        if scale == 0:
            continue
        window = tolerance / abs(scale) + 1e-12
        for found in stated.near_kind(wanted / scale, max(window, 0.05 * abs(wanted / scale)) if worded else window,
                                      unit, percent):
            close = max(tolerance, (1.5 if claim.approx else 1.0) * 10.0 ** (-found.decimals) * abs(scale)) if (
                worded) else tolerance
            if not any(_close(wanted, v * scale, close) for v in (found.value, found.high) if v is not None):
                continue
            if (claim.unit is None or found.unit is None or factor(found.unit, claim.unit) is not None) and (
                    not errors or _errors_agree(claim, found, scale, stated)):
                yield found


def _matches(claim: Quantity, wanted: float, decimals: int, stated: Stated, errors: bool) -> Quantity | None:
    return next(_all_matches(claim, wanted, decimals, stated, errors), None)


@lru_cache(maxsize=4096)
def matching(claim: Quantity, stated: Stated) -> list[Quantity]:
    """Every passage quantity that states the claim's value (or an end of its range), uncertainty included (the
    binding, bound and owner rules each ask for them: a list the callers only read)."""
    found = list(_all_matches(claim, claim.value, claim.decimals, stated, True))
    if claim.high is not None:
        found += _all_matches(claim, claim.high, claim.high_decimals, stated, True)
    return list(dict.fromkeys(found))


def check_quantity(claim: Quantity, stated: Stated) -> str | None:
    """None when the passage states `claim`; otherwise why not, in a few words for the researcher."""
    low = _matches(claim, claim.value, claim.decimals, stated, True)
    high = None if claim.high is None else _matches(claim, claim.high, claim.high_decimals, stated, True)
    if low is not None and high is not None and not _one_range(claim, stated):
        low = None  # `5–100` from the passage's `30–100` and `5–10`: each end of another range
    if low is not None and (claim.high is None or high is not None):
        contradicted = _other_unit(claim, stated)
        # the passage gives the number in another unit (`2 days` for `2 hours`): a bare `2` elsewhere is no support
        if not (contradicted is not None and all(m is None or m.unit is None for m in (low, high))):
            return None
    if claim.plus is not None and _matches(claim, claim.value, claim.decimals, stated, False) is not None:
        return f"{claim.text}: the passage gives another uncertainty"
    other = _other_unit(claim, stated)
    if other is not None:
        return f"{claim.text} is not in the passage (it gives {other.text})"
    return f"{claim.bare or claim.text} is not in the passage"


def _one_range(claim: Quantity, stated: Stated) -> bool:
    """Whether both ends of the claim's range are the ends of one range of the passage, or two single numbers."""
    singles = Stated(tuple(q for q in stated.items if q.high is None))
    if all(_matches(claim, v, d, singles, True) for v, d in ((claim.value, claim.decimals),
                                                              (claim.high or 0.0, claim.high_decimals))):
        return True
    for found in stated.items:
        if found.high is not None:
            one = Stated((found,))
            if _matches(claim, claim.value, claim.decimals, one, True) and claim.high is not None and _matches(
                    claim, claim.high, claim.high_decimals, one, True):
                return True
    return False


def _other_unit(claim: Quantity, stated: Stated) -> Quantity | None:
    """The passage's number equal to the claim's but in a unit that is not the claim's (`500 nm` for `500 μm`)."""
    if claim.unit is None:
        return None
    for found in stated.near(claim.value, _tolerance(claim, claim.decimals)):
        if found.unit is not None and found.unit != claim.unit:
            return found
    return None
