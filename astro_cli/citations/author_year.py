"""Does a paper match an author-year citation ("Cowan & Agol 2011")? Used by the check of what
tools returned (check.py) and by the online look-up (resolve.py) alike."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.citations.extract import Cited


def _norm(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return " ".join(re.sub(r"[^a-z\s-]", "", plain).split())


@lru_cache(maxsize=4096)
def _variants(author: str) -> frozenset[str]:
    """An author's last name as it may be cited: whole ('van leeuwen') and without particles ('leeuwen')."""
    from astro_cli.research.bibtex.text import surname

    last = _norm(surname(author))
    return frozenset({last, last.split()[-1]}) if last else frozenset()


def matches_author_year(cited: Cited, record: dict[str, Any]) -> int | None:
    """How far the record's year is from the citation's (0 or 1) when the authors match; None otherwise."""
    authors = list(record.get("authors") or [])
    years = [int(str(y)) for y in (record.get("year"), record.get("pub_year")) if str(y or "").isdigit()]
    if not authors or not years or cited.year is None:
        return None
    distance = min(abs(cited.year - y) for y in years)
    if distance > 1:
        return None
    for index, name in enumerate(cited.surnames):
        if index >= len(authors):
            return None
        wanted, author = _norm(name), _norm(authors[index])
        # The name parser runs only for an author whose name contains the cited one at all.
        if wanted not in author or (wanted != author and wanted not in _variants(authors[index])):
            return None
    return distance


def best_match(cited: Cited, records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The record that matches an author-year citation best (the nearest year), if any."""
    scored = [(d, r) for r in records if (d := matches_author_year(cited, r)) is not None]
    return min(scored, key=lambda item: item[0])[1] if scored else None
