"""Does the passage credit the claim's values to the work the claim names? (issue 43, stop 53)

A claim often names the study it reports: `Delrez et al. (2016) found ρ_* = 52.3 ± 2.2 ρ_⊙`. The value can stand in
the passage, credited to another year of that author (`[Delrez2018a] found ...`) or to another study altogether
(`The stellar mass we take from [Mann2019], M_* = 0.0898`, cited as Ducrot et al. 2020). Two rules, both only
when the passage names the claim's first author at all (a passage of the cited paper itself never names it):
- the year: where the passage names that author with a year (`Delrez2018a`, `[cantatgaudin_gaia_2018]`,
  `Kraus et al. (2015)`, `(Feng et al. 2017)`), one of its years is within one of the claim's (an e-print and its
  journal year differ by one);
- the values: a value of the claim stands in a sentence that names the author, in one of the three after it (a
  study is named, then what it found is told: `[Kraus2015] examined ... What they found was ... Surprisingly, ...
  about 8 Myr`), or in the sentence before it (`... 11 cm/s. This is [Feng2017]'s figure`).
A claim that compares with the study (`Compared with Ilin et al. (2021), the sample has seven times as many flares`)
credits it no value: only its year is compared.
A mention is a citation, not the word: the name with a year or `et al.` (`Bond albedo`, `a young star` name no Bond
or Young). Not compared: a claim whose author the passage does not cite; second authors; which of an author's papers
of the same year is meant.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.agree import matching, stated_in
from astro_cli.citations.claims import Claim
from astro_cli.research.text.pdfchars import fold

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\\[$(])")


def _plain(text: str) -> str:
    """Lower case without accents, offsets kept (a text whose folding changes its length is only lower-cased)."""
    folded = fold(text)
    return folded if len(folded) == len(text) else text.lower()


@lru_cache(maxsize=512)
def _starts(passage: str) -> tuple[int, ...]:
    return (0, *(m.end() for m in _SENTENCE.finditer(passage)))


def _sentence_of(passage: str, position: int) -> int:
    return sum(1 for s in _starts(passage) if s <= position) - 1


def _mentions(surname: str, plain: str) -> list[tuple[int, int | None]]:
    """(position, year or None) of each place the passage names the author, as prose or as a cite key."""
    name = "-?".join(re.escape(part) for part in fold(surname).split("-"))  # `Cantat-Gaudin`, `cantatgaudin_...`
    pattern = re.compile(r"(?<![a-z])" + name + r"(?:(?P<short>\d\d)(?![\d])|(?P<key>[a-z_]{0,30}?_)?"
                         r"(?P<etal>\s+(?:et\s+al\.?|and\s+\w+|&\s*\w+))?[\s,(]*(?P<year>(?:19|20)\d\d)?(?!\d))")
    # a citation, not the word (`Bond albedo`, `a young star` are no mention of Bond or Young): a year or `et al.`;
    # a cite key's two digits are a year too (`[medina20]`, `[jackman21]`, `[yang23_lp]`)
    return [(m.start(), int(m.group("year")) if m.group("year") else _century(int(m.group("short"))) if m.group(
        "short") else None) for m in pattern.finditer(plain)
            if m.group("year") or m.group("short") or (m.group("etal") or "").strip().startswith("et")]


def _century(short: int) -> int:
    """A cite key's two-digit year (`medina20`): this century's up to 50, the last one's after."""
    return 2000 + short if short <= 50 else 1900 + short


def credit_reason(claim: Claim, passage: str) -> str | None:
    """Why the passage does not credit the claim's values to the work the claim names; None when it may."""
    works = [c for c in claim.cites if c.kind == "author-year" and c.surnames and c.year]
    if not works:
        return None
    plain = _plain(passage)
    for work in works:
        mentions = _mentions(work.surnames[0], plain)
        if not mentions:
            continue
        years = sorted({y for _, y in mentions if y is not None})
        if years and work.year is not None and all(abs(y - work.year) > 1 for y in years):
            return (f"{work.surnames[0]} ({work.year}) is not what the passage cites: it names "
                    f"{work.surnames[0]} {', '.join(map(str, years))}")
        if not claim.quantities or _compared(claim.text, work.surnames[0]):
            continue
        stated = stated_in(passage)
        places = {_sentence_of(passage, q.start) for own in claim.quantities for q in matching(own, stated)}
        named = {_sentence_of(passage, at) for at, _ in mentions}
        if places and not any(-1 <= p - n <= 3 for p in places for n in named):
            return (f"the passage does not credit {claim.quantities[0].text} to {work.surnames[0]} "
                    f"({work.year}): it names {work.surnames[0]} elsewhere")
    return None


def _compared(claim: str, surname: str) -> bool:
    """Whether the claim names the study as what it compares with, not as the source of its values."""
    return re.search(r"\b(?:compared\s+(?:with|to)|relative\s+to|than|unlike|versus|vs\.?|against)\s+\(?"
                     + re.escape(surname), claim, re.IGNORECASE) is not None
