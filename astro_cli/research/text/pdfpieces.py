"""A numbered display formula left in pieces is marked whole: the reader could not lay it out.

TeX sets a display formula on one baseline, with its fractions, limits and big delimiters stacked
around it. When the line stage joins them, the formula is one line ending in its number ("... (5)").
When it does not (fonts it does not know as math, a matrix, a fraction in a root), PDFium's pieces
stay lines of their own: `σ^k(β^k) =` / `3H_0^2Ω_m` / `2c^2` / `χ^k` / `a^k` / ... / `dχ, (5)`,
which read as a product of terms that is not the formula. Such a run is found from its number
upwards: lines with no word of prose, at least two of them stubs (three words or fewer) or one in a
script's size or one the line stage already marked; the run stops at a line of prose, another
numbered line, a table row, a new block or section. Every line of the run, its number's too, is
enclosed in one ⟦ ⟧, as the general rule of docs/library.md says: a span
whose two-dimensional layout was not resolved is marked rather than written wrong. An unnumbered
display is found the same way from a line of math that ends in a relation (`G_0 =` / `2` / `p` / ...).
"""

from __future__ import annotations

import re
from typing import TypeVar

from astro_cli.research.text.pdfcaptions import PageLine
from astro_cli.research.text.pdfscript import APPROXIMATE, APPROXIMATE_END
from astro_cli.research.text.pdfwords import MATH_FUNCTIONS

_NUMBER = re.compile(r"^(.*?)\s*(\([1-9]\d{0,2}[a-z]?\))$")  # (0) ends a figure's axis label, k(τ)/k(0)
_SCRIPT = re.compile(r"[_^]\{[^{}]*\}")
# a word of prose: three lower-case letters or more, standing alone; math functions are no prose
_WORD = re.compile(r"[a-z]{3,}")
# words of prose a formula's line never holds, short or opening a sentence (`as,` / `Let`)
_SHORT_WORDS = frozenset({"as", "is", "of", "in", "to", "by", "or", "on", "at", "we", "be", "if", "it", "an", "so",
                          "let", "then", "where", "with", "thus", "hence", "since", "for", "and", "the", "this",
                          "here", "using", "note"})
_NAME = re.compile(r"[A-Z][a-z]{2,}")
_DELIMITERS = frozenset("()[]{}|⟨⟩")
_RELATIONS = ("=", "≈", "≡", "∝", "≃", "∼", "<", ">", "≤", "≥")
MAX_RUN = 16  # lines of one display at most


L = TypeVar("L", bound=PageLine)


def _unmarked(text: str) -> str:
    return text.replace(APPROXIMATE, "").replace(APPROXIMATE_END, "")


def _prose(text: str) -> bool:
    """A word of three lower-case letters or more standing alone (`T^2eff^+` is no word) that is no
    math function."""
    names = 0
    for token in _SCRIPT.sub(" ", text).split():
        word = token.strip(",.;:()[]")
        if (_WORD.fullmatch(word) and word not in MATH_FUNCTIONS) or word.lower() in _SHORT_WORDS:
            return True
        names += _NAME.fullmatch(word) is not None
    return names >= 2  # `© 2024 The Authors`; one such word may be a symbol that lost its script (`Porb`)


def _piece(line: PageLine, numbered: PageLine) -> str | None:
    """The line's text without marks when it can be a piece of the numbered line's formula."""
    text = _unmarked(line.text).strip()
    if (line.page != numbered.page or line.section != numbered.section or not text or _prose(text)
            or " | " in line.text or _NUMBER.match(text)):
        return None
    return text


def _unsure(line: PageLine, text: str, body: float, smaller: float) -> bool:
    """A piece in a script's size, or one the line stage marked (a big delimiter alone is only a sign)."""
    delimiter = len(text) == 1 and text in _DELIMITERS
    return (APPROXIMATE in line.text and not delimiter) or bool(body and line.size and line.size < body - smaller)


