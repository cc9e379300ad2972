"""Does the passage name the instrument, survey, object or catalogue the claim names? (issue 43, stop 54: names)

`Jackman et al. (2021) fitted the FFDs of young stars observed with Kepler` where the passage writes `observed with
Next Generation Transit Survey`; `47,335 of them from SEQUELS` where it writes `47,335 from TDSS`. A proper name of
the claim is a run of capitalised words, an acronym or a mixed-case word (`MEarth`, `eBOSS`, `CosmoDC2`), not the
claim's first word unless it has a capital or a figure inside, nor its citations, symbols (`T_eff`), single
letters, months, pointers (`Figure`, `Table`). It is named by the passage when its folded letters stand there
(spaces, hyphens and case aside), or as an acronym of a run of the passage's capitalised words (or the reverse).
- A name the passage lacks, where a sentence sharing at least 30% of the claim's words names another in its place
  (after the same word: `with`, `from`, `by`...; or before the same noun: `... spectrograph`), is unsupported:
  `the passage names Next Generation Transit Survey, not Kepler`. A name the passage lacks with no rival there
  is left to the term share (a paper's own mission or title word often goes unsaid in a passage).
- A value of the claim told beside a name (in its clause, else its sentence) is not stated by the passage's equal
  value told beside another name of the same place and none of the claim's: `the passage gives 47,335 for TDSS,
  not SEQUELS`; `R ~ 2500` of `The eBOSS spectrograph`, told of `the legacy SDSS spectrograph`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.agree import matching, stated_in
from astro_cli.citations.aligned import CLAUSE, SENTENCE, aligned, claim_text, plain
from astro_cli.citations.claims import Claim
from astro_cli.citations.names import squash

LEAST_SHARE = 0.3
_NAME = re.compile(r"(?<![\w\\_-])(?:[A-Z][\w'’-]*|[a-z]{1,3}[A-Z][\w-]*)(?:\s+(?:[A-Z][\w'’-]*|of|de|la|del|von|van)(?=\W|$))*")
_NOT_NAMES = frozenset("""figure fig figures table tables section sections equation equations eq eqs appendix i we our
    the a an this these those in for of on at by with from to and or but it its they their there here when where while
    january february march april may june july august september october november december
    alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi
    psi omega""".split())
_SLOT_BEFORE = frozenset("with from by using in on of at for via to".split())
_POSSESSIVE = re.compile(r"['’]s$")
_HEAD = re.compile(r"\s+([a-z]{4,})")
_PREV = re.compile(r"([a-z]+)\s+$")
_INNER_CAPITAL = re.compile(r".[A-Z\d]")
_TWO_LETTERS = re.compile(r"[A-Za-z]{2}")


@lru_cache(maxsize=8192)
def names_of(text: str, skip_first: bool = True) -> tuple[tuple[str, int], ...]:
    """The proper names of a (plain) text and where each starts."""
    out = []
    for m in _NAME.finditer(text):
        name = _POSSESSIVE.sub("", m.group(0).rstrip("'’-")).strip()
        while len(name.split()) > 1 and (name.split()[-1] in ("of", "de", "la", "del", "von", "van")
                                         or len(name.split()[-1]) == 1):  # `Hyades M stars`: a spectral type
            name = name.rsplit(" ", 1)[0]
        # the last character before the name, spaces aside (`\s` is str.isspace, `\d` str.isdecimal): read at its
        # end rather than by a search of all the text before it, which made a long text quadratic
        last = text[:m.start()].rstrip()[-1:]
        first = not last or last in ".!?:;"
        if first and skip_first:
            words = name.split()
            if not _INNER_CAPITAL.search(words[0]):
                name = " ".join(words[1:])
                if not name:
                    continue
        if last.isdecimal() and (len(name) <= 3 or name[0].islower()):
            continue  # a unit after its number (`0.1 mHz`, `40 Myr`), not a count of things (`12 Tucana-Horologium`)
        if len(name) < 2 or name.lower() in _NOT_NAMES or "_" in name or not _TWO_LETTERS.search(name):
            continue
        out.append((name, m.start() + m.group(0).find(name)))
    return tuple(out)


@lru_cache(maxsize=512)
def _passage_forms(passage: str) -> tuple[str, frozenset[str]]:
    """The squashed passage and the acronyms of its runs of capitalised words."""
    text = plain(passage)
    acronyms = {"".join(w[0] for w in name.split()).lower() for name, _ in names_of(text, False) if len(name.split()) > 1}
    return squash(text), frozenset(acronyms)


@lru_cache(maxsize=8192)
def named(name: str, passage: str) -> bool:
    """Whether the passage names `name`, as written, folded, or as an acronym (either way)."""
    squashed, acronyms = _passage_forms(passage)
    own = squash(name)
    parts = name.split()
    if len(parts) > 1 and any(len(w) > 2 and squash(w) in squashed for w in re.split(r"[\s-]", name)):
        return True  # partly named (`Kepler Quarters`, `GALEX NUV`): not another thing
    if own in squashed or (name.isupper() and own in acronyms):
        return True
    return len(parts) > 1 and re.search(r"(?<![a-z])" + "".join(w[0] for w in parts).lower() + r"(?![a-z])",
                                       squashed) is not None


def _slot(text: str, start: int, name: str) -> tuple[str | None, str | None]:
    """The word before a name (a preposition: `with`, `from`...) and the noun after it (`spectrograph`)."""
    prev = _PREV.search(text[max(0, start - 20):start])
    head = _HEAD.match(text[start + len(name):])
    return (prev.group(1).lower() if prev and prev.group(1).lower() in _SLOT_BEFORE else None,
            head.group(1) if head else None)


def _rival(name: str, slot: tuple[str | None, str | None], sentence: str, mine: list[str]) -> str | None:
    """Another name the sentence puts in the claim name's place."""
    for other, at in names_of(sentence):
        theirs = _slot(sentence, at, other)
        if not ((slot[0] and theirs[0] == slot[0]) or (slot[1] and theirs[1] == slot[1])):
            continue
        words = {squash(w) for m in mine for w in re.split(r"[\s-]", m)}
        if any(squash(w) in words for w in re.split(r"[\s-]", other)) or any(named(m, other) for m in mine):
            continue  # a part of the claim's own name (`Kepler` of `Kepler-like`), or the same
        return other
    return None


