"""A numbered display formula left in pieces is marked whole: the reader could not lay it out.

TeX sets a display formula on one baseline, with its fractions, limits and big delimiters stacked
around it. When the line stage joins them, the formula is one line ending in its number ("... (5)").
When it does not (fonts it does not know as math, a matrix, a fraction in a root), PDFium's pieces
stay lines of their own: `σ^k(β^k) =` / `3H_0^2Ω_m` / `2c^2` / `χ^k` / `a^k` / ... / `dχ, (5)`,
which read as a product of terms that is not the formula. Such a run is found from its number
upwards: lines with no word of prose, at least two of them stubs (three words or fewer) or one in a
script's size or one the line stage already marked; the run stops at a line of prose, another
numbered line, a table row, a new block or section. Every line of the run is enclosed in one ⟦ ⟧
(the number stays outside: it is read right), as the general rule of docs/library.md says: a span
whose two-dimensional layout was not resolved is marked rather than written wrong.
"""

from __future__ import annotations

import re
from typing import Protocol, TypeVar

from astro_cli.research.text.pdfscript import APPROXIMATE, APPROXIMATE_END

_NUMBER = re.compile(r"^(.*?)\s*(\(\d{1,3}[a-z]?\))$")
_SCRIPT = re.compile(r"[_^]\{[^{}]*\}")
# a word of prose: three lower-case letters or more, standing alone; math functions are no prose
_WORD = re.compile(r"[a-z]{3,}")
_FUNCTIONS = frozenset({"exp", "log", "sin", "cos", "tan", "min", "max", "det", "diag", "lim", "sup", "inf",
                        "arg", "sinh", "cosh", "tanh", "erf", "mod", "sgn", "ker", "dim", "deg", "sec"})
_DELIMITERS = frozenset("()[]{}|⟨⟩")
MAX_RUN = 16  # lines of one display at most


class _Line(Protocol):
    page: int
    text: str
    section: str
    size: float
    starts_block: bool


L = TypeVar("L", bound=_Line)


def _unmarked(text: str) -> str:
    return text.replace(APPROXIMATE, "").replace(APPROXIMATE_END, "")


def _prose(text: str) -> bool:
    """A word of three lower-case letters or more standing alone (`T^2eff^+` is no word) that is no
    math function."""
    for token in _SCRIPT.sub(" ", text).split():
        word = token.strip(",.;:()[]")
        if _WORD.fullmatch(word) and word not in _FUNCTIONS:
            return True
    return False


def mark_broken_displays(lines: list[L], body: float, smaller: float) -> None:
    """Enclose in ⟦ ⟧ each numbered display formula that the line stage left in pieces (in place)."""
    for end, line in enumerate(lines):
        numbered = _NUMBER.match(_unmarked(line.text).strip())
        if not numbered or " | " in line.text or _prose(numbered.group(1)):
            continue
        start, stubs, sure_unsure = end, 0, APPROXIMATE in line.text  # the numbered line itself unsure
        while end - start < MAX_RUN and start > 0:
            above = lines[start - 1]
            text = _unmarked(above.text).strip()
            if (above.page != line.page or above.section != line.section or not text or _prose(text)
                    or " | " in above.text or _NUMBER.match(text) or lines[start].starts_block):
                break
            start -= 1
            stubs += len(text.split()) <= 3
            delimiter = len(text) == 1 and text in _DELIMITERS  # a big (, [ or ] alone: a sign, not a doubt
            sure_unsure |= (APPROXIMATE in above.text and not delimiter) \
                or bool(body and above.size and above.size < body - smaller)
        if start == end or not (stubs >= 2 or sure_unsure):
            continue
        for piece in lines[start:end]:
            piece.text = _unmarked(piece.text).strip()
        formula = numbered.group(1)
        lines[start].text = APPROXIMATE + lines[start].text
        if formula:
            line.text = f"{formula}{APPROXIMATE_END} {numbered.group(2)}"
        else:
            lines[end - 1].text += APPROXIMATE_END
            line.text = numbered.group(2)
