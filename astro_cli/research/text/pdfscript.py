"""One visual line of a PDF written as text that keeps its values: scripts, fractions, marks, cells.

The conventions (docs/library.md, "How math and tables are written"):
- a superscript is `^x`, or `^{...}` when longer than one character: 10⁴ -> `10^4`, 10⁻⁴ ->
  `10^{−4}`; a subscript `_x` / `_{...}`: A_g, T_{eq}; a prime stays a prime (t′);
- a stacked fraction is `a/b`, parts of more than one character in parentheses: ½ -> `1/2`;
- a raised number after a word (a footnote or a citation mark) is `[3]`, never fused into the word
  or a designation: `planets[3]`, `lattice[4]`, `XO-2[23]`;
- a table row keeps its cells apart: ` | ` where the line has two or more wide gaps;
- a display formula built from pieces PDFium cannot place (big delimiters, roots, stacked limits)
  is enclosed in `⟦ ⟧`, so the model does not take its characters at face value (parse_paper
  says what the brackets mean; a symbol, not a word, so it does not sway the search).
A raised mark that opens the line (a footnote's own number) is left as it is: pdftext.py reads it.
"""

from __future__ import annotations

import re
import unicodedata

from astro_cli.research.text.pdfcells import cell_gap, label_and_value, numeric, stacked_errors, table_row
from astro_cli.research.text.pdfchars import (
    EXTENSION_FONTS,
    MATH_ITALIC_FONTS,
    SPACING_ACCENTS,
    SYMBOL_FONTS,
    math_char,
)
from astro_cli.research.text.pdfdisplay import (
    fraction_baseline,
    overlap,
    parts_meet,
    root_fraction,
    same_start,
)
from astro_cli.research.text.pdfglyphs import Glyph, math_only, reference
from astro_cli.research.text.pdfoperators import big_operator, centred_on, write_limits
from astro_cli.research.text.pdfparts import kind_of, limit, part, script, text_of
from astro_cli.research.text.pdfpowers import group, superscript
from astro_cli.research.text.pdfroots import (
    RADICAL,
    lone_radicand,
    radicand_end,
    reaches,
    roots_in_parts,
    stacked,
)
from astro_cli.research.text.pdfsettled import factor_at, over_root, root_denominator, settled
from astro_cli.research.text.pdfspacing import no_space, own_script, thin_space

APPROXIMATE, APPROXIMATE_END = "⟦", "⟧"  # around a formula whose layout was guessed
_UNSURE = "\x1e"  # before a root sign whose reach is not known, until its word is marked
_UNSURE_WORD = re.compile(r"(\S*\x1e\S*?)([,.;:]*(?:\s|$))")
_NO_TEXT = EXTENSION_FONTS
_RELATIONS = frozenset("=<>≈∼≡≤≥∝")  # TeX sets a thick space after these, also before a root sign
_NAMING = frozenset((*SYMBOL_FONTS, *EXTENSION_FONTS, *MATH_ITALIC_FONTS, "MSAM", "TXSYA", "PXSYA", "MSBM"))