def name_reason(claim: Claim, passage: str) -> str | None:
    """Why the passage does not name what the claim names (it names another in its place); None otherwise."""
    text = claim_text(claim)
    found = names_of(text)
    if not found:
        return None
    mine = [n for n, _ in found]
    for name, at in found:
        if named(name, passage):
            continue
        slot = _slot(text, at, name)
        if slot == (None, None):
            continue
        for place in aligned(text, passage):
            if place.share < LEAST_SHARE:
                break
            rival = _rival(name, slot, place.sentence, mine)
            if rival is not None:
                return f"the passage names {rival}, not {name}"
    return _value_reason(claim, text, found, passage)


def _value_reason(claim: Claim, text: str, found: tuple[tuple[str, int], ...], passage: str) -> str | None:
    """A value the claim tells beside a name, which the passage tells beside another in its place."""
    if not claim.quantities:
        return None
    plain_passage = plain(passage)
    mine = [n for n, _ in found]
    for own in claim.quantities:
        near = _around(text, text.find(own.text), clause_only=True) if own.text in text else ""
        beside = [(n, at) for n, at in names_of(near) if n in mine]
        places = [_around(plain_passage, plain_passage.find(q.text)) for q in matching(own, stated_in(plain_passage))
                  if q.text in plain_passage] if beside else []
        rivals = [_beside_rival(beside, near, place) for place in places]
        if rivals and all(rivals):
            return f"the passage gives {own.text} for {rivals[0]}, not {beside[0][0]}"
    return None


def _beside_rival(beside: list[tuple[str, int]], near: str, place: str) -> str | None:
    """The name the passage tells its value beside, in the place of the claim's, when it names none of the claim's."""
    if any(named(n, place) for n, _ in beside):
        return None
    own = [n for n, _ in beside]
    return next((r for n, at in beside if (r := _rival(n, _slot(near, at, n), place, own))), None)


@lru_cache(maxsize=8192)
def _around(text: str, position: int, clause_only: bool = False) -> str:
    """The clause holding `position` when it names anything, else its sentence (or nothing: `clause_only`)."""
    if position < 0:
        return text
    starts = [0, *(m.end() for m in SENTENCE.finditer(text))]
    a = max(s for s in starts if s <= position)
    b = min((s for s in starts if s > position), default=len(text))
    cuts = [a, *(m.end() for m in CLAUSE.finditer(text, a, b)), b]
    c = max(x for x in cuts if x <= position)
    d = min((x for x in cuts if x > position), default=b)
    clause = text[c:d]
    return clause if names_of(clause, False) else "" if clause_only else text[a:b]
