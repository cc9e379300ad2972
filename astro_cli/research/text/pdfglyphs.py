"""What PDFium knows about each character of a page, grouped into the lines a reader sees.

PDFium's own text breaks a line wherever the baseline moves, so display mathematics comes out
one symbol per line (`S_graph =`, `X`, `i`, `(`) and a subscript can end a line. Here each
character keeps its box, baseline, font size and font name, and PDFium's pieces are joined again
when they continue on the same visual line (a subscript, the rest of an equation) or stack over
the piece before them (the denominator of a fraction: pdflines.py, which also reads a whole page
carefully: page_glyphs). pdfscript.py then writes each line.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from astro_cli.research.text.hyphens import SOFT_HYPHEN
from astro_cli.research.text.pdfchars import (
    EXTENSION_FONTS,
    MATH_ITALIC_FONTS,
    SYMBOL_FONTS,
    font_family,
    plane_char,
)
from astro_cli.research.text.pdfwords import MATH_FUNCTIONS


@dataclass(slots=True)
class Glyph:
    char: str
    x0: float
    x1: float
    base: float  # the baseline (PDFium's origin), points from the page bottom
    size: float
    font: str
    family: str = ""  # 'CMSY10' -> 'CMSY': the font without its subset prefix and design size
    generated: bool = False  # a space or line end PDFium inferred
    origin: float = 0.0  # PDFium's origin x (the box of a turned glyph says little)
    piece: int = 0  # which of PDFium's pieces of the page it came in
    turned: bool = False  # set at an angle (a rotated table, arXiv's margin stamp)
    weight: int = 1  # characters it stands for: a whole word of a plain run is one Glyph (pdfruns.py)
    reach: float = 0.0  # a root sign: where the rule over its radicand ends (pdfroots.py)
    roof: float = 0.0  # a root sign: the height of that rule


@dataclass
class PageGlyphs:
    lines: list[list[Glyph]]
    chars: int  # characters PDFium found (0: no text layer)
    unmapped: int  # characters whose font has no usable Unicode map
    rotated: int  # characters set at an angle (a rotated table)


@lru_cache(maxsize=1)
def _calls() -> dict[str, Any]:
    """PDFium's per-character functions, called straight: pypdfium2's typed wrappers convert every
    argument and result, and even ctypes' own argument types cost more than the call (a character's
    box: 0.9 µs with argtypes, 0.26 µs without), when it is made for each of a page's thousands of
    characters. So the per-character ones are bound without argument types and their callers pass
    ctypes values only (CharReader.tp, an int index, byref results, a text object as c_void_p);
    the font's name, asked once per font, keeps its types. Read-only, made once per process."""
    import pypdfium2.raw as raw

    def address(name: str) -> int:
        return ctypes.cast(getattr(raw, name), ctypes.c_void_p).value or 0

    def bind(name: str, restype: Any, *argtypes: Any) -> Any:
        return ctypes.CFUNCTYPE(restype, *argtypes)(address(name))

    def bare(name: str, restype: Any) -> Any:  # (c_void_p page, int index, byref(...)...)
        return ctypes.CFUNCTYPE(restype)(address(name))

    return {
        "unicode": bare("FPDFText_GetUnicode", ctypes.c_uint),
        "generated": bare("FPDFText_IsGenerated", ctypes.c_int),
        "hyphen": bare("FPDFText_IsHyphen", ctypes.c_int),
        "box": bare("FPDFText_GetCharBox", ctypes.c_int),
        "origin": bare("FPDFText_GetCharOrigin", ctypes.c_int),
        "size": bare("FPDFText_GetFontSize", ctypes.c_double),
        "object": bare("FPDFText_GetTextObject", ctypes.c_void_p),
        "map_error": bare("FPDFText_HasUnicodeMapError", ctypes.c_int),
        "count_rects": bare("FPDFText_CountRects", ctypes.c_int),  # (page, start, count)
        "font": bare("FPDFTextObj_GetFont", ctypes.c_void_p),  # (c_void_p text object)
        "font_name": bind("FPDFFont_GetBaseFontName", ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p,
                          ctypes.c_size_t),
    }


def _family(font: str, unmapped: bool) -> str:
    """'CMSY10' -> 'CMSY'. A glyph PDFium has no Unicode for, of a TeX math font of another package
    (txfonts' `txsys`, CM-Bright's `HFBRMI10`), is read with the Computer Modern table of the font's
    role (pdfchars.font_family); a glyph it does map is taken as mapped."""
    return font_family(font) if unmapped else font.rsplit("+", 1)[-1].upper().rstrip("0123456789")


