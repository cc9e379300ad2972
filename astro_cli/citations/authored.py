"""Does the passage credit the thing a claim names to the author the claim credits? (issue 43, stop 54: authors)

`The Llamaradas Estelares flare model was presented by Davenport et al. (2014)` where the passage writes `the
analytic flare model, Llamaradas Estelares which was presented in [tovar22] ... This model builds upon the model
presented in [davenport14]`. credited.py ties a claim's values to its author; this ties its names: when the
passage cites the claim's author somewhere (a passage of the author's own paper never does), and every sentence
that names the claim's model, survey or object and cites a study cites another study (nor does the sentence before
it: `[Kraus2015] examined ... What they found was ...`), the claim is unsupported:
`the passage credits Llamaradas Estelares to tovar22, not Davenport`. Where no sentence naming it cites anyone and
one coins it (`we name`, `we call`, `we introduce`, `we propose`, `we define`, `we develop`): `the passage presents
Centered Beta as its own work, not Jaini's`. Not compared: second authors.
"""

from __future__ import annotations

import re

from astro_cli.citations.aligned import claim_text, sentences
from astro_cli.citations.claims import Claim
from astro_cli.citations.named import named, names_of
from astro_cli.research.text.pdfchars import fold

_OWN = re.compile(r"\bwe\s+(?:name|call|introduce|propose|define|develop|coin)\b", re.IGNORECASE)
_KEY = re.compile(r"\[([A-Za-z][\w:,;\s-]*?)\]")
_PROSE = re.compile(r"\b([A-Z][\w'-]+)(?:\s+et\s+al\.?|\s+(?:and|&)\s+[A-Z][\w'-]+)[\s,(]*(?:19|20)\d\d")


def _cited(sentence: str) -> list[str]:
    """The surnames (lower case, folded) a sentence cites, as keys (`[tovar22]`) or in prose (`Tovar et al. 2022`)."""
    out = [re.match(r"[a-z]+", fold(key.strip()).lower()) for group in _KEY.findall(sentence)
           for key in re.split(r"[,;]", group) if re.search(r"\d", key)]
    return [m.group(0) for m in out if m] + [fold(m.group(1)).lower() for m in _PROSE.finditer(sentence)]


def author_reason(claim: Claim, passage: str) -> str | None:
    """Why the passage credits what the claim names to another study; None when it may not."""
    works = [c for c in claim.cites if c.kind == "author-year" and c.surnames]
    if not works:
        return None
    surname = fold(works[0].surnames[0]).lower().split()[-1].replace("-", "")
    if not any(surname in key.replace("-", "") for s in sentences(passage) for key in _cited(s)):
        return None  # the passage does not cite the author: its own paper, or silent about it
    own = [n for n, _ in names_of(claim_text(claim)) if surname not in fold(n).lower()]
    told = sentences(passage)
    for name in own:
        # a study is often named, then what it found told (`[Kraus2015] examined ... What they found was ...`)
        citing = [(keys, _cited(told[i - 1]) if i else []) for i, s in enumerate(told)
                  if named(name, s) and (keys := _cited(s))]
        if citing and not any(surname in k.replace("-", "") for keys, before in citing for k in keys + before):
            return f"the passage credits {name} to {citing[0][0][0]}, not {works[0].surnames[0]}"
        if not citing and any(named(name, s) and _OWN.search(s) for s in told):
            return f"the passage presents {name} as its own work, not {works[0].surnames[0]}'s"
    return None
