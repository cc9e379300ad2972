"""A script's or a fraction part's glyphs written with their own scripts (pdfscript.py writes the
line around them): `N_{s}`, `∇_{β^k}`, `x_{H_2O}`, `(k_Ik_C)/(2τ^2)`.
"""

from __future__ import annotations

import re

from astro_cli.research.text.pdfchars import EXTENSION_FONTS
from astro_cli.research.text.pdfdisplay import overlap, same_start
from astro_cli.research.text.pdfglyphs import Glyph
from astro_cli.research.text.pdfpowers import group
from astro_cli.research.text.pdfroots import bare_part


def kind_of(glyph: Glyph, size: float, base: float) -> str:
    """'sup', 'sub' or 'main': a glyph against its line's main size and baseline."""
    if glyph.base == base and glyph.size == size:
        return "main"  # on the line's baseline in its size (most glyphs)
    if not glyph.generated and glyph.size > 1 and size and glyph.family not in EXTENSION_FONTS:
        lift = glyph.base - base
        smaller = glyph.size < size * 0.88
        if (smaller and lift > size * 0.12) or lift > size * 0.45:
            return "sup"
        if (smaller and lift < -size * 0.08) or lift < -size * 0.45:
            return "sub"
    return "main"


def limit(run: list[Glyph]) -> str:
    """An operator's limit as a script's group, its own scripts kept (`{N_s}`), placed against its
    own largest size."""
    solid_run = [g for g in run if not g.generated and g.char.strip()]
    size = max((g.size for g in solid_run), default=0.0)
    bases = sorted(g.base for g in solid_run if abs(g.size - size) < 0.2)
    if not bases or all(abs(g.size - size) < 0.2 for g in solid_run):
        return group(text_of(run).replace(" ", ""))
    return group(scripted(run, size, bases[len(bases) // 2]))


_PRIMES = frozenset("′″‴")  # set smaller, but of their symbol: `f_{ℓ,ℓ′}`
# a script inside a script is set a size smaller: at 9 pt TeX takes 6 pt and 5 pt, which PDFium
# gives as 5.98 and 4.98 (`x_{H_2O}` read `x_{H2O}` with a threshold of a full point)
NESTED = 0.9


def script(run: list[Glyph]) -> str:
    """A script's group; one with a script of its own (glyphs of two sizes NESTED or more apart)
    keeps it: `∇_{β^k}`, not `∇_{βk}`; `x_{H_2O}`, not `x_{H2O}`."""
    sizes = [g.size for g in run if not g.generated and g.char.strip() and g.char not in _PRIMES]
    return limit(run) if sizes and max(sizes) - min(sizes) >= NESTED else group(text_of(run))


def text_of(run: list[Glyph]) -> str:
    return "".join(" " if g.generated else g.char for g in run).strip()


def part(run: list[Glyph]) -> str:
    """A fraction's numerator or denominator, its own scripts kept (`P_0`, `2τ^2`, issue 44): each
    glyph is placed against the part's largest size and that size's baseline, as a line's are.
    A part of more than one symbol is put in parentheses: `ln(P/P_0)`, `(k_Ik_C)/(2τ^2)`."""
    solid_run = [g for g in run if not g.generated and g.char.strip()]
    size = max((g.size for g in solid_run), default=0.0)
    bases = sorted(g.base for g in solid_run if abs(g.size - size) < 0.2)
    scripts = any(abs(g.size - size) >= 0.2 for g in solid_run)
    text = scripted(run, size, bases[len(bases) // 2]) if scripts else text_of(run)
    return text if bare_part(text) else f"({text})"


def scripted(run: list[Glyph], size: float, base: float) -> str:
    """The glyphs of `run` with their scripts, each placed against (size, base). Two scripts stacked
    on one symbol are written subscript first, as everywhere else (`C_{l′}^{EE}`, not `C^{EE}_{l′}`);
    a stack after an operator or a space is no symbol's and stays as PDFium gives it."""
    segments: list[tuple[str, list[Glyph]]] = []
    kinds = [kind_of(glyph, size, base) for glyph in run]
    for n, glyph in enumerate(run):
        now = kinds[n]
        if glyph.generated:  # a space stays in a script only between two glyphs of it (`x_i − x_j`, not `x_{i }−`)
            kind = segments[-1][0] if segments else "main"
            ahead = next((m for m in range(n + 1, len(run)) if not run[m].generated), None)
            after = kinds[ahead] if ahead is not None else "main"
            now = kind if after == kind else "main"
            if kind != "main" and ahead is not None and after == "main" \
                    and run[ahead].x0 - segments[-1][1][-1].x1 < 0.15 * size:
                continue  # `(k_Ct)/τ`: closer than TeX's thin space after a script is no space
        if segments and segments[-1][0] == now:
            segments[-1][1].append(glyph)
        else:
            segments.append((now, [glyph]))
    for n in range(1, len(segments) - 1):
        (kind, glyphs), (then, following) = segments[n], segments[n + 1]
        symbol = segments[n - 1][1][-1]  # what they stand on: a letter or a closing bracket, not `+ `
        if kind == "sup" and then == "sub" and (overlap(glyphs, following) or same_start(glyphs, following, size)) \
                and not symbol.generated \
                and (symbol.char[-1:].isalnum() or symbol.char in ")]′"):
            segments[n], segments[n + 1] = segments[n + 1], segments[n]
    out: list[str] = []
    for kind, glyphs in segments:
        text = "".join(" " if g.generated else g.char for g in glyphs)
        if kind == "sup" and text and set(text) <= _PRIMES:
            kind = "main"  # a prime belongs to its symbol, in a part as on the line (`Gm′`, not `Gm^′`)
        out.append(text if kind == "main" else ("_{" if kind == "sub" else "^{") + text + "}")
    return re.sub(r"([_^])\{(\S)\}", r"\1\2", "".join(out).strip())
