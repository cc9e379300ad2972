"""A PDF page's characters as one str, one str character per PDFium character, and its words.

pdfruns.py cuts PDFium's pieces and their words out of these; the positions are PDFium's
character indices, so every per-character question (pdfglyphs.CharReader) can be asked of them.
"""

from __future__ import annotations

import ctypes
import re
import sys
from operator import itemgetter
from typing import Any

from astro_cli.research.text.hyphens import SOFT_HYPHEN
from astro_cli.research.text.pdfglyphs import CharReader

_WORD = re.compile("[^\\s\ufffe]+")  # a word of a piece: no line end and no SOFT_HYPHEN in it
_SPAN, _START = re.Match.span, itemgetter(0)


def page_words(text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """The page's words (no white space, no SOFT_HYPHEN in them) as (start, end), and their starts."""
    words = list(map(_SPAN, _WORD.finditer(text)))
    return list(map(_START, words)), words


def page_chars(textpage: Any, count: int, reader: CharReader) -> str:
    """The page's characters, one str character per PDFium character (a hyphen at a line end is
    SOFT_HYPHEN, a code beyond Unicode is U+FFFF, which marks its piece unusual): PDFium's whole text
    in one call when it has one character per character. Where it has not (it leaves out a character
    whose code is 0, a surrogate pair is two), the range is halved until the halves that do are found
    (their first and last characters' places in PDFium's text as far apart as their count: text of a
    range whose end character PDFium left out takes in a neighbour), the rest asked one by one."""
    import pypdfium2.raw as raw

    buffer = (ctypes.c_ushort * (2 * count + 2))()
    parts: list[str] = []

    def aligned(start: int, length: int) -> bool:  # the range's text is one unit per character
        first = raw.FPDFText_GetTextIndexFromCharIndex(textpage, start)
        last = raw.FPDFText_GetTextIndexFromCharIndex(textpage, start + length - 1)
        return bool(first >= 0 and last - first == length - 1)

    def read(start: int, length: int) -> None:
        written = raw.FPDFText_GetText(textpage, start, length, buffer)
        if written - 1 == length and (length == count or aligned(start, length)):
            parts.append(_units(buffer, length))
        elif length <= _ONE_BY_ONE:
            parts.append(_asked(reader, start, length))
        else:
            half = length // 2
            read(start, half)
            read(start + half, length - half)

    read(0, count)
    return "".join(parts)


_ONE_BY_ONE = 16  # characters asked one by one rather than halved further
_NATIVE_UTF16 = "utf-16-le" if sys.byteorder == "little" else "utf-16-be"


def _units(buffer: Any, length: int) -> str:
    """The first `length` UTF-16 units of `buffer`, one str character each (a surrogate pair stays
    two characters, as PDFium counts them): decoded in one call unless a pair was joined."""
    decoded = ctypes.string_at(buffer, 2 * length).decode(_NATIVE_UTF16, "surrogatepass")
    return decoded if len(decoded) == length else "".join(map(chr, buffer[:length]))


def _asked(reader: CharReader, start: int, length: int) -> str:
    unicode, is_hyphen, tp = reader.call["unicode"], reader.call["hyphen"], reader.tp
    chars = []
    for index in range(start, start + length):
        code = unicode(tp, index)
        if code == 0x02 and is_hyphen(tp, index):
            chars.append(SOFT_HYPHEN)
        else:
            chars.append(chr(code) if code <= 0x10FFFF and code != 0xFFFE else "\uffff")
    return "".join(chars)