def render_line(glyphs: list[Glyph], known: tuple[float, float] | None = None) -> tuple[str, float, float]:
    """(text, size of its main text, size of its first character). `known`: pdfglyphs.reference(glyphs),
    when the caller has it (pdfruns.PageLines.references)."""
    size, base = reference(glyphs) if known is None else known
    uncertain = _name_math(glyphs)
    if any(g.turned for g in glyphs):  # rotated text: its characters in order, no scripts
        text = "".join(g.char for g in glyphs)
        return text.strip(), size, size
    formula = math_only(glyphs)
    big = formula and any(g.family in _NO_TEXT for g in glyphs)  # even when its gaps look like cells
    whole = (formula and (len({g.piece for g in glyphs}) > 1 or big)) and settled(glyphs, size)
    # a table row is not a formula; but a whole relation with a big operator or delimiter is one, its
    # wide gaps those of TeX's limits and closing space (`= −∫_m^M dm′ (...) ,` was three cells)
    display = formula and ((big and whole) or not table_row(glyphs, size))
    if (display or big) and (len({g.piece for g in glyphs}) > 1 or big) and not whole:
        uncertain = True  # mathematics from several pieces or with big delimiters: its layout is guessed
    if _attach_accents(glyphs):
        formula = math_only(glyphs)
    shown = [g for g in glyphs if g.char]
    first = next((g.size for g in shown if not g.generated and g.char.strip()), size)
    kinds = _kinds(shown, size, base)
    if ("sup" in kinds or "sub" in kinds) and (moved := fraction_baseline(shown, size, base)) != base:
        base, kinds = moved, _kinds(shown, size, moved)  # a display fraction's numerator outnumbered the line
    shown, kinds = _script_words(shown, kinds)
    roots_in_parts(shown, kinds, size)
    out: list[str] = []
    cells = 0
    last_main: Glyph | None = None
    right = None  # where the last character written ends (a gap is measured from it)
    values = numeric(shown)
    gap_of_cells = cell_gap(shown, kinds, size, formula, values)
    i = 0
    while i < len(shown):
        glyph, kind = shown[i], kinds[i]
        if kind == "main":
            if glyph.generated:
                after = shown[i + 1] if i + 1 < len(shown) else None
                if out and not out[-1].endswith((" ", "\x1f")) and not (
                        last_main is not None and right == last_main.x1 and after is not None
                        and (no_space(last_main, after, size) if kinds[i + 1] == "main"
                             else own_script(last_main, after, size))) \
                        and not (after is not None and kinds[i + 1] == "main" and last_main is not None
                                 and right is not None and right != last_main.x1
                                 and no_space(last_main, after, size, right)):
                    out.append(" ")
            else:
                gap = glyph.x0 - right if right is not None else 0.0
                if gap > gap_of_cells and (gap > 2 * gap_of_cells or not "".join(out).rstrip().endswith((".", ",", ";", ":"))):
                    while out and out[-1] == " ":
                        out.pop()
                    out.append("\x1f")
                    cells += 1
                elif last_main is not None and right == last_main.x1 and out and out[-1] == last_main.char \
                        and thin_space(last_main, glyph, size):
                    out.append(" ")  # log g, v sin i, 14 m s^{−1}: TeX's thin space, where PDFium put none
                elif glyph.family in EXTENSION_FONTS and right is not None and glyph.x0 - right >= 0.15 * size \
                        and (big_operator(glyph) or glyph.char == RADICAL and "".join(out).rstrip()[-1:] in _RELATIONS) \
                        and out and not out[-1].endswith((" ", "/", "(", "[", "{")):
                    out.append(" ")  # `+ ∑_{n=1}^{N_s}`, `= √(...)`: the space TeX sets around `+`, `=`
                out.append(glyph.char)
                last_main, right = glyph, glyph.x1
                if reaches(glyph):  # √(1 − b^2): the radicand is what the root's rule covers
                    end = radicand_end(shown, i)
                    if end > i + 1 and (over := root_fraction(shown[i + 1 : end], kinds[i + 1 : end], part)):
                        out.append(over)  # √(F_a/F_b): a fraction, and nothing else, under the rule
                        right = _right(shown[i + 1 : end], right)
                        i = end
                        continue
                    if stacked(shown[i + 1 : end]) or end == i + 1:
                        uncertain = True  # a fraction under the root, or a radicand on another line
                    else:
                        out.append(part(shown[i + 1 : end]))
                        right = _right(shown[i + 1 : end], right)
                        i = end
                        continue
                elif glyph.char == RADICAL and not lone_radicand(shown, kinds, i):
                    out.insert(len(out) - 1, _UNSURE)  # no rule found: `√2/π` may be √(2/π)
            i += 1
            continue
        j = i
        while j < len(shown) and kinds[j] == kind:
            j += 1
        run = shown[i:j]
        if last_main is not None and big_operator(last_main) and centred_on(run, last_main):
            i = write_limits(shown, kinds, (i, j), last_main, out, limit)  # ∑_{n=1}^{N_s}: over and under it
            right = max(right or 0.0, last_main.x1)
            continue
        k = j
        while k < len(shown) and shown[k].generated and kinds[k] == "main":
            k += 1
        other = "sub" if kind == "sup" else "sup"
        if kind == "sup" and (end := root_denominator(shown, kinds, run, k, size)):
            right = _over_root(out, run, shown[k + 1:end], factor_at(shown, end), right)  # `β = α/√(1 + α^2)`
            i = end
            continue
        if k < len(shown) and kinds[k] == other:
            m = k
            while m < len(shown) and kinds[m] == other:
                m += 1
            second = shown[k:m]
            top, bottom = (run, second) if kind == "sup" else (second, run)
            if last_main is not None and last_main.char == RADICAL and out and out[-1] == RADICAL \
                    and over_root(top, bottom, last_main):
                out.pop()  # `1/√((2π)^n det(Σ))`: the root is the denominator's, the numerator over both
                if out and out[-1] == _UNSURE:
                    out.pop()
                right = _over_root(out, top, bottom, factor_at(shown, m), right)
                i = m
                continue
            if overlap(run, second) or (_full_size(run, size) and _full_size(second, size) and parts_meet(run, second)) \
                    or (same_start(run, second, size) and _attached(run, out, last_main, size)):  # ∇_{β^k}^2
                top, bottom = (run, second) if kind == "sup" else (second, run)
                if stacked_errors(top, bottom) and "".join(out).strip():  # 0.91^{+0.10}_{−0.06}: the value's errors
                    while out and out[-1] == " ":
                        out.pop()
                    out.append(f"_{group(text_of(bottom))}^{group(text_of(top))}")
                    right = _right(shown[i:m], right)
                    i = m
                    continue
                if _attached(run, out, last_main, size):  # T_0^4: both scripts of one symbol
                    out.append(f"_{script(bottom)}^{script(top)}")
                    right = _right(shown[i:m], right)
                    i = m
                    continue
                _space_before(out)
                out.append(f"{part(top)}/{part(bottom)}")
                if factor_at(shown, m):
                    out.append(" ")  # `1/ρ_0 ∇p`: the next factor is no part of the denominator
                right = _right(shown[i:m], right)
                i = m
                continue
        text = text_of(run)
        if _logo_letter(run, out, shown, j):
            out.append(text)  # the raised A of the LaTeX logo
        elif not "".join(out).strip():
            # a mark that opens the line: a footnote's number, read by pdftext; a symbol of the line's
            # size with scripts of its own is no mark, but a line whose baseline was not found
            uncertain = uncertain or (_full_size(run, size) and len({g.size for g in run if not g.generated}) > 1)
            out.append(text + " ")
        else:
            written = "_" + script(run) if kind == "sub" else superscript(text, out, last_main)
            # in a display, a script no symbol carries (after a root sign) or a note mark is a guess
            unplaced = display and (out[-1:] == [RADICAL] or written[:1] == "[")
            uncertain = uncertain or _full_size(run, size) or unplaced
            out.append(written)
        right = _right(run, right)
        i = j
        if i < len(shown) and _spaced(shown[i], right, size) and out and not out[-1].endswith((" ", "\x1f")):
            out.append(" ")  # ∑_i C_i: the gap TeX sets after an operator's limit is a space
    text = "".join(out)
    if _UNSURE in text:  # a root whose reach is not known: its word is marked, or its formula
        uncertain = uncertain or formula
        text = text.replace(_UNSURE, "") if uncertain else _UNSURE_WORD.sub(_mark_word, text)
    # a row of values, or a label and its measured value: two cells are a table
    table = cells >= 2 or (cells and (values or label_and_value(glyphs, size)))
    text = text.replace("\x1f", " | " if table and not display else " ").strip()
    return (f"{APPROXIMATE}{text}{APPROXIMATE_END}" if uncertain and text else text), size, first





