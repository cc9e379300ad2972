"""A band or filter named next to a number is an anchor like any other word (issue 43, stop 53 follow-up).

binding.py reads words of three letters or more, so the `g` of `ZTF g` or the `i` of `in the $i$ band` was never an
anchor: `an r-band signal-to-noise ratio above 5` found the passage's `SNR greater than 5 in the $i$ band`. A band is
a photometric letter written as one (`ZTF g`, `SDSS r`, `$i$ band`, `r-band`, `K_s filter`). When a claim names
bands, each of its numbers must stand, somewhere in the passage (in a sentence sharing some of the claim's words),
in a sentence that names one of them or names no band at all (then its paragraph decides, the way a paper opens `In the ZTF $r$ filter ...` and gives the statistics
in the sentences after); a number the passage gives only for other bands is refuted.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.agree import matching, stated_in
from astro_cli.citations.binding import text_words
from astro_cli.citations.claims import Claim

_LETTER = r"[ugrizyUBVRIJHK](?:_s)?"
_SURVEYS = ("ZTF", "SDSS", "LSST", "PS1", "DES", "HSC", "CSS")
_BAND = re.compile(r"\b(?:" + "|".join(_SURVEYS) + r")\s+\$?(?P<a>" + _LETTER + r")\$?(?![\w])"
                   r"|(?<![\w$\\])\$?(?P<b>" + _LETTER + r")\$?[\s-]*(?:band|filter)s?\b")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\\[$(])")
_PARAGRAPH = re.compile(r"\n\s*\n")


@lru_cache(maxsize=1024)
def bands_in(text: str) -> frozenset[str]:
    """The photometric bands a text names as bands (`ZTF g`, `$i$ band`, `r-band`)."""
    if "band" not in text and "filter" not in text and not any(s in text for s in _SURVEYS):
        return frozenset()  # each match writes one of these words (most claims none): no pattern to try everywhere
    return frozenset(m.group("a") or m.group("b") for m in _BAND.finditer(text))


@lru_cache(maxsize=256)
def _spans(passage: str) -> tuple[tuple[tuple[int, int, frozenset[str]], ...], tuple[tuple[int, int, frozenset[str]], ...]]:
    """The passage's sentences and paragraphs, each with the bands it names."""
    def cut(pattern: re.Pattern[str]) -> tuple[tuple[int, int, frozenset[str]], ...]:
        starts = [0] + [m.end() for m in pattern.finditer(passage)] + [len(passage)]
        return tuple((a, b, bands_in(passage[a:b])) for a, b in zip(starts, starts[1:]))
    return cut(_SENTENCE), cut(_PARAGRAPH)


def _bands_at(passage: str, position: int, words: frozenset[str]) -> frozenset[str] | None:
    """The bands that hold at `position` (its sentence's, else its paragraph's); None when its sentence shares none
    of the claim's words (another number that happens to be equal: `the range [-5, 5]`)."""
    sentences, paragraphs = _spans(passage)
    a, b, bands = next(span for span in sentences if span[0] <= position < span[1])
    if not words & text_words(passage[a:b]):
        return None
    return bands or next((found for a, b, found in paragraphs if a <= position < b), frozenset())


def band_reason(claim: Claim, passage: str) -> str | None:
    """Why a number the claim gives for a band is the passage's value for another band; None when it may not be."""
    wanted = bands_in(claim.text)
    if not wanted or "band" not in passage and "filter" not in passage and not _BAND.search(passage):
        return None
    stated, words = stated_in(passage), text_words(claim.text)
    for q in claim.quantities:
        places = [bands for found in matching(q, stated) if (bands := _bands_at(passage, found.start, words)) is not None]
        if places and all(bands and not bands & wanted for bands in places):
            return (f"{q.text} is given for the {', '.join(sorted(places[0]))} band in the passage, not "
                    f"{', '.join(sorted(wanted))}")
    return None
