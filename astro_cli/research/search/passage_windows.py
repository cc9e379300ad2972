"""A chunk as the windows its vectors are made of: MiniLM reads 256 word pieces, a chunk is longer.

A 1,500-character chunk is 300-430 word pieces: one vector of it either cuts its end (the model
truncates) or blurs it (an average over its parts), and a question about one sentence of it meets a
vector of a dozen. So each chunk is embedded as windows of whole sentences, about WINDOW_CHARS
long, each overlapping the one before by a sentence (an answer that straddles a boundary is whole
in one of them), and a chunk is scored by its best window (the store's vector ranking takes the
max over a chunk's windows). A chunk that fits one window is one window.
"""

from __future__ import annotations

from astro_cli.research.search.windows import sentences

WINDOW_CHARS = 600  # about 130-200 word pieces of prose: well inside the model's 256 with the section path
OVERLAP = 1  # sentences a window shares with the one before


def passage_windows(text: str, size: int = WINDOW_CHARS, overlap: int = OVERLAP) -> list[str]:
    """The text as windows of whole sentences of about `size` characters, in order, overlapping by
    `overlap` sentences; a text at most a quarter longer than `size` is one window. A sentence
    longer than `size` (a table, a display formula) is cut at spaces into pieces of `size`."""
    text = text.strip()
    if len(text) <= size * 5 // 4:
        return [text] if text else []
    parts = [piece for part in sentences(text) for piece in _pieces(part.strip(), size) if piece]
    windows: list[str] = []
    start = 0
    while start < len(parts):
        end, length = start, 0
        while end < len(parts) and (end == start or length + len(parts[end]) <= size):
            length += len(parts[end]) + 1
            end += 1
        windows.append(" ".join(parts[start:end]))
        if end >= len(parts):
            break
        start = max(start + 1, end - overlap)
    return windows


def _pieces(sentence: str, size: int) -> list[str]:
    """A sentence longer than `size` cut at the last space before each `size` characters."""
    pieces: list[str] = []
    rest = sentence
    while len(rest) > size:
        cut = rest.rfind(" ", size // 2, size)
        cut = cut if cut > 0 else size
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    return [*pieces, rest] if rest else pieces