def _mark_word(found: re.Match[str]) -> str:
    """The word of an unsure root in prose marked alone (`S(ω_0) = ⟦√2/π⟧ S_0 Q^2.`), its closing
    punctuation left outside."""
    word, tail = found.group(1).replace(_UNSURE, ""), found.group(2)
    return f"{APPROXIMATE}{word}{APPROXIMATE_END}{tail}"


def _right(glyphs: list[Glyph], right: float | None) -> float | None:
    ends = [g.x1 for g in glyphs if not g.generated]
    return max(ends + ([right] if right is not None else [])) if ends else right


def _name_math(glyphs: list[Glyph]) -> bool:
    """Math fonts' raw codes named (pdfchars.math_char); True when pieces carrying no text were dropped."""
    dropped = slash = False  # slash: a negation slash is among the glyphs
    for glyph in glyphs:
        if glyph.generated or glyph.weight > 1:  # a word of a text font (pdfruns.py) names nothing
            continue
        char = glyph.char
        if glyph.family not in _NAMING and not (char and (char < " " or "\ue000" <= char <= "\uf8ff")):
            slash = slash or char == "\u0338"
            continue  # math_char names only control codes, private-use pieces and these fonts' glyphs
        named = math_char(char, glyph.family)
        if named is None:
            slash = slash or char == "\u0338"
            continue
        if named == "" and glyph.family in _NO_TEXT:
            dropped = True
        glyph.char = named
        slash = slash or named == "\u0338"
    for before, glyph in zip(glyphs, glyphs[1:]) if slash else ():
        if before.char == "\u0338" and glyph.char:  # the negation slash over the next sign: ≠, ∉
            glyph.char = unicodedata.normalize("NFC", glyph.char + "\u0338")
            before.char = ""
    _overlaid_slashes(glyphs)
    return dropped


