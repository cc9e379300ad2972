"""A release, model or instrument named by letters and digits is a name the passage must give as the claim does.

`ZTF DR5` against the passage's `ZTF DR6`, `SDSS DR12` against `SDSS DR9`, a `Tesla V100` against a `Tesla P100`:
the digits after `DR` are a pointer, not a quantity (they are never compared as numbers), and `V100` is no
designation, so these passed. A claim's token of capitals and digits (`DR5`, `EDR3`, `V100`, `PS1`) that the passage
does not write is refuted when the passage writes another of its kind: the same capitals with other digits, or
another such token after the same word (`Tesla`). A token the passage has no counterpart for is left alone (a
detail the claim adds is not a contradiction).
"""

from __future__ import annotations

import re
from functools import lru_cache

_TOKEN = re.compile(r"(?:(?<=\s)|^|(?<=[(\[/]))(?P<word>[A-Za-z][\w-]*\s+)?(?P<token>(?P<caps>[A-Z]{1,4})(?P<digits>\d{1,4})[a-z]?)\b")


@lru_cache(maxsize=512)
def _tokens(text: str) -> tuple[tuple[str, str, str], ...]:
    """(token, its capitals, the word before it) of each token of capitals and digits."""
    return tuple((m.group("token"), m.group("caps"), (m.group("word") or "").strip().lower())
                 for m in _TOKEN.finditer(text))


def release_reason(claim: str, passage: str) -> str | None:
    """Why a release or model the claim names is not the passage's; None when it is or the passage names none."""
    theirs = _tokens(passage)
    if not theirs:
        return None
    written = {token for token, _, _ in theirs}
    for token, caps, word in _tokens(claim):
        if token in written:
            continue
        other = next((t for t, c, w in theirs if c == caps or (word and w == word)), None)
        if other is not None:
            return f"{token} is not in the passage (it gives {other})"
    return None
