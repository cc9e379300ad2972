"""How pdfscript would write a piece whose runs (pdfruns.py) are all in text, read from the runs.

pdfscript.render_line writes a line from its glyphs; for a piece whose every run (one text
object: one font, size and baseline) is text it can name nothing in, the same text follows from the
runs alone: the piece's main size (the size most characters have) and baseline, each run's kind
against them (main, raised, lowered), and PDFium's characters. Two shapes are written here:

- everything on one baseline (prose, a reference, a small-capital heading, an inline `∼` next to its
  words): PDFium's own text;
- raised or lowered runs inside it (A_B, T_{eff}, 10^4, planets[3]): each group written as
  pdfscript writes a script (`_x`, `_{xy}`, an exponent or a `[3]` mark by pdfscript.superscript, a
  lone capital between capitals left a letter).

Anything else (a fraction or two scripts of one symbol, a space inside a script, a math font's raw
TeX code) is left to the careful path. tests/research/text/test_library_pdfruns.py compares both on every fixture page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from astro_cli.research.text.hyphens import SOFT_HYPHEN
from astro_cli.research.text.pdfchars import math_char
from astro_cli.research.text.pdfglyphs import MATH_FONTS, Glyph
from astro_cli.research.text.pdfparts import NESTED, kind_of
from astro_cli.research.text.pdfpowers import superscript
from astro_cli.research.text.pdfspacing import Run
from astro_cli.research.text.pdfwords import MATH_FUNCTIONS

TEXT_ONLY = frozenset((*MATH_FONTS, "TXSYA", "PXSYA"))  # fonts whose glyphs pdfchars.math_char names
_MATH_SET = frozenset(MATH_FONTS)
_OTHER_SPACE = re.compile(r"[^\S ]")  # whitespace other than a space: its glyph's kind is not known here
_SPACES = re.compile(" {2,}")
_LETTERS = re.compile(r"[^\W\d_]{3,}")  # candidates for three letters in a row (a superset of str.isalpha's)


def inline_math(text: str, start: int, runs: Sequence[Run]) -> bool:
    """A piece whose math-font runs pdfscript writes as PDFium has them: a word of three text-font
    letters in it (pdfglyphs.math_only would call it display mathematics otherwise) and no math-font
    glyph pdfchars.math_char names (a raw TeX code: such pieces are read character by character)."""
    parts = []  # the piece with its math-font characters masked: they count as no letter
    at = start
    for run in runs:
        family = run.font[1]
        if family in TEXT_ONLY and any(_names(char, family) for char in text[run.first:run.last + 1]):
            return False
        if run.font[1] in _MATH_SET:
            parts.append(text[at:run.first])
            parts.append("0" * (run.last + 1 - run.first))
            at = run.last + 1
    if not parts:
        return True  # no math font
    parts.append(text[at:runs[-1].last + 1])
    masked = "".join(parts)
    return any(_three_letters(found.group()) for found in _LETTERS.finditer(masked))


@lru_cache(maxsize=4096)
def _names(char: str, family: str) -> bool:
    """pdfchars.math_char names `char` of a font of `family` (its answer for each pair, kept)."""
    return math_char(char, family) is not None


def _three_letters(word: str) -> bool:
    """Three letters in a row that spell no operator name (str.isalpha, as pdfglyphs.math_scan counts
    them: `exp` and `det` are no word)."""
    letters = ""
    for char in word + " ":
        if char.isalpha():
            letters += char
        elif len(letters) >= 3 and letters not in MATH_FUNCTIONS:
            return True
        else:
            letters = ""
    return False


def main_size(text: str, runs: Sequence[Run]) -> float:
    """The size most of the piece's characters have (pdfglyphs.reference)."""
    size = runs[0].size
    if all(abs(run.size - size) <= 0.01 for run in runs):
        return size
    counts: dict[float, int] = {}
    for run in runs:
        counts[run.size] = counts.get(run.size, 0) + _inside(text, run)
    return max(counts, key=lambda s: (counts[s], s))