def _overlaid_slashes(glyphs: list[Glyph]) -> None:
    """A relation with a slash set over it is its negated form, whichever PDFium gives first: plain
    TeX's \\notin is cmsy's `∈` under cmmi's `/`, read `∈ /`; written `∉` (and `≠`, `≮`, `⊄` ...)."""
    for a, b in zip(glyphs, glyphs[1:]):
        slash, sign = (a, b) if a.char == "/" else (b, a)
        if slash.char != "/" or slash.generated or sign.generated or len(sign.char) != 1:
            continue
        negated = unicodedata.normalize("NFC", sign.char + "\u0338")
        middle = (slash.x0 + slash.x1) / 2
        if len(negated) == 1 and sign.x0 < middle < sign.x1 and abs(slash.base - sign.base) < 0.2 * sign.size:
            sign.char, slash.char = negated, ""


def _attach_accents(glyphs: list[Glyph]) -> bool:
    """A spacing accent set over a letter (TeX's \\' \\v ...) joins that letter, wherever PDFium put
    it in the text: `Bakos, G. A. ´` -> `Bakos, G. Á.`. True when one was joined."""
    joined = False
    for accent in glyphs:
        if accent.generated or accent.char not in SPACING_ACCENTS:
            continue
        best, overlap = None, 0.0
        for candidate in glyphs:
            if candidate is accent or candidate.generated or not candidate.char[:1].isalpha():
                continue
            if abs(candidate.base - accent.base) > max(candidate.size, 1.0) * 0.6:
                continue
            shared = min(candidate.x1, accent.x1) - max(candidate.x0, accent.x0)
            if shared > overlap:
                best, overlap = candidate, shared
        width = accent.x1 - accent.x0
        if best is not None and overlap >= width * 0.4:
            letter = "i" if best.char == "\u0131" else best.char
            best.char = unicodedata.normalize("NFC", letter + SPACING_ACCENTS[accent.char])
            accent.char = ""
            joined = True
    return joined


def _full_size(run: list[Glyph], size: float) -> bool:
    """A run about to be written as a script holds a glyph of the line's own size, set above or
    below its baseline: the part of a display fraction, a matrix's row, a limit not resolved. No
    script is that large, so what the run is is not known and its line is marked (issue 44:
    `k_{ij} = A exp[(−(x_i − x_j)^2)/(2l^2)]` read `kij = A exp [−(x_i − x_j )^2`, unmarked)."""
    return any(glyph.size >= size - 0.2 and glyph.family not in _NO_TEXT and not glyph.generated
               and glyph.char.strip() for glyph in run)


