"""A raised run after a symbol: an exponent (`10^4`, `T^4`, `∇^2`) or a note or citation mark
(`planets[3]`, `XO-2[23]`). PDFium gives both as smaller glyphs above the baseline; which one it is
depends on what stands before it (pdfscript.py and pdfplain.py write both kinds of line with it)."""

from __future__ import annotations

import unicodedata

from astro_cli.research.text.pdfchars import MATH_ITALIC_FONTS
from astro_cli.research.text.pdfglyphs import Glyph
from astro_cli.research.text.pdfwords import MATH_FUNCTIONS

_BETWEEN = frozenset("+−±∓=≠<>≤≥≈∼∝×·/√∣|")  # signs between terms, and the root: no power after them
_MATH_ITALIC = (*MATH_ITALIC_FONTS, "MSBM", "NEWTXMI", "TXMIAX")  # newtx math italic: a digit over it is a power
_MARKS = set("0123456789,–*∗⋆★†‡§¶ ")  # (⋆, U+22C6: MNRAS's \thanks mark by an author's name)
# units of length and angle, squared or cubed after a number; a note mark after them is rare
_AREA_UNITS = frozenset({"deg", "arcmin", "arcsec", "cm", "m", "km", "mm", "pc", "kpc", "Mpc", "Gpc", "au", "AU"})


def group(text: str) -> str:
    """A script's text: one character bare, more in braces."""
    return text if len(text) == 1 else "{" + text + "}"


def superscript(text: str, out: list[str], last: Glyph | None) -> str:
    """An exponent (`^4`) or a note or citation mark (`[3]`)."""
    if set(text) <= {"′", "″", "‴", "∗", "*", "⋆"} and text:
        return text  # primes and stars belong to their symbol
    if not set(text) <= _MARKS:
        return "^" + group(text)
    written = "".join(out)
    word = written.split()[-1] if written.split() else ""
    after_space = written.endswith((" ", "\x1f"))
    if after_space:
        return f"[{text}] "
    core = word.lstrip("(∼~≈×=<>")
    if len(text) == 1 and text.isalpha() and text.islower() and word[-1:] in ")0123456789":
        return f"[{text}]"  # a table note's letter after a value: 4.5(1.0)[e]
    if core == "10" or word.endswith((")", "]", "}")):
        return "^" + group(text)
    if core in MATH_FUNCTIONS and core not in _AREA_UNITS:
        return "^" + group(text)  # `sin^2`, `log^2`: an operator name's power, never a note
    if text in ("2", "3") and core in _AREA_UNITS and _after_number(written):
        return "^" + text  # an area or a volume: `5 × 5 deg^2`, `1 cm^3`, `100 Mpc^3`
    if last is not None and (_math_symbol(last) or len(core) == 1 and core.isalpha()):
        return "^" + group(text)
    return f"[{text}]"


def _math_symbol(glyph: Glyph) -> bool:
    """A glyph a raised number is the power of: a letter of a math italic font (cmmi and its kin,
    newtx's NewTXMI, Latin Modern's LMMathItalic10-Regular, which PDFium maps) or a mathematical
    symbol that takes a power (`∇^2`, `∆^2`, whatever font sets it; not a sign between two terms nor a
    root, after which a raised digit is a numerator read alone)."""
    char = glyph.char[-1:] or " "
    return glyph.family in _MATH_ITALIC or "MATHITALIC" in glyph.family \
        or (unicodedata.category(char) == "Sm" and char not in _BETWEEN)


def _after_number(written: str) -> bool:
    """The word before the unit is a number (`5`, `0.5`, `10^4`)."""
    words = written.split()
    before = words[-2] if len(words) > 1 else ""
    return before[:1].isdigit() and all(c.isdigit() or c in ".^{}−" for c in before)