def scripted(text: str, start: int, end: int, runs: Sequence[Run],
             generated: Callable[[int], bool]) -> tuple[str, float, float] | None:
    """(text, main size, baseline) of a piece of text with raised or lowered runs, written as pdfscript
    writes it; None when it is not such a piece (a raised run against a lowered one: a fraction or
    T_0^4, a space inside a script). `generated(i)`: PDFium added the
    space at character i (a space of a font belongs to a text object, whose kind is not known here)."""
    if _OTHER_SPACE.search(text, start, end):
        return None
    counts: dict[float, int] = {}
    for run in runs:
        counts[run.size] = counts.get(run.size, 0) + _inside(text, run)
    size = next(iter(counts)) if len(counts) == 1 else max(counts, key=lambda s: (counts[s], s))
    base = _baseline(text, runs, size, len(counts) == 1)
    kinds = [kind_of(Glyph("x", 0.0, 0.0, run.base, run.size, run.font[0], run.font[1]), size, base) for run in runs]
    if all(kind == "main" for kind in kinds) or (kinds[-1] != "main" and SOFT_HYPHEN in text[runs[-1].last:end]):
        return None  # (PDFium's mark of a broken word after a script: its own glyph's kind is not known)
    if any(kind != "main" and run.size >= size * 0.88 for run, kind in zip(runs, kinds)):
        return None  # a script in the text's own size: text set at an angle, one glyph above the other?
    if any(kind != "main" and then == kind and abs(run.size - after.size) >= NESTED
           for run, after, kind, then in zip(runs, runs[1:], kinds, kinds[1:])):
        return None  # a script with a script of its own (`x_{H_2O}`): pdfscript places each glyph
    space = text.find(" ", start, end)
    while space >= 0:
        if not generated(space):
            return None
        space = text.find(" ", space + 1, end)
    groups: list[tuple[int, int, str]] = []  # (first, last, kind) of each script, one over adjacent runs
    family = {}  # a script's first character -> the font family of the main text just before it
    before = ""
    for run, kind in zip(runs, kinds):
        if kind == "main":
            before = run.font[1]
        elif groups and groups[-1][1] + 1 == run.first and groups[-1][2] == kind:
            groups[-1] = (groups[-1][0], run.last, kind)
        else:
            groups.append((run.first, run.last, kind))
            family[run.first] = before
    out: list[str] = []
    at = start
    previous = ""
    for first, last, kind in groups:
        between = text[at:first]
        group = text[first:last + 1]
        if " " in group or (between == " " and previous == kind) or (not between.strip() and previous):
            return None  # a space inside a script; two scripts of one symbol or a fraction
        out.append(between)
        following = text[last + 1] if last + 1 < end else ""
        if not "".join(out).strip():
            out.append(group + " ")  # a mark that opens the line: a footnote's number, read by pdftext
        elif len(group) == 1 and group.isupper() and between[-1:].isupper() and following.isupper():
            out.append(group)  # pdfscript._logo_letter
        elif kind == "sub":
            out.append("_" + (group if len(group) == 1 else "{" + group + "}"))
        else:
            out.append(superscript(group, out, Glyph("x", 0.0, 0.0, base, size, "", family[first])))
        at, previous = last + 1, kind
    out.append(text[at:end])
    return _SPACES.sub(" ", "".join(out)).strip(), size, base


def _inside(text: str, run: Run) -> int:
    """The characters of `run` that are not white space (its solid glyphs)."""
    return len("".join(text[run.first:run.last + 1].split()))


def _baseline(text: str, runs: Sequence[Run], size: float, one_size: bool) -> float:
    """pdfglyphs.reference's baseline: the median of the baselines of the characters in the main size
    (within 0.2 pt of it), every character counted once."""
    bases = sorted((run.base, _inside(text, run)) for run in runs if one_size or abs(run.size - size) < 0.2)
    middle = sum(count for _, count in bases) // 2
    for base, count in bases:
        if middle < count:
            return base
        middle -= count
    return bases[-1][0]