def number_pieces(pieces: list[list[Glyph]], first: int) -> int:
    """Number the pieces from `first` and mark those set at an angle; the rotated characters (not
    arXiv's margin stamp) are counted for the reading note."""
    rotated = 0
    for number, piece in enumerate(pieces, first):
        turned = _is_turned(piece)
        for glyph in piece:
            glyph.piece = number
        if not turned:  # a Glyph is made upright
            continue
        for glyph in piece:
            glyph.turned = True
        if not "".join(g.char for g in piece).lstrip().startswith("arXiv:"):  # not the margin stamp
            rotated += len(solid(piece))
    return rotated


class CharReader:
    """Per-character questions to PDFium about one text page, with the fonts of its text objects
    remembered (a page has a few hundred objects and thousands of characters)."""

    def __init__(self, textpage: Any) -> None:
        self.call = _calls()
        self._font_of, self._map_error = self.call["font"], self.call["map_error"]
        self.textpage = textpage  # pypdfium2's handle, for its raw functions
        self.tp = ctypes.c_void_p(ctypes.cast(textpage, ctypes.c_void_p).value)  # the same, for _calls()
        self.values = [ctypes.c_double() for _ in range(6)]
        self.refs = [ctypes.byref(v) for v in self.values]
        self.objects: dict[int, tuple[str, str, bool]] = {}  # text object -> font, family, no Unicode map
        self._answers: dict[tuple[int | None, bool], tuple[str, str, bool]] = {}  # (font, no map) -> font()
        self.sizes: dict[int, float] = {}
        self.kinds: dict[tuple[str, str, bool], tuple[bool, bool]] = {}  # a font's runs: simple, nameable (pdfruns)
        self._families: dict[tuple[str, bool], str] = {}  # (font name, no Unicode map) -> family
        self._name = ctypes.create_string_buffer(128)
        self.unmapped = 0  # characters of fonts without a usable Unicode map, among those read

    def font(self, key: int, index: int) -> tuple[str, str, bool]:
        """(font name, family, no usable Unicode map) of text object `key`, met at character `index`."""
        found = self.objects.get(key)
        if found is None:
            handle = self._font_of(ctypes.c_void_p(key)) if key else None
            unmapped = self._map_error(self.tp, index) == 1
            found = self._answers.get((handle, unmapped))
            if found is None:  # the first object of this font on the page
                font = ""
                if handle:
                    name = self._name
                    font = name.value.decode("latin-1") if self.call["font_name"](handle, name, 128) else ""
                family = self._families.get((font, unmapped))
                if family is None:
                    family = self._families[(font, unmapped)] = _family(font, unmapped)
                found = self._answers[(handle, unmapped)] = (font, family, unmapped)
            self.objects[key] = found
        return found

    def box(self, index: int) -> tuple[float, float]:
        """(left, right) of a character's box."""
        left, right = self.values[0], self.values[1]
        self.call["box"](self.tp, index, *self.refs[:4])
        return left.value, right.value

    def pieces(self, start: int, end: int, text: str = "",
               words: dict[int, tuple[int, int, float, float]] | None = None) -> list[list[Glyph]]:
        """Characters start..end-1 as PDFium's pieces (split at its line ends, at a hyphenated line
        end, and where the text wraps to the next line without a line end); empty pieces dropped.

        With the page's `text` (pdfruns.py), a space PDFium added is not asked about further (what
        joins and writes lines looks at nothing of it but that it is one), and each word in `words`
        (first character -> end, text object, size, baseline: a word inside a run of one text
        object) becomes one Glyph from the boxes of its first and last characters."""
        call, tp = self.call, self.tp
        unicode, is_generated, is_hyphen = call["unicode"], call["generated"], call["hyphen"]
        box, origin, font_size, text_object = call["box"], call["origin"], call["size"], call["object"]
        left, right, _bottom, _top, x, y = self.values
        p_left, p_right, p_bottom, p_top, p_x, p_y = self.refs
        objects, sizes = self.objects, self.sizes
        current: list[Glyph] = []
        pieces = [current]
        before: Glyph | None = None
        index = start
        while index < end:
            if text:
                char = text[index]
                if char == " " and is_generated(tp, index):
                    current.append(Glyph(" ", 0.0, 0.0, 0.0, 0.0, "", "", True))
                    index += 1
                    continue
                word = words.get(index) if words else None
                if word is not None:  # a word among others of its run: no wrap, no script, no accent
                    stop, key, size, base = word
                    box(tp, index, p_left, p_right, p_bottom, p_top)
                    x0 = left.value
                    if stop - index > 1:
                        box(tp, stop - 1, p_left, p_right, p_bottom, p_top)
                    found = objects.get(key) or self.font(key, index)
                    start_x = x0
                    if before is not None and (before.char[-1:].isdigit() or before.family != found[1]):
                        origin(tp, index, p_x, p_y)  # where pdfspacing.thin_space measures a gap to
                        start_x = x.value
                    before = Glyph(text[index:stop], x0, right.value, base, size, found[0], found[1], False, start_x,
                                   weight=stop - index)
                    current.append(before)
                    index = stop
                    continue
                code = ord(char)
                if code == 0xFFFE:  # pdfruns' SOFT_HYPHEN (PDFium's 0x02 that is a hyphen)
                    code = 0x02
                generated = False  # a space PDFium added was seen above
            else:
                code = unicode(tp, index)
                generated = code == 0x20 and bool(is_generated(tp, index))
            if code == 0x0D or code == 0x0A:
                if current:
                    current = []
                    pieces.append(current)
                before = None
                index += 1
                continue
            if code == 0x02 and is_hyphen(tp, index):
                char = SOFT_HYPHEN
            elif code < 0xD800:
                char = chr(code)
            elif 0xDC00 <= code <= 0xDFFF:  # a pair's second half: its glyph has the first's letter
                if current and not current[-1].generated:
                    box(tp, index, p_left, p_right, p_bottom, p_top)
                    current[-1].x1 = max(current[-1].x1, right.value)
                index += 1
                continue
            else:  # a letter beyond the first plane (𝛼 of newtx) is a surrogate pair, this its first half
                low = (ord(text[index + 1]) if text else unicode(tp, index + 1)) if index + 1 < end else 0
                char = plane_char(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                                  if 0xD800 <= code <= 0xDBFF and 0xDC00 <= low <= 0xDFFF else code)
            box(tp, index, p_left, p_right, p_bottom, p_top)
            origin(tp, index, p_x, p_y)
            key = text_object(tp, index) or 0
            found = objects.get(key) or self.font(key, index)
            if found[2] and not generated:
                self.unmapped += 1
            char_size = sizes.get(key) if key else None
            if char_size is None:  # one size for all the characters of a text object
                char_size = font_size(tp, index)
                if key:
                    sizes[key] = char_size
            glyph = Glyph(char, left.value, right.value, y.value, char_size, found[0], found[1], generated, x.value)
            if before is not None and not generated and glyph.x0 < before.x1 - 2.0 and glyph.base < before.base - 0.9:
                # the next line begun without a line end from PDFium: back to the left and a line lower
                # (_wrapped), unless the text climbs (_turned); `wrap` is at least 1, tested first with 1
                wrap = max(char_size, before.size, 1.0)
                if glyph.x0 < before.x1 - 2 * wrap and glyph.base < before.base - 0.9 * wrap \
                        and not _turned(before, glyph):
                    current = []
                    pieces.append(current)
            current.append(glyph)
            if not generated:
                before = glyph
            if char == SOFT_HYPHEN:  # PDFium joined a hyphenated line end: the next line is a line again
                current = []
                pieces.append(current)
                before = None
            index += 1
        return [p for p in pieces if p]


