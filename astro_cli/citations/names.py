"""Is a designation a claim names in the passage? Names as the field writes them.

Compared folded (accents, case), without spaces and hyphens (`HD 189733b` = `HD189733 b`), with Greek
letters and their names alike (`β Pic` = `beta Pic` = `\\beta Pic`), catalogue prefixes that name the same
catalogue alike (`GJ` = `Gl` = `Gliese`, `M` = `Messier`), a constellation's abbreviation and genitive alike
(`51 Peg` = `51 Pegasi`, `ε Eri` = `eps Eridani`: constellations.py), and a planet by its host's designation when
the passage gives the host alone as a label (`XO-2b` in a table row `XO-2[23] | 1340(30)`, a list) — not
another planet of it (`WASP-12c`), another number (`XO-23`), nor the host inside a phrase (`the HD 189733
system` says nothing of HD 189733b in particular). A star's component letter is part of its name
(`α Cen A` is not `α Cen B`: components.py).
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.components import component, component_named
from astro_cli.citations.constellations import one_form
from astro_cli.citations.greek import spell_greek
from astro_cli.citations.object_columns import captioned_object, object_column, with_column_units
from astro_cli.citations.planets import labels, split_planet
from astro_cli.research.text.pdfchars import fold

_ALIASES = (("gliese", "gj", "gl"), ("messier", "m"), ("hipparcos", "hip"))
_SEPARATORS = re.compile(r"[\s\-‐–\\{}$~]")
_PLANET = re.compile(r"^(?P<host>.*\d)(?P<letter>[b-h])$")


def squash(text: str) -> str:
    """A name or a text as names are compared: folded, lower case, Greek letters spelled, no spaces or hyphens."""
    return _SEPARATORS.sub("", one_form(fold(spell_greek(text).lower())))


@lru_cache(maxsize=512)
def _spaced(text: str) -> str:
    """The passage folded, lower case, hyphens and LaTeX marks dropped, one space between words."""
    return " ".join(re.sub(r"[\-‐–\\{}$]", "", one_form(fold(spell_greek(text).lower()))).split())


def _variants(squashed: str) -> list[str]:
    out = [squashed]
    for group in _ALIASES:
        for prefix in group:
            if squashed.startswith(prefix) and squashed[len(prefix):len(prefix) + 1].isdigit():
                out += [alias + squashed[len(prefix):] for alias in group if alias != prefix]
    return out


def _pattern(squashed: str) -> str:
    """A regex for a squashed name in the spaced passage: a space may stand between any two characters."""
    return r"\s?".join(re.escape(ch) for ch in squashed)


def named_in(name: str, passage: str, squashed_passage: str | None = None) -> bool:
    """Whether the passage names `name` (see the module's rules)."""
    star = component(name)
    if star is not None:  # `α Cen A`: the passage must write that star, not another of the system
        return component_named(name, passage, _variants(squash(star[0])))
    squashed_passage = squashed_passage if squashed_passage is not None else squash(passage)
    wanted = squash(name)
    variants = _variants(wanted)
    if any(v in squashed_passage for v in variants) or _listed_after_prefix(name, passage):
        return True
    planet = _PLANET.match(wanted)
    if planet is None:
        return False
    if _by_letter(name, passage, squashed_passage):
        return True
    spaced = _spaced(passage)
    for host in _variants(planet.group("host")):
        # the host alone as a label (a table row `XO-2[23] |`, a list `XO-2, XO-3`), not inside a phrase
        if re.search(_pattern(host) + r"(?=\s?(?:[\[\]|(),;:.]|$))", spaced):
            return True
    return False


def _listed_after_prefix(name: str, passage: str) -> bool:
    """`TIC 260351540` in `TIC 235056185 and 260351540`: a list of one catalogue's objects writes its prefix once."""
    split = re.fullmatch(r"([A-Za-z][A-Za-z-]*?)[\s-]?(\d[\w.+-]*)", name.strip())
    if split is None or split.group(2) not in passage:
        return False
    prefix, number = (re.escape(part) for part in split.groups())
    item = r"\d[\w.+-]*"
    return re.search(rf"\b{prefix}[\s-]?{item}(?:\s*(?:,|and|&)\s*{item})*?\s*(?:,|and|&)\s*{number}(?![\w.+-])",
                     passage) is not None


def _by_letter(name: str, passage: str, squashed_passage: str) -> bool:
    """`TRAPPIST-1 b` in a table of columns `b | c | ...` or prose "planet b" that names this host or no other
    system (planets.py)."""
    split = split_planet(name)
    if split is None or split[1] not in labels(passage):
        return False
    hosts = _variants(squash(split[0]))
    return any(h in squashed_passage for h in hosts) or not any(
        not any(other.startswith(h) for h in hosts) for other in _systems(passage))


@lru_cache(maxsize=256)
def _systems(passage: str) -> tuple[str, ...]:
    """The designations a passage names, squashed."""
    from astro_cli.citations.claims import DESIGNATION

    return tuple(squash(m.group(0)) for m in DESIGNATION.finditer(passage))


@lru_cache(maxsize=256)
def _caption_names(passage: str) -> tuple[str, ...]:
    from astro_cli.citations.claims import DESIGNATION

    return tuple(m.group(0) for m in DESIGNATION.finditer(passage.lstrip().split("\n", 1)[0]))


def rows_of(name: str, passage: str) -> list[str]:
    """The stretches of a table that belong to `name` (or its host): from where it stands to the next designation."""
    from astro_cli.citations.claims import DESIGNATION

    column = object_column(name, passage, squash)
    if column is not None:  # a table of one column per object: its values are its column
        return [column]
    if passage.lstrip().startswith("[Caption:") and captioned_object(name, passage, squash, _caption_names(passage)):
        return [passage]  # a table of this object alone: all its rows are its
    wanted = squash(name)
    planet = _PLANET.match(wanted)
    hosts = [wanted] + ([planet.group("host")] if planet else [])
    pattern = "|".join(r"[\s\-‐–]?".join(re.escape(ch) for ch in host) for host in hosts)
    out = []
    for match in re.finditer(pattern, passage, re.IGNORECASE):
        after = [m.start() for m in DESIGNATION.finditer(passage, match.end())
                 if squash(m.group(0)) not in hosts and not squash(m.group(0)).startswith(hosts[-1])]
        out.append(with_column_units(passage[match.start():after[0] if after else len(passage)], passage))
    return out
