"""A star's component letter is part of its designation: `α Cen A` is not `α Cen B`, `HD 41004 B b` is a planet
of the B star, `Kepler-16 (AB)` is the pair.

A claim's name that carries a component letter (A, B, C, or a pair `AB` / `(AB)`) is named by a passage only
when the passage writes the same star: the designation followed by that letter (`α Cen B`, `$\\alpha$~Cen~B`),
or by a list that holds it (`α Cen A and B`, `A/B`, `(AB)`). Letters are compared in capitals only, so a
planet's `b` is never the star `B`. A passage that names the system without any letter does not say which
star, so a claim about one of them is not supported by it.
"""

from __future__ import annotations

import re
import unicodedata

from astro_cli.citations.constellations import ABBREVIATION
from astro_cli.citations.greek import spell_greek

# `α Cen A`, `HD 41004B`, `HD 41004 B b`, `Kepler-16 (AB) b`: the name, its star letters, its planet letter.
_COMPONENT = re.compile(r"^(?P<base>.*?[\w.])\s?(?:\((?P<paren>[A-C]{1,3})\)|(?P<bare>[A-C]{1,3}))"
                        r"(?:\s?(?P<planet>[b-h]))?$")
_GAP = r"[\s\-‐–~$\\{}]*"
_LETTERS = re.compile(_GAP + r"\(?(?P<letters>[A-C](?:\s?(?:and|&|/|,|\+)\s?[A-C])*|[A-C]{2,3})\)?"
                      r"(?:\s?(?P<planet>[b-h]))?(?![A-Za-z])")
_GENITIVE_OF = {abbr: full for full, abbr in ABBREVIATION.items()}


def component(name: str) -> tuple[str, frozenset[str], str] | None:
    """(the designation without its star letters, the letters, the planet letter or ''), or None without a letter."""
    match = _COMPONENT.match(name.strip())
    if match is None or not re.search(r"\d|[^\W\d_]{3}", match.group("base")):
        return None
    letters = match.group("paren") or match.group("bare") or ""
    return match.group("base"), frozenset(letters), match.group("planet") or ""


def _pattern(squashed_base: str) -> str:
    """The squashed designation as a pattern over the lower-case text: any separator between characters, and a
    trailing constellation abbreviation (`cen`) also as its genitive (`centauri`)."""
    last = squashed_base[-3:] if len(squashed_base) > 3 and squashed_base[-3:] in _GENITIVE_OF else ""
    head = squashed_base[:len(squashed_base) - len(last)]
    out = _GAP.join(re.escape(ch) for ch in head)
    if last:
        spelled = [_GENITIVE_OF[last], last]  # the genitive first: `Cen` must not stop inside `Centauri`
        out += _GAP + "(?:" + "|".join(_GAP.join(re.escape(ch) for ch in form) for form in spelled) + ")"
    return out


def _unaccented(text: str) -> str:
    """The text without accents, case kept (the letter's case is what tells a star `B` from a planet `b`)."""
    if text.isascii():
        return text
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


def component_named(name: str, passage: str, squashed_base: list[str]) -> bool:
    """Whether the passage writes the star `name` names, letter and all (`squashed_base`: the forms of its
    designation without the letter, as names.py squashes them)."""
    found = component(name)
    if found is None:
        return False
    _, letters, planet = found
    text = _unaccented(spell_greek(passage)).replace("\\", " ")
    lowered = text.lower()
    if len(lowered) != len(text):
        return False
    for base in squashed_base:
        for match in re.finditer(_pattern(base), lowered):
            after = _LETTERS.match(text, match.end())
            if after is None:
                continue
            written = set(re.findall(r"[A-C]", after.group("letters")))
            if letters <= written and (not planet or after.group("planet") in (None, planet)):
                return True
    return False