def _is_turned(piece: list[Glyph]) -> bool:
    shown: list[Glyph] = []
    for glyph in piece:  # a dozen characters tell
        if not glyph.generated and glyph.size > 1 and glyph.char.strip():
            shown.append(glyph)
            if len(shown) == 12:
                break
    pairs = len(shown) - 1
    turned = sum(1 for a, b in zip(shown, shown[1:]) if a.base != b.base and _turned(a, b))  # one baseline: upright
    return pairs > 0 and turned * 2 >= pairs


MATH_FONTS = (*SYMBOL_FONTS, *EXTENSION_FONTS, *MATH_ITALIC_FONTS, "MSAM", "MSBM")
_MATH_SET = frozenset(MATH_FONTS)


def math_only(glyphs: list[Glyph]) -> bool:
    """A piece of display mathematics: math-font glyphs and no word of three letters in a text font."""
    words, has_math, _letters = math_scan(glyphs)
    return has_math and not words


MathScan = tuple[bool, bool, str]  # (a word of three text-font letters seen, a math font seen, letters running)
# the beginnings of the operator names (`exp`, `det`) whose text-font letters are no word
_FUNCTION_STARTS = frozenset(name[:end] for name in MATH_FUNCTIONS for end in range(3, len(name) + 1))


def math_scan(glyphs: list[Glyph], state: MathScan = (False, False, "")) -> MathScan:
    """math_only's pass over `glyphs`, resumed from `state` (that of the glyphs before them). Letters
    of a text font that spell an operator name (`exp`, `ln`, `det`) are no word: TeX sets them upright
    in display formulas, which were otherwise taken for prose and never joined into one line."""
    words, has_math, letters = state
    if words:
        return state
    for glyph in glyphs:
        if glyph.generated or glyph.size <= 1:
            if letters:
                if _word(letters):
                    return True, has_math, letters
                letters = ""
            continue
        in_math = glyph.family in _MATH_SET
        has_math = has_math or (in_math and not glyph.char.isspace())  # (the fast path drops a font's spaces)
        for char in glyph.char if glyph.weight > 1 else (glyph.char,):
            if char.isalpha() and not in_math:
                letters += char
                if len(letters) >= 3 and letters not in _FUNCTION_STARTS:
                    return True, has_math, letters
            elif letters:
                if _word(letters):
                    return True, has_math, letters
                letters = ""
    return bool(letters) and _word(letters), has_math, letters


