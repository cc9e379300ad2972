"""A table's row binds its values: a claim naming a row's label takes its numbers from that row only.

A table (astro's line form, `label | cell | cell`) states many values of one kind, so a claim's number found in it
proves little: `the Pleiades are 79 Myr old` finds α Persei's 79 two rows below, `Upper Scorpius's 106 stars` is
told of TW Hydrae. support.py's row check only follows designations (`HD 189733`); a row's label is any name
(`Pleiades`, `Lower Centaurus Crux`, `ZTF g`, `CSS`). When the claim names row labels (whole words, the longest
label where two overlap: `Carina-Musca`, not `Carina`), each of its numbers must stand in a named row, else it is
refuted when another row holds it and the passage's prose does not. A lone number's column is checked as the header
names it (columns.py). A number the table does not hold at all is left to the other checks (a caption, the prose).
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from astro_cli.citations.agree import Stated, check_quantity, stated_in
from astro_cli.citations.columns import column_reason
from astro_cli.citations.greek import spell_greek
from astro_cli.citations.quantity import Quantity

_VALUE = re.compile(r"\s*\$?\s*(?:[-+−±~≈∼<>]|\\sim|\\approx)?\s*\.?\d")
_LETTERS = re.compile(r"[^\W\d_]")
_MARKUP = re.compile(r"[{}$\\]")
MIN_LABEL = 3  # a shorter label (`b`, `c`: a planet's letter) is planets.py's




@lru_cache(maxsize=256)
def labelled_rows(passage: str) -> tuple[tuple[str, str], ...]:
    """The (label, row) pairs of the passage's table lines: a first cell with letters, a value in a later cell
    (a header line holds none)."""
    rows = []
    for line in passage.splitlines():
        cells = line.split("|")
        if len(cells) < 2:
            continue
        label = " ".join(_MARKUP.sub("", cells[0]).split())
        if len(label) >= MIN_LABEL and _LETTERS.search(label) and any(_VALUE.match(c) for c in cells[1:]):
            rows.append((label, line))
    return tuple(rows)


@lru_cache(maxsize=256)
def _prose(passage: str) -> Stated:
    """The values of the passage outside its table lines (a caption, a note, the prose around it)."""
    return stated_in("\n".join(line for line in passage.splitlines() if "|" not in line))


def _named(claim: str, labels: list[str]) -> set[int]:
    """The rows whose label the claim names, as whole words; of two overlapping, the longer."""
    text = spell_greek(claim).lower()
    spans = []
    for i, label in enumerate(labels):
        words = spell_greek(label).lower().split()
        pattern = r"(?<![\w-])" + r"[\s\-]+".join(re.escape(w) for w in words) + r"(?![\w-])"
        spans += [(m.start(), m.end(), i) for m in re.finditer(pattern, text)]
    return {i for a, b, i in spans if not any(c <= a and b <= d and (d - c) > (b - a) for c, d, _ in spans)}


def row_label_reason(quantities: tuple[Quantity, ...], claim: str, passage: str) -> str | None:
    """Why the claim's numbers are not in the rows it names (another row's value); None when they are, or when it
    names no row."""
    if passage.count("|") < 2:
        return None
    rows = labelled_rows(passage)
    named = _named(claim, [label for label, _ in rows])
    if not named or len(named) == len(rows):
        return None
    own = stated_in("\n".join(rows[i][1] for i in sorted(named)))
    for q in quantities:
        loose = replace(q, unit=None)
        if check_quantity(loose, own) is None:
            continue
        other = next((label for j, (label, row) in enumerate(rows) if j not in named
                      and check_quantity(loose, stated_in(row)) is None), None)
        if other is not None and check_quantity(q, _prose(passage)) is not None:
            names = ", ".join(rows[i][0] for i in sorted(named))
            return f"{q.text} is in the row of {other}, not of {names}"
    if len(named) == 1 and len(quantities) == 1:  # which of several numbers a column word names is not known
        return column_reason(quantities, claim, rows[next(iter(named))][1], passage)
    return None
