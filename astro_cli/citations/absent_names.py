"""Does the passage name the tool, instrument or survey the claim names by an acronym? (issue 43, stop 54 follow-up)

`The haloes were identified with the SUBFIND halo finder` where the passage names `AHF2`; `applies Jolideco to
H.E.S.S. observations` where it names no telescope there. named.py flags a name only where the passage names a rival
in its place; an acronym or mixed-case name (two capitals or more in one word: `SUBFIND`, `LOFAR`, `ChaRT`,
`H.E.S.S.`) is a specific thing a passage that supports the claim names, so one the passage lacks entirely, in a claim
that rests on a passage sentence sharing at least half its words and naming another such name the claim does not
(`AHF2`), is unsupported.
Not compared: the claim's first word (its subject is most often the paper's own pipeline: `EVEREST uses ...`), names of one capital (`Crab Nebula`, `Cas A`: a paper's own object or a common word often goes unsaid),
a claim that shares under half its words with any sentence (left to the term share).
"""

from __future__ import annotations

import re

from astro_cli.citations.aligned import aligned, claim_text
from astro_cli.citations.claims import Claim
from astro_cli.citations.named import named, names_of

LEAST_SHARE = 0.5
_LIKE = re.compile(r"-(?:like|type|based|style)$", re.IGNORECASE)  # `XMM-like` is named by `XMM-Newton`
_CITE_KEY = re.compile(r"(?:19|20)\d\d")  # `Knollmann2009`: a citation, not a rival name
_ACRONYM = re.compile(r"(?=(?:[^A-Z]*[A-Z]){2})[A-Za-z][A-Za-z.+-]*[A-Za-z.]")


def absent_name_reason(claim: Claim, passage: str) -> str | None:
    """Why the passage does not support an acronym the claim names; None when it names it or may not need to."""
    text = claim_text(claim)
    start = len(text) - len(text.lstrip())
    # the claim's subject (`EVEREST uses ...`) is most often the paper's own pipeline or object, unsaid in a passage
    missing = [n for n, at in names_of(text)
               if at > start and _ACRONYM.fullmatch(n) and not named(_LIKE.sub("", n), passage)]
    if not missing:
        return None
    best = next(iter(aligned(text, passage)), None)
    if best is None or best.share < LEAST_SHARE:
        return None
    mine = {n for n, _ in names_of(text, skip_first=False)}
    rivals = [n for n, _ in names_of(best.sentence, skip_first=False)
              if _ACRONYM.fullmatch(n) and not _CITE_KEY.search(n) and not any(named(n, m) for m in mine)]
    return f"the passage names {rivals[0]}, not {missing[0]}" if rivals else None
