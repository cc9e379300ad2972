"""Numbers a passage gives only inside a symbol's subscript: `CDPP_{7.5 hrs}` states 7.5 hours of the CDPP.

A subscript is never read as a quantity of the passage (`T_0`, `M_{⋆,cat}` would become numbers), so a claim
saying "a CDPP over 7.5 hours" found no 7.5. Here a subscript's numbers count only for a claim that names the
same symbol as a word (`CDPP`), and only for symbols of at least two letters: a one-letter symbol (`T_0`, `R_1`)
is an index far more often than a quantity.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.agree import Stated
from astro_cli.citations.quantities import quantities
from astro_cli.citations.quantity import Quantity

# `CDPP_{7.5{\,\mathrm{hrs}}}`, `\mathrm{CDPP}_{7.5 hr}`, a PDF's `CDPP_7.5`: the symbol and its subscript.
_SUBSCRIPT = re.compile(r"(?<![A-Za-z\\])(?P<symbol>[A-Za-z]{2,})\}?\s?_\s?(?:\{(?P<body>(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}"
                        r"|(?P<plain>\d+(?:\.\d+)?))")


@lru_cache(maxsize=512)
def subscript_quantities(passage: str) -> dict[str, Stated]:
    """The numbers of each symbol's subscripts in a passage, by symbol."""
    if "_" not in passage:
        return {}
    found: dict[str, list[Quantity]] = {}
    for match in _SUBSCRIPT.finditer(passage):
        body = match.group("body") or match.group("plain") or ""
        if any(ch.isdigit() for ch in body):
            found.setdefault(match.group("symbol"), []).extend(quantities(body))
    return {symbol: Stated(tuple(items)) for symbol, items in found.items() if items}


def named_symbols(claim_text: str, passage: str) -> list[Stated]:
    """The subscript numbers of the symbols the claim names as words."""
    by_symbol = subscript_quantities(passage)
    return [stated for symbol, stated in by_symbol.items() if re.search(rf"\b{re.escape(symbol)}\b", claim_text)]
