"""Display fractions whose parts are set in the line's own size (issue 44).

`\\frac{...}{...}` in a display sets numerator and denominator in the text's size, one above and one
below the line's baseline: `k_{ij} = A exp[(−(x_i − x_j)^2)/(2l^2)]`. Two things went wrong. The
denominator, which PDFium gives after the numerator and further left, was not joined to the line
(only a denominator under the *end* of its numerator was); and a numerator with more glyphs than
the line's own took the line's baseline, so the symbol before the fraction read as a script
(`kij`). The geometry says which is which: glyphs of one size on three baselines, the top and the
bottom set over one another, the middle beside them, is a fraction on the middle one.
"""

from __future__ import annotations

from collections.abc import Callable

from astro_cli.research.text.pdfchars import EXTENSION_FONTS
from astro_cli.research.text.pdfglyphs import Glyph
from astro_cli.research.text.pdfroots import RADICAL

_STEP = (0.45, 0.95)  # font sizes between a display fraction's part and the line's baseline (lines of prose: 1.1 or more)
_LOOK_BACK = 40  # glyphs of the line searched for the numerator over a piece


def fraction_baseline(shown: list[Glyph], size: float, base: float) -> float:
    """The line's baseline when `base` is the numerator's (or the denominator's) of a display
    fraction whose parts are of `size`: the baseline between the two parts, on which glyphs of
    that size stand beside the fraction. Otherwise `base`. PDFium gives each part a piece of its own,
    so a line of one piece is passed over at once (most lines)."""
    if not shown or shown[0].piece == shown[-1].piece:
        return base
    own = [g for g in shown if abs(g.size - size) < 0.2 and g.family not in EXTENSION_FONTS
           and not g.generated and g.char.strip()]
    low, high = _STEP[0] * size, _STEP[1] * size
    if not any(low <= abs(g.base - base) <= 2 * high for g in own):
        return base  # most lines: every glyph of the size on one baseline
    for sign in (-1.0, 1.0):  # base the numerator's (the middle below it), or the denominator's
        middle = [g for g in own if low <= sign * (g.base - base) <= high]
        if not middle:
            continue
        line = min((g.base for g in middle), key=lambda b: abs(abs(b - base) - (low + high) / 2))
        other = [g for g in own if low <= sign * (g.base - line) <= high]
        part = [g for g in own if abs(g.base - base) < 0.1 * size]
        beside = [g for g in own if abs(g.base - line) < 0.1 * size]
        if other and _over(part, other) and not _over(beside, part + other):
            return line
    return base


def under_numerator(shown: list[Glyph], first: Glyph, last: Glyph, start: float) -> bool:
    """A piece (from `first` to `last`) goes under a numerator of the line that starts at `start`:
    glyphs of the piece's size over it, a fraction's two steps above its baseline, with glyphs of
    that size on the baseline between (the line's own, beside the fraction). A line of prose under
    another has nothing between them and starts where it does, so it is never taken for one."""
    size = first.size
    if last.x1 < first.x0 or first.x0 <= start + size:
        return False
    recent = [g for g in shown[-_LOOK_BACK:] if abs(g.size - size) < 0.2 and not g.generated
              and g.family not in EXTENSION_FONTS and g.char.strip() and g.char != RADICAL]
    low, high = _STEP[0] * size, _STEP[1] * size
    tops = {g.base for g in recent if g.x0 < last.x1 and g.x1 > first.x0 and 2 * low <= g.base - first.base <= 2 * high}
    return any(low <= top - g.base <= high and low <= g.base - first.base <= high for top in tops for g in recent)


def _over(top: list[Glyph], bottom: list[Glyph]) -> bool:
    """Some glyph of `top` overlaps some glyph of `bottom` from left to right."""
    if not top or not bottom:
        return False
    left, right = min(g.x0 for g in top), max(g.x1 for g in top)
    return any(g.x0 < right and g.x1 > left for g in bottom)


def parts_meet(first: list[Glyph], second: list[Glyph]) -> bool:
    """A display fraction's parts, of the line's size: one set over the other, whatever their widths
    (a text fraction's parts must overlap from their first glyphs: overlap)."""
    a = [g for g in first if not g.generated]
    b = [g for g in second if not g.generated]
    return bool(a and b) and min(g.x0 for g in b) < max(g.x1 for g in a) and min(g.x0 for g in a) < max(g.x1 for g in b)


def same_start(first: list[Glyph], second: list[Glyph], size: float) -> bool:
    """Two scripts set from one x, one over the other, whatever their widths (`∇^2` over `_{β^k}`)."""
    a = [g.x0 for g in first if not g.generated]
    b = [g.x0 for g in second if not g.generated]
    return bool(a and b) and abs(min(a) - min(b)) < 0.3 * max(size, 1.0)


def overlap(first: list[Glyph], second: list[Glyph]) -> bool:
    """A text fraction's parts: the second set under the first from their first glyphs on."""
    a = [g for g in first if not g.generated]
    b = [g for g in second if not g.generated]
    if not a or not b:
        return False
    return min(g.x1 for g in a) > min(g.x0 for g in b) - 0.5 and max(g.x0 for g in b) < max(g.x1 for g in a) + 0.5 \
        and min(g.x0 for g in b) < max(g.x1 for g in a)


def root_fraction(run: list[Glyph], kinds: list[str], part: Callable[[list[Glyph]], str]) -> str | None:
    """A radicand that is one fraction, its numerator raised and its denominator lowered against the
    line, one set over the other: `(a/b)` (each part written by `part`), so the root reads
    `√(F_a/F_b)`, not `√ F_a/F_b`; None when the radicand is anything else."""
    solid_kinds = [kind for glyph, kind in zip(run, kinds) if not glyph.generated]
    if not solid_kinds or "main" in solid_kinds:
        return None
    split = next((n for n, (glyph, kind) in enumerate(zip(run, kinds))
                  if not glyph.generated and kind != solid_kinds[0]), None)
    if split is None or solid_kinds[0] in [k for g, k in zip(run[split:], kinds[split:]) if not g.generated]:
        return None
    first, second = run[:split], run[split:]
    top, bottom = (first, second) if solid_kinds[0] == "sup" else (second, first)
    return f"({part(top)}/{part(bottom)})" if parts_meet(top, bottom) else None


_OPENS = {")": "(", "]": "[", "}": "{", "⟩": "⟨"}


def closes_delimiter(shown: list[Glyph], piece: list[Glyph], last: Glyph) -> bool:
    """`piece` opens with a big closing delimiter (a math extension font's, which hangs from its
    top, so its origin is no baseline) right after the line's last glyph `last`, and the line holds
    the big opening one it closes, hung at the same height: `(R_∗/R_p)^2`, not `(R_∗/R_p` and a
    line `)_2`. (A big delimiter that closes nothing of its line is not joined: a matrix's.)"""
    first = piece[0] if piece else None
    if first is None or first.family not in EXTENSION_FONTS or first.char not in _OPENS:
        return False
    if not -0.1 * first.size <= first.x0 - last.x1 <= first.size:
        return False
    depth = 0
    for glyph in reversed(shown[-_LOOK_BACK:]):
        if glyph.family in EXTENSION_FONTS and abs(glyph.base - first.base) < 0.1 * first.size:
            if glyph.char == first.char:
                depth += 1
            elif glyph.char == _OPENS[first.char]:
                if not depth:
                    return True
                depth -= 1
    return False

