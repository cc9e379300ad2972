"""How much of a reply is astro's own text: the system prompt, the environment message, the tool
schemas. A small model given nothing it can use answers with what it was sent (recorded, issue
48: `<environment>\\n[session]\\ndate: ...` returned as the answer to a question about a CSV).

Measured as shared word runs (4 words in a row), so a reply that copies any part of what astro sent,
whatever its markup, is found, and an answer that only uses a few of the same words is not.
"""

from __future__ import annotations

import re

RUN = 4  # words in a row that must match: shorter runs ("the data folder holds") are ordinary English
MIN_WORDS = 8  # a shorter reply is astro's text only if the whole of it appears there
COPIED_SHARE = 0.6  # a reply at least this share of whose word runs astro sent is an echo
MIN_SHORT_CHARS = 20  # "Yes." or a path may rightly appear in the prompt

_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def runs(tokens: list[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + RUN]) for i in range(len(tokens) - RUN + 1)}


def copied_share(reply: str, sent: list[str]) -> float:
    """The share (0..1) of the reply's word runs found in the texts astro sent; a reply shorter than
    MIN_WORDS words counts as 1.0 when it appears whole in one of them (and has MIN_SHORT_CHARS)."""
    said = words(reply)
    if not said:
        return 0.0
    if len(said) < MIN_WORDS:
        if len(" ".join(reply.split())) < MIN_SHORT_CHARS:
            return 0.0
        joined = " ".join(said)
        return 1.0 if any(joined in " ".join(words(text)) for text in sent) else 0.0
    theirs: set[tuple[str, ...]] = set()
    for text in sent:
        theirs |= runs(words(text))
    mine = [tuple(said[i:i + RUN]) for i in range(len(said) - RUN + 1)]
    return sum(run in theirs for run in mine) / len(mine)


def echoes(reply: str, sent: list[str]) -> bool:
    """True when the reply is mostly astro's own text: it answers nothing."""
    return copied_share(reply, sent) >= COPIED_SHARE
