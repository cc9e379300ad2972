"""When a display line joined from pieces is written with confidence, and two readings of display
fractions (issue 44, stop 54).

A line of display mathematics from several of PDFium's pieces was marked ⟦ ⟧ whole, however well
its parts were placed: `g(C) = [(m_1/(1 + e^{sδ}))+...]^δ, (4)`, read right, was marked as a
guess. A guess is now what the writer could not place: no whole relation on the line (a fragment),
a script of a script (TeX's third level, flattened: `10^{μz·z}`), a root whose rule was not found.
"""

from __future__ import annotations

from astro_cli.research.text.pdfchars import EXTENSION_FONTS, math_char
from astro_cli.research.text.pdfglyphs import Glyph
from astro_cli.research.text.pdfroots import RADICAL, reaches

_RELATIONS = frozenset("=≈≡∝≃∼<>≤≥≪≫")
_FACTORS = frozenset("∇∂")  # symbols that open a factor as a letter does
_GOES_ON = frozenset("+−×")  # signs between terms that open the next line of a relation
_OPENS, _CLOSES = frozenset("([{⟨"), frozenset(")]}⟩")


def settled(glyphs: list[Glyph], size: float) -> bool:
    """A display line joined from pieces whose layout is no guess: a whole relation (a relation sign
    on the baseline, glyphs of the line's size on both sides of it) or the next line of one (opening
    with a sign between terms or a relation), and no script of a script (a glyph set smaller than a
    script's size: TeX's third level, which the writer flattens), nor a root whose rule was not found
    (its reach is a guess: `√4 Q^2 − 1`)."""
    if any(g.char == RADICAL and not reaches(g) for g in glyphs) or not _balanced(glyphs):
        return False
    shown = [g for g in glyphs if not g.generated and g.char.strip() and g.family not in EXTENSION_FONTS]
    if any(g.size < 0.6 * size for g in shown):
        return False
    own = [g for g in shown if abs(g.size - size) < 0.2]
    if len(own) > 4 and (own[0].char in _GOES_ON or own[0].char in _RELATIONS) and any(g.char.isalpha() for g in own):
        return True  # the next line of a relation (`+ ∑_{m=1}^{N_ℓ} A_m sin(...)`)
    at = next((i for i, g in enumerate(own) if g.char in _RELATIONS), None)
    return at is not None and 0 < at < len(own) - 1


def _balanced(glyphs: list[Glyph]) -> bool:
    """Every bracket the line opens it closes, after it opens it: a big delimiter left on a line of
    its own leaves its partner alone here (`+ exp −λ^2/2(ω + ...)^2)]`)."""
    depth = 0
    for glyph in glyphs:
        if glyph.generated:
            continue
        char = glyph.char
        if len(char) == 1 and glyph.family in EXTENSION_FONTS:
            char = math_char(char, glyph.family) or char  # cmex's codes: `\x12` is a big `(`
        for c in char:
            if c in _OPENS:
                depth += 1
            elif c in _CLOSES:
                depth -= 1
                if depth < 0:
                    return False
    return depth == 0


def factor_at(shown: list[Glyph], at: int) -> bool:
    """A factor begins at `at` (a letter, a digit, ∇ or ∂), so a fraction before it ends with a space."""
    return at < len(shown) and (shown[at].char[:1].isalnum() or shown[at].char[:1] in _FACTORS)


def over_root(top: list[Glyph], bottom: list[Glyph], root: Glyph) -> bool:
    """A fraction whose denominator is a root: its radicand set right after the sign, below the line,
    and the numerator centred over the sign and the radicand together (TeX centres the shorter part),
    not over the radicand alone. Read as a note and a script before (`√[1]_{(2π)^n det(Σ)}`)."""
    a = [g for g in top if not g.generated and g.char.strip()]
    b = [g for g in bottom if not g.generated and g.char.strip()]
    if not a or not b or not 0 <= b[0].x0 - root.x1 < 0.3 * root.size:
        return False
    over = (min(g.x0 for g in a) + max(g.x1 for g in a)) / 2
    under = (root.x0 + max(g.x1 for g in b)) / 2
    return abs(over - under) < 0.15 * root.size and max(g.x1 for g in a) - min(g.x0 for g in a) < under - root.x0


def root_denominator(shown: list[Glyph], kinds: list[str], top: list[Glyph], at: int, size: float) -> int:
    """Where the radicand ends when a raised run is the numerator of a display fraction whose denominator
    is a root of the line's size: the sign at `at` (hanging from its top, it sits on the line's baseline),
    its radicand lowered right after it, the numerator centred over both (sfrd2023's `β = α/√(1 + α^2)`
    read `β =^α√(1 + α^2)`, the numerator as a power). 0 when not."""
    if at >= len(shown) or shown[at].char != RADICAL or kinds[at] != "main":
        return 0
    end = at + 1
    while end < len(shown) and kinds[end] == "sub":
        end += 1
    bottom = shown[at + 1:end]
    return end if bottom and over_root(top, bottom, shown[at]) else 0
