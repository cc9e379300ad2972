"""Is the claim's version of a code or database one the passage gives? (issue 43, stop 54 follow-up)

`reduced with CIAO v4.13` where the passage writes `CIAO v4.15`; `version 9.1 of the CHIANTI database` where it
writes `v10.1`. A version (`v4.15`, `v10.1`, `version 0.2`, `ver. 3`) follows a pointer word, so it is no quantity of
the claim (claims.py) and was never compared. A claim's version the passage does not write, where the passage writes
versions, is unsupported: `v4.13 is not a version the passage gives (it gives v4.15)`.
Not compared: a passage that writes no version (the claim adds a detail), which name a version belongs to.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.aligned import claim_text
from astro_cli.citations.claims import Claim

_VERSION = re.compile(r"(?<![\w.])(?:v|ver\.\s?|version\s)(?P<number>\d+(?:\.\d+)*)(?![\w.]?\d)", re.IGNORECASE)


@lru_cache(maxsize=512)
def _versions(text: str) -> tuple[tuple[str, str], ...]:
    """(the version's number, as written) for each version of a text."""
    return tuple((m.group("number"), m.group(0)) for m in _VERSION.finditer(text))


def version_reason(claim: Claim, passage: str) -> str | None:
    """Why a version the claim gives is not the passage's; None when it is, or the passage gives none."""
    text = claim_text(claim)
    if "v" not in text.lower():
        return None
    mine = _versions(text)
    if not mine:
        return None
    theirs = _versions(passage)
    if not theirs:
        return None
    given = {number for number, _ in theirs}
    for number, written in mine:
        if number not in given:
            return f"{written} is not a version the passage gives (it gives {', '.join(dict.fromkeys(w for _, w in theirs))})"
    return None
