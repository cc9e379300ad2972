"""Redaction of text that arrives in pieces (a streamed answer): no secret slips through a seam.

A model streams its answer a few characters at a time; a key split over two pieces matches no rule
in either. `StreamRedactor` holds back the tail of what arrived that a secret could still continue:
it releases text only up to a whitespace that no redaction rule spans (not beside `=` or `:`, not
inside an unfinished PEM block), redacts what it releases, and releases the rest at `flush()`.
Secrets hold no whitespace (PEM blocks aside), so what is released is redacted as it would be whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# A whitespace run that no rule spans: a rule's match holds whitespace only around `=` or `:` (an
# assignment), inside quotes after one, or inside a PEM block.
_SAFE_CUT = re.compile(r"(?<=[^\s=:'\"`])\s+(?=[^\s=:'\"`])")
_PEM_BEGIN = "-----BEGIN"
_PEM_END = re.compile(r"-----END[ A-Z0-9_-]{0,100}-----")
MAX_HELD = 65_536


class StreamRedactor:
    """Feed pieces, get redacted text back (possibly later, never lost); `flush` at the end of the stream."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        self._redact = redact
        self._held = ""

    def feed(self, piece: str) -> str:
        seen = len(self._held)
        text = self._held + piece
        # Released at every safe cut, however short: a model that pauses mid-answer (or a provider that
        # hangs) must not hold back what it already said; only a word a secret could continue waits.
        cut = _cut(text, max(0, seen - 2))
        self._held = text[cut:]
        return self._redact(text[:cut]) if cut else ""

    def flush(self) -> str:
        text, self._held = self._held, ""
        return self._redact(text) if text else ""


def _cut(text: str, since: int) -> int:
    """Where `text` may be cut: after the last safe whitespace (searched from `since`: the held text
    before it had none), never inside a PEM block, nor past the start of one that has not ended."""
    block = (len(text), len(text))
    begin = text.rfind(_PEM_BEGIN)
    if begin >= 0:
        end = _PEM_END.search(text, begin)
        block = (begin, end.end() if end else len(text))
        since = min(since, begin)
    if len(text) > MAX_HELD:  # no secret is this long: what is held is released whole
        return len(text)
    cut = 0
    for match in _SAFE_CUT.finditer(text, since):
        if not block[0] <= match.start() < block[1]:
            cut = match.end()
    return cut
