"""How far a printed root reaches: the rule TeX draws over the radicand (issue 44).

A root sign is a glyph; the bar over what it covers is a ruled line, not a character, so PDFium's
text does not say where `√(1 − b^2)` ends, and `√r − r_c` reads as either √(r − r_c) or (√r) − r_c.
On a page with a root sign the page's thin horizontal rules are looked up once; a rule starting at a
root sign's right edge gives the sign its `reach`, and pdfscript.py closes the root there.
"""

from __future__ import annotations

import re
from typing import Any

from astro_cli.research.text.pdfglyphs import Glyph

RADICAL = "√"
_THIN = 1.5  # points: a vinculum is a rule of TeX's default thickness (0.4 pt), scaled at most a little
_TOUCH = 1.5  # points between a root sign's right edge and the start of its rule
_NUMBER = re.compile(r"\d+(?:\.\d+)?")  # `0.5/δ_{obs}`: a decimal number is one part too
_SCRIPT = r"(?:[^\s{}()\[\]/^_+−=<>,·]|\{[^{}]*\})"  # one character that is no bracket nor operator (0, ⋆, ⊙), or a group
_SYMBOL = re.compile(rf"\w(?:_{_SCRIPT})?(?:\^{_SCRIPT})?")  # one symbol and its scripts: P_0, M_⋆


def bare_part(text: str) -> bool:
    """A fraction's part or a radicand written without parentheses: one character, a number, or one
    symbol with its scripts (`2`, `10`, `0.5`, `P_0`, `a_∗`); anything longer is put in parentheses."""
    return len(text) == 1 or _NUMBER.fullmatch(text) is not None or _SYMBOL.fullmatch(text) is not None


def set_reach(page: Any, lines: list[Any]) -> None:
    """Give each root sign on the page's glyph lines the right end of the rule over its radicand."""
    signs = [g for line in lines if isinstance(line, list) for g in line if g.char == RADICAL]
    if not signs:
        return
    rules = _rules(page)
    for sign in signs:
        near = [r for r in rules if abs(r[0] - sign.x1) <= _TOUCH and abs(r[1] - sign.base) <= 3 * sign.size]
        if near:
            _, sign.roof, sign.reach = min(near, key=lambda r: (abs(r[0] - sign.x1), abs(r[1] - sign.base)))


def _rules(page: Any) -> list[tuple[float, float, float]]:
    """(left, height above the page bottom, right) of every thin horizontal path on the page (PDFium's
    own calls: the object wrappers of pypdfium2 cost four times as much on a page of 500 objects)."""
    import ctypes

    import pypdfium2.raw as raw

    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    boxes = ctypes.byref(left), ctypes.byref(bottom), ctypes.byref(right), ctypes.byref(top)
    found = []
    handle = page.raw
    for index in range(raw.FPDFPage_CountObjects(handle)):
        item = raw.FPDFPage_GetObject(handle, index)
        if raw.FPDFPageObj_GetType(item) != raw.FPDF_PAGEOBJ_PATH or not raw.FPDFPageObj_GetBounds(item, *boxes):
            continue
        if top.value - bottom.value <= _THIN and right.value - left.value > _THIN:
            found.append((left.value, (bottom.value + top.value) / 2, right.value))
    return found


def radicand_end(shown: list[Glyph], sign: int) -> int:
    """The index after the last glyph the root sign shown[sign] covers: those right of it, before
    the end of its rule and under it (a numerator set above the rule is not in it)."""
    root = shown[sign]
    end = sign + 1
    while end < len(shown):
        glyph = shown[end]
        if not glyph.generated and (glyph.x0 >= root.reach - 0.5 or glyph.base >= root.roof):
            break
        end += 1
    while end > sign + 1 and shown[end - 1].generated:
        end -= 1
    return end


def stacked(glyphs: list[Glyph]) -> bool:
    """Glyphs set one above another (a fraction): the root's radicand is then not one run. A symbol's
    own two scripts, both starting at its right edge, are not (`√(N_{photon}^2 + N_{detector}^2)`)."""
    solid = [g for g in glyphs if not g.generated and g.char.strip()]
    return any(a.x0 < b.x1 - 1 and b.x0 < a.x1 - 1 and abs(a.base - b.base) > 0.3 * max(a.size, b.size)
               and not _scripts_of_one(solid, a, b) for n, a in enumerate(solid) for b in solid[n + 1 :])


def _scripts_of_one(solid: list[Glyph], a: Glyph, b: Glyph) -> bool:
    """`a` and `b` are the two scripts of one symbol: smaller than it and starting at its right edge."""
    start = min(a.x0, b.x0)
    return any(g.size * 0.88 > max(a.size, b.size) and abs(a.x0 - b.x0) < 0.3 * g.size
               and abs(g.x1 - start) < 0.3 * g.size and b.base < g.base + 0.5 * g.size and a.base < g.base + 0.5 * g.size
               for g in solid)


def reaches(glyph: Glyph) -> bool:
    return glyph.char == RADICAL and glyph.reach > glyph.x1


_ENDS_RADICAND = frozenset(" ,.;:)]}=<>+−-±∓×·≈∼≡")


def lone_radicand(shown: list[Glyph], kinds: list[str], sign: int) -> bool:
    """Without its rule, a root is read with confidence only over one symbol (its own smaller scripts
    kept) that a space, the line's end or a sign other than `/` closes: `√5.`, `1/√2`,
    `T_{eff}/√a_∗ is`. Anything longer (`√2/π`, `√1 − 4 Q^2`) could end anywhere: its line is marked."""
    symbols = 0
    for glyph, kind in zip(shown[sign + 1 :], kinds[sign + 1 :]):
        if glyph.generated or glyph.char in _ENDS_RADICAND:
            break
        if kind == "main":
            symbols += 1
            if symbols > 1:
                return False
    else:
        return symbols == 1
    return symbols == 1


def roots_in_parts(shown: list[Glyph], kinds: list[str], size: float) -> None:
    """A root sign inside a fraction's part (`5√2` under `π^{1/4}`) hangs from the part's top, so its
    origin sits near the line's baseline and it read as the line's own glyph, cutting the part in two
    (`π^{1/4}/5√2`, a changed value). Between two glyphs of one part, touching the next, it is the part's."""
    for i in range(1, len(shown) - 1):
        if shown[i].char == RADICAL and kinds[i] == "main" and kinds[i - 1] == kinds[i + 1] != "main" \
                and abs(shown[i + 1].x0 - shown[i].x1) < 0.3 * size and not shown[i - 1].generated:
            kinds[i] = kinds[i + 1]