def _stray(text: str) -> bool:
    """A stub of symbols right above a numbered line, with no relation of its own (`k_C t` over
    `τ = ln (P/P_0) ...`): a part of that line's formula PDFium gave apart, so the line's layout was
    not resolved even when the line stage found it whole."""
    return len(text.split()) <= 3 and any(c.isalnum() for c in text) and not any(r in text for r in _RELATIONS) \
        and not text.endswith(":")  # the end of the sentence that introduces the display (`δ_{obs}:`)


def _enclose(lines: list[L], start: int, end: int) -> None:
    """One ⟦ ⟧ around lines[start:end], their own marks taken out."""
    for piece in lines[start:end]:
        piece.text = _unmarked(piece.text).strip()
    lines[start].text = APPROXIMATE + lines[start].text
    lines[end - 1].text += APPROXIMATE_END


def _pieces_below(lines: list[L], top: int, line: L, body: float, smaller: float) -> tuple[int, int, bool]:
    """The pieces of math under line `top`, up to prose or a new block: (the first line past them, how many
    are stubs of at most three words, whether any is unsure)."""
    below, stubs, unsure = top + 1, 0, False
    while below < len(lines) and below - top <= MAX_RUN and not lines[below].starts_block:
        piece = _piece(lines[below], line)
        if piece is None:
            break
        stubs += len(piece.split()) <= 3
        unsure |= _unsure(lines[below], piece, body, smaller)
        below += 1
    return below, stubs, unsure


def _mark_open_relations(lines: list[L], body: float, smaller: float) -> None:
    """An unnumbered display left in pieces: a line of math ending in a relation (`G_0 =`), then pieces
    (`2` / `p` / ...), up to prose. Marked as a numbered one is, on the same evidence."""
    for start, line in enumerate(lines):
        if not line.text.rstrip(APPROXIMATE_END + " ").endswith(_RELATIONS):
            continue
        text = _piece(line, line)
        if text is None or APPROXIMATE in line.text:
            continue
        below, stubs, unsure = _pieces_below(lines, start, line, body, smaller)
        numbered = below < len(lines) and _NUMBER.match(_unmarked(lines[below].text).strip()) is not None
        if below - start >= 3 and (stubs >= 2 or unsure) and not numbered:
            _enclose(lines, start, below)


def mark_broken_displays(lines: list[L], body: float, smaller: float) -> None:
    """Enclose in ⟦ ⟧ each numbered display formula that the line stage left in pieces (in place):
    the pieces above its number, and an unnumbered rest below it (`= 1/√(...)` / `exp(...)`)."""
    taken = -1  # lines up to this one belong to a formula already looked at
    for end, line in enumerate(lines):
        if not line.text.rstrip(APPROXIMATE_END + " ").endswith(")"):
            continue  # most lines: no number at their end (one look before any pattern)
        numbered = _NUMBER.match(_unmarked(line.text).strip())
        if not numbered or " | " in line.text or _prose(numbered.group(1)) \
                or (body and line.size and abs(line.size - body) > smaller):  # a figure's labels
            continue
        start, stubs, unsure = end, 0, APPROXIMATE in line.text  # the numbered line itself unsure
        while end - start < MAX_RUN and start - 1 > taken and not lines[start].starts_block:
            text = _piece(lines[start - 1], line)
            if text is None:
                break
            start -= 1
            stubs += len(text.split()) <= 3
            unsure |= _unsure(lines[start], text, body, smaller) or (start == end - 1 and _stray(text))
        if start < end and (stubs >= 2 or unsure):
            _enclose(lines, start, end + 1)  # its number too, as the line stage marks a formula's line
        taken = end
        below, stubs, unsure = _pieces_below(lines, end, line, body, smaller)
        ends_in_number = below < len(lines) and _NUMBER.match(_unmarked(lines[below].text).strip()) is not None
        if below > end + 1 and (stubs >= 2 or unsure) and not ends_in_number:  # else: the next formula's pieces
            _enclose(lines, end + 1, below)
            taken = below - 1
    _mark_open_relations(lines, body, smaller)
