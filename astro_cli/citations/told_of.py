"""What the passage tells an object of: the name after it (`TIC 235056185 ... members of IC 2602`). (stop 54)

`TIC 235056185 and TIC 260351540 are candidate members of the AB Doradus Moving Group` where the passage writes
`TIC 235056185 and 260351540 are candidate members of IC 2602 (...), and TIC 391745863 and 393490554 are candidate
members of the AB Doradus Moving Group`: every name of the passage is there, but told of other objects. For each
designation of the claim followed, in its clause, by a name after `of`, `in`, `from` or `with`, each place the
passage writes the designation's number is read up to the first name it puts after the same word, in that sentence.
When some place gives another name there and none gives the claim's (nor names it between), the claim is
unsupported: `the passage tells TIC 235056185 of IC 2602, not AB Doradus Moving Group`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.agree import matching, stated_in
from astro_cli.citations.aligned import CLAUSE, SENTENCE, claim_text, plain
from astro_cli.citations.claims import Claim
from astro_cli.citations.named import named, names_of
from astro_cli.citations.names import squash

_NUMBER = re.compile(r"\d{3,}")
_DESIGNATION = re.compile(r"\b[A-Z][A-Za-z0-9+]*[\s-]?\d{3,}[\w+-]*")  # `TIC 235056185`, `HD 189733`, `WASP-12`
_FOLLOWING = re.compile(r"[\s-]?\d[\w.+-]*")
_AFTER = re.compile(r"\b(of|in|from|with)\s+(?:the\s+)?$")


def told_of_reason(claim: Claim, passage: str) -> str | None:
    """Why the passage tells the claim's object of another name; None when it may not."""
    text = claim_text(claim)
    designations = dict.fromkeys([*claim.names, *_designations(text)])
    if not designations:
        return None
    found = names_of(text)
    body = plain(passage)
    for designation in designations:
        digits = _NUMBER.findall(designation)
        source, names = text, found
        if (at := text.find(designation)) < 0:  # a catalogue designation is a span claim_text leaves out
            source, names = claim.text, names_of(claim.text)
            at = source.find(designation)
        if not digits or at < 0:
            continue
        told = _told(source, at + len(designation), names)
        if told is None:
            continue
        word, name = told
        rivals, own = [], False
        for m in re.finditer(r"(?<!\d)" + digits[-1] + r"(?!\d)", body):
            theirs = _next_name(body, m.end(), word)
            if theirs is None:
                continue
            between = body[m.end():theirs[1]]
            if named(name, between + " " + theirs[0]):
                own = True
            elif not any(squash(w) in squash(name) for w in theirs[0].split()):
                rivals.append(theirs[0])
        if rivals and not own:
            return f"the passage tells {designation} of {rivals[0]}, not {name}"
    return None


@lru_cache(maxsize=4096)
def _designations(text: str) -> tuple[str, ...]:
    return tuple(m.group(0) for m in _DESIGNATION.finditer(text))


def _told(text: str, start: int, found: tuple[tuple[str, int], ...]) -> tuple[str, str] | None:
    """The first name after `start` in its clause that follows `of`/`in`/`from`/`with`, with that word."""
    end = m.start() + start if (m := CLAUSE.search(text[start:])) else len(text)
    for name, at in found:
        if start <= at < end and (word := _AFTER.search(text[max(start, at - 12):at])):
            return word.group(1).lower(), name
    return None


def _next_name(body: str, start: int, word: str) -> tuple[str, int] | None:
    """The first name after `start`, in its sentence, that follows `word`, and where it stands."""
    end = m.start() + start if (m := SENTENCE.search(body[start:])) else len(body)
    window = body[start:end]
    for name, at in names_of(window, False):
        if (after := _AFTER.search(window[max(0, at - 12):at])) and after.group(1).lower() == word:
            number = _FOLLOWING.match(window, at + len(name))  # `IC 2602`: a catalogue and its number
            return name + (number.group(0) if number else ""), start + at
    return None


def parenthesis_reason(claim: Claim, passage: str) -> str | None:
    """A value the passage gives in a parenthesis after one name (`12 Tucana-Horologium ($t_ age = 40$ Myr), 9 Hyades
    ($t_ age = 650$ Myr)`) told of another name the passage also qualifies so (`9 Hyades M stars aged 40 Myr`)."""
    if not claim.quantities or "(" not in passage:
        return None
    text = claim_text(claim)
    body = plain(passage)
    for own in claim.quantities:
        beside = _beside(text, own.text)
        if not beside:
            continue
        owners = [_owner(body, q.start) for q in matching(own, stated_in(body))]
        if not owners or None in owners:
            continue
        if any(named(n, o or "") for n in beside for o in owners):
            continue
        qualified = [n for n in beside if re.search(r"\b" + re.escape(n) + r"\s*\(", body)]
        if qualified:
            return f"the passage gives {own.text} for {owners[0]}, not {qualified[0]}"
    return None


@lru_cache(maxsize=4096)
def _beside(text: str, value: str) -> tuple[str, ...]:
    """The names in the claim's clause of a value."""
    at = text.find(value)
    if at < 0:
        return ()
    end = at + (m.start() if (m := CLAUSE.search(text[at:])) else len(text) - at)
    start = max((c.end() for c in CLAUSE.finditer(text, 0, at)), default=0)
    return tuple(n for n, _ in names_of(text[start:end]))


def _owner(body: str, position: int) -> str | None:
    """The name right before the parenthesis that holds `position`, if any."""
    opened = body.rfind("(", 0, position)
    if opened < 0 or body.rfind(")", opened, position) >= 0:
        return None
    before = body[max(0, opened - 60):opened].rstrip()
    found = names_of(before, False)
    if not found:
        return None
    name, at = found[-1]
    return name if at + len(name) == len(before) else None
