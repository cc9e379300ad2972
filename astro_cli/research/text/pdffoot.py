"""A block of smaller print that cuts a sentence of the body is a note, not part of the sentence.

A column's foot holds notes that carry no mark: AASTeX's `\\correspondingauthor` ("Corresponding
author: ... e-mail") sits under the first column's last line, and PDFium reads it before the next
column's first line, which goes on with the same sentence. Only print size and the sentence tell
it: body lines, then up to a few lines set smaller with words in them, then body again that goes
on in lower case. pdftext.py moves such a block where its other notes go (the section's end).
"""

from __future__ import annotations

import re

MAX_LINES = 4  # a note at a column's foot; a longer run of smaller print is a float or a list
_WORD = re.compile(r"[^\W\d_]{3,}")
_SENTENCE_END = (".", "!", "?", ":", ")", "⟧")


def foot_block(lines: list[str], sizes: list[float], index: int, before: str, body: float,
               smaller: float) -> int:
    """The end (exclusive) of the smaller block opening at `index` when it cuts a sentence of the
    body, else `index`. `before` is the body line read last, on the same page ('' if none)."""
    def small(n: int) -> bool:
        return bool(body) and sizes[n] < body - smaller

    if not before or before.rstrip().endswith(_SENTENCE_END) or not small(index):
        return index
    end = index
    while end < len(lines) and small(end) and end - index < MAX_LINES:
        end += 1
    if end >= len(lines) or small(end) or abs(sizes[end] - body) > smaller:
        return index
    following = lines[end].lstrip()
    if not following[:1].islower():
        return index  # the body does not go on with the same sentence
    if len(_WORD.findall(" ".join(lines[index:end]))) < 3:
        return index  # labels, numbers or pieces of a formula: not a note
    return end