def _kinds(shown: list[Glyph], size: float, base: float) -> list[str]:
    kinds = ["main" if glyph.base == base and glyph.size == size or glyph.char == RADICAL and glyph.size >= size
             else kind_of(glyph, size, base) for glyph in shown]  # a root sign hangs from its top: not raised
    for n, glyph in enumerate(shown):  # a space inside a script belongs to it
        if glyph.generated and 0 < n < len(shown) - 1 and kinds[n - 1] == kinds[n + 1] != "main":
            kinds[n] = kinds[n - 1]
        # a script's own script (TeX's scriptscript size, 0.7 of the text or less) near the
        # baseline: `k` of ∇_{β^k} sits too low to be raised against the line, but is no main glyph
        elif n and kinds[n] == "main" != kinds[n - 1] and not glyph.generated and glyph.size < 0.7 * size \
                and shown[n - 1].size < 0.88 * size and glyph.size < shown[n - 1].size - 1.0:
            kinds[n] = kinds[n - 1]
    return kinds


def _script_words(shown: list[Glyph], kinds: list[str]) -> tuple[list[Glyph], list[str]]:
    """A space PDFium added inside a script between two letters set closer than a thin space is no
    space: `$T_{eff}$` sets e, f, f as math italic symbols, and the gap of the italic f read
    `T_{ef f}` (issue 44)."""
    drop = [n for n, glyph in enumerate(shown)
            if glyph.generated and 0 < n < len(shown) - 1 and kinds[n - 1] == kinds[n + 1] != "main"
            and shown[n - 1].char[-1:].isalpha() and shown[n + 1].char[:1].isalpha()
            and shown[n + 1].x0 - shown[n - 1].x1 < 0.15 * max(shown[n - 1].size, 1.0)]
    if not drop:
        return shown, kinds
    gone = set(drop)
    return ([g for n, g in enumerate(shown) if n not in gone], [k for n, k in enumerate(kinds) if n not in gone])


def _spaced(after: Glyph, right: float | None, size: float) -> bool:
    """A main glyph set a space's width after a script (a sixth of an em or more, TeX's thin space),
    where PDFium put no space: `∑_i C_iT_i`, not `∑_iC_iT_i`."""
    return right is not None and not after.generated and after.x0 - right >= size * 0.15 and after.char[:1].isalnum()


def _attached(run: list[Glyph], out: list[str], last: Glyph | None, size: float) -> bool:
    """Scripts set right after their symbol (no space): not a fraction standing on its own."""
    first = next((g for g in run if not g.generated), None)
    if last is None or first is None or not out or out[-1].endswith((" ", "\x1f")):
        return False
    return first.x0 - last.x1 < max(size, 1.0) * 0.15 and (last.char.isalnum() or last.char in ")]}′∇∆∂")


def _over_root(out: list[str], top: list[Glyph], radicand: list[Glyph], spaced: bool, right: float | None) -> float | None:
    """Write `top/√(radicand)`, a fraction whose denominator is a root (a space after it when a factor
    follows); where the writing now ends."""
    _space_before(out)
    out.append(f"{part(top)}/√{part(radicand)}" + (" " if spaced else ""))
    return _right(top + radicand, right)


def _logo_letter(run: list[Glyph], out: list[str], shown: list[Glyph], after: int) -> bool:
    """One raised capital with letters close on both sides (L^A TEX): part of a word, not a script."""
    following = shown[after].char if after < len(shown) and not shown[after].generated else ""
    return len(run) == 1 and run[0].char.isupper() and bool(out) and out[-1][-1:].isupper() and following.isupper()


def _space_before(out: list[str]) -> None:
    if out and out[-1] and not out[-1].endswith((" ", "(", "[", "{", "/", "\x1f", "−", "-")):
        out.append(" ")
