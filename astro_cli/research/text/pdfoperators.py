"""Big operators of a display formula and the limits TeX stacks over and under them (issue 44).

`\\sum_{n=1}^{N_s}` in display style is three pieces for PDFium: the extension font's `∑`, whose
origin is its top (it hangs across the line's axis), `N_s` centred above it and `n=1` centred
under it, each on a baseline of its own. Read as lines, they came out `∑`, `N_s`, `n=1` (or,
joined, `∑ N_s n = 1`, which reads as a product). The geometry says what they are: a piece set
smaller than the line and centred on a big operator the line just wrote is one of its limits,
written `∑_{n=1}^{N_s}`.
"""

from __future__ import annotations

from collections.abc import Callable

from astro_cli.research.text.pdfchars import EXTENSION_FONTS, math_char
from astro_cli.research.text.pdfglyphs import Glyph
from astro_cli.research.text.pdfroots import RADICAL

BIG_OPERATORS = frozenset("∑∏∐∫∮⋃⋂⋀⋁⊎⨀⨁⨂⊙⊕⊗")
_SIDE_LIMITS = frozenset("∫∮")  # TeX sets an integral's limits beside it, not over and under (no \limits)
_LOOK_BACK = 12  # glyphs of the line searched for the operator its limits belong to
_HANG = 1.6  # font sizes: the top of a display operator is at most this far above the line's baseline
_REACH = 2.6  # font sizes from an operator's top to the baseline of a limit over or under it


def big_operator(glyph: Glyph) -> bool:
    """A display-size operator of a math extension font (named from its raw code when need be)."""
    if glyph.family not in EXTENSION_FONTS or glyph.generated:
        return False
    return _named(glyph) in BIG_OPERATORS


def _named(glyph: Glyph) -> str:
    """The glyph's character, a math font's raw code named (pieces are joined before lines name them)."""
    return math_char(glyph.char, glyph.family) or glyph.char


def hangs_on(piece: list[Glyph] | None, base: float, size: float) -> bool:
    """`piece` is one big operator or root sign whose top (its origin) is above the line's baseline
    by less than an operator's height: it is set on that line, across its axis. (A big delimiter is not joined
    so: a matrix's parentheses would make its columns a table row, and its origin would move the
    line's baseline.)"""
    if not piece or len(piece) != 1 or not (big_operator(piece[0]) or _named(piece[0]) == RADICAL):
        return False  # a root sign hangs from its top too (`· √(1 − b^2)` read `·`, `√`, `1 − b^2`)
    return 0.0 <= piece[0].base - base <= _HANG * size


def limit_of(shown: list[Glyph], first: Glyph, last: Glyph) -> Glyph | None:
    """The big operator among the line's last glyphs (`shown`) that a piece running from `first`
    to `last`, set smaller than the operator's font, is centred on: over or under it, never beside."""
    if last.x1 < first.x0:
        return None
    middle = (first.x0 + last.x1) / 2
    for glyph in reversed(shown[-_LOOK_BACK:]):
        if glyph.x1 < middle - glyph.size:
            return None  # the line has moved on past any operator the piece could belong to
        if big_operator(glyph) and (glyph.x0 <= middle <= glyph.x1 or _beside(glyph, first.x0)) \
                and first.size < glyph.size - 0.2 \
                and abs(glyph.base - first.base) <= _REACH * glyph.size:
            return glyph
    return None


def after_limits(shown: list[Glyph], before: tuple[Glyph, Glyph], first: Glyph, base: float) -> bool:
    """A piece (starting with `first`, its text on `base`) goes on after an operator's limits (the
    piece `before`, its first and last glyphs): right of the operator, on the line it hangs across."""
    operator = limit_of(shown, *before)
    if operator is None:
        return False
    size = operator.size
    return first.x0 >= operator.x1 - 0.3 * size and first.x0 - before[1].x1 <= 3 * size \
        and 0.0 <= operator.base - base <= _HANG * size


def centred_on(run: list[Glyph], operator: Glyph) -> bool:
    """The run's solid glyphs are centred over or under `operator`, not set after it (`∑_i`); an
    integral's limits are set beside it."""
    solid = [g for g in run if not g.generated and g.char.strip()]
    if not solid:
        return False
    middle = (min(g.x0 for g in solid) + max(g.x1 for g in solid)) / 2
    start = min(g.x0 for g in solid)
    return (operator.x0 <= middle <= operator.x1 and start < operator.x1) \
        or (_beside(operator, start) and all(g.size < operator.size - 0.2 for g in solid))  # not a fraction's part


def _beside(operator: Glyph, start: float) -> bool:
    """A run starting at `start` is a limit set beside an integral sign: from inside the sign (the
    lower limit tucked under its slant, `∫_{−∞}^∞`) to half an em right of it."""
    return _named(operator) in _SIDE_LIMITS and operator.x0 <= start <= operator.x1 + 0.5 * operator.size


def write_limits(shown: list[Glyph], kinds: list[str], run: tuple[int, int], operator: Glyph, out: list[str],
                 limit: Callable[[list[Glyph]], str]) -> int:
    """Write the limits of a big operator, the run shown[i:j] and a run of the other kind centred on
    the same operator right after it, as `_{lower}^{upper}` (`limit` writes each, its own scripts
    kept: `{N_s}`). Returns where reading goes on."""
    i, j = run
    runs = {kinds[i]: shown[i:j]}
    k = j
    while k < len(shown) and shown[k].generated and kinds[k] == "main":
        k += 1
    m = k
    while m < len(shown) and kinds[m] not in ("main", kinds[i]):
        m += 1
    if m > k and centred_on(shown[k:m], operator):
        runs[kinds[k]] = shown[k:m]
        j = m
    while out and out[-1] == " ":
        out.pop()
    out.append("".join(f"{mark}{limit(runs[kind])}" for kind, mark in (("sub", "_"), ("sup", "^")) if kind in runs))
    if j < len(shown) and not shown[j].generated:
        out.append(" ")  # TeX's thin space after an operator's limits
    return j
