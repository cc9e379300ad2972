"""A section's path in its paper's outline: "7 Parameters › 7.6 Reionization › 7.6.2 Recombination history".

A chunk's own heading names its leaf section only; a question often uses the parent's words (the
subject of the chapter), so the vectors are made from the path (issue 42). Headings are numbered as
LaTeX numbers them or as the PDF prints them (`2.1`, `II.A`, `A.1`); unnumbered ones have no parent.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

SEPARATOR = " › "


def _number(heading: str) -> list[str] | None:
    first = heading.split(" ", 1)[0].rstrip(".")
    parts = first.split(".")
    if not first or not all(p and (p.isdigit() or p.isupper() and len(p) <= 5) for p in parts):
        return None
    if len(parts) == 1 and not (first.isdigit() or any(ch in first for ch in "IVX")):
        return None  # "A" alone is a word as often as an appendix number
    return parts


def section_paths(headings: Iterable[str]) -> dict[str, str]:
    """Each heading -> its path through the numbered headings above it (itself when it has none)."""
    paths: dict[str, str] = {}
    latest: dict[str, str] = {}  # number ("7.6") -> the last heading seen with it
    for heading in headings:
        parts = _number(heading)
        if parts is None:
            first = heading.split(" ", 1)[0]
            if len(first) == 1 and first.isupper():
                latest[first] = heading  # "A Installation": the parent of "A.1 ..." when one follows
            paths.setdefault(heading, heading)
            continue
        latest[".".join(parts)] = heading
        chain = [latest[key] for i in range(1, len(parts)) if (key := ".".join(parts[:i])) in latest]
        paths.setdefault(heading, SEPARATOR.join([*chain, heading]))
    return paths


def outline_headings(outline: str | None) -> list[str]:
    """The headings of a paper's stored outline (JSON of [heading, page] pairs); [] when unreadable."""
    try:
        return [str(item[0]) for item in json.loads(outline or "[]") if item and item[0]]
    except (ValueError, TypeError, IndexError, KeyError):
        return []
