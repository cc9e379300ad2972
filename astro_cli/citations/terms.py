"""Content words as stems: what the key-term share (support.py) and the quantity anchors (binding.py) compare.

A crude suffix stripper, not a linguist's stemmer: `binaries` and `binary`, `measured` and `measure` meet, which
is all a lexical comparison of a claim with the passage it paraphrases needs.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.research.text.pdfchars import fold
from astro_cli.stopwords import STOPWORDS

_WORD = re.compile(r"[^\W\d_][\w-]*")
_KEY_YEAR = re.compile(r"(?<=[^\W\d_])(?:1[6-9]|20)\d\d[a-z]?$")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "es", "ed", "ly", "s", "al")
EXTRA_STOP = frozenset("""which whose were been being than then also thus hence however therefore exactly
    approximately about around roughly nearly only every each both most many much such very well shown found
    reported measured estimated established study studies work result results value values show shows""".split())


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    word = fold(word.lower())
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def key_terms(text: str) -> set[str]:
    """The stems of the content words. A compound counts as its parts too: `fifth-order` is `fifth order`,
    and the passage's `day-side` has the claim's `side`; a LaTeX cite key glued to its year (`Elsworth1994`)
    is the author's name too."""
    words = _WORD.findall(text)
    words += [part for w in words if "-" in w for part in w.split("-")]
    words += [w[:cut.start()] for w in words if (cut := _KEY_YEAR.search(w))]  # a cite key `[Elsworth1994]`
    return {stem(w) for w in words if len(w) >= 4 and w.lower() not in STOPWORDS and w.lower() not in EXTRA_STOP}