def _word(letters: str) -> bool:
    """Three text-font letters or more in a row that spell no operator name."""
    return len(letters) >= 3 and letters not in MATH_FUNCTIONS


def _turned(before: Glyph, glyph: Glyph) -> bool:
    """Consecutive letters of one word that climb instead of running right: text set at an angle."""
    return (not before.generated and before.char.strip() != "" and glyph.char.strip() != "" and glyph.size > 1
            and abs(glyph.base - before.base) > glyph.size * 0.2 and abs(glyph.origin - before.origin) < glyph.size * 0.1)


def wide_gaps(glyphs: list[Glyph], ems: float = 1.2, shown: list[Glyph] | None = None) -> int:
    """Gaps between neighbouring characters wider than `ems` font sizes: a table row has several.
    `shown`: solid(glyphs), when the caller has it."""
    shown = solid(glyphs) if shown is None else shown
    return sum(1 for a, b in zip(shown, shown[1:]) if b.x0 - a.x1 > ems * max(a.size, 1.0))


def solid(glyphs: list[Glyph]) -> list[Glyph]:
    return [g for g in glyphs if not g.generated and g.size > 1 and g.char.strip()]


def reference(glyphs: list[Glyph], shown: list[Glyph] | None = None) -> tuple[float, float]:
    """(size, baseline) of a line's main text: the size most characters have, and their baseline.
    `shown`: solid(glyphs), when the caller has it."""
    shown = solid(glyphs) if shown is None else shown
    if not shown:
        return 0.0, 0.0
    sizes = [g.size for g in shown]
    if sizes.count(sizes[0]) == len(sizes):  # one size (most lines)
        size = sizes[0]
        weights = [g.weight for g in shown]
        total = sum(weights)
        if total == len(shown):  # every glyph one character
            bases_only = sorted([g.base for g in shown])
            return size, bases_only[len(bases_only) // 2]
        bases = sorted(zip([g.base for g in shown], weights))
        middle = total // 2
    else:
        counts: dict[float, int] = {}
        for glyph in shown:
            counts[glyph.size] = counts.get(glyph.size, 0) + glyph.weight
        size = max(counts, key=lambda s: (counts[s], s))
        size = scripted_size(size, counts, [(g.base, g.weight, g.size) for g in shown])
        bases = sorted([(g.base, g.weight) for g in shown if abs(g.size - size) < 0.2])
        middle = sum(weight for _, weight in bases) // 2
    return size, weighted_median(bases, middle)


def scripted_size(size: float, counts: dict[float, int], glyphs: list[tuple[float, int, float]]) -> float:
    """The size of a line's main text when its most frequent size is its scripts': a row of values
    with upper and lower errors (`4648.16636^{+0.00269}_{−0.00339}`) has more script glyphs than
    value glyphs, and so is a display line whose symbols carry longer subscripts than themselves
    (`L_{full} = L_{iso} × L_{gyro}`), and so is one symbol with longer scripts (`t_0^{(1)}` in a
    table, `F_{total}` under a fraction bar). A larger size (three glyphs or more, or fewer on one
    baseline) whose baseline has most glyphs of `size` above or below it is the main text; otherwise
    `size` is."""
    for larger in sorted((s for s in counts if s > size + 0.2), key=lambda s: -counts[s]):
        own = sorted((base, weight) for base, weight, of in glyphs if abs(of - larger) < 0.2)
        if counts[larger] < 3 and own[-1][0] - own[0][0] > 0.1 * larger:
            continue  # one or two larger glyphs are a symbol (`t_0^{(1)}`) only on one baseline, not a big `)`
        line = weighted_median(own, sum(weight for _, weight in own) // 2)
        above = below = on = 0
        for base, weight, of in glyphs:
            if abs(of - size) < 0.2:
                if base > line + 0.2 * larger:
                    above += weight
                elif base < line - 0.1 * larger:
                    below += weight
                else:
                    on += weight
        if on < above + below:
            return larger
    return size


def weighted_median(pairs: list[tuple[float, int]], middle: int) -> float:
    """The value at weight position `middle` of sorted (value, weight) pairs: the median baseline,
    each glyph counted as the characters it stands for."""
    for value, weight in pairs:
        if middle < weight:
            return value
        middle -= weight
    return pairs[-1][0]
