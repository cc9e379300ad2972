""""Did you mean …?" for every name a person types: providers, config keys, skills, sessions, commands."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def close_names(name: str, choices: Iterable[str], n: int = 1, cutoff: float = 0.7) -> list[str]:
    """The known names closest to a mistyped one (case ignored), best first."""
    by_lower: dict[str, str] = {}
    for choice in choices:
        by_lower.setdefault(choice.lower(), choice)
    return [by_lower[m] for m in difflib.get_close_matches(name.lower(), list(by_lower), n=n, cutoff=cutoff)]


def did_you_mean(name: str, choices: Iterable[str], quote: str = "'") -> str:
    """" (did you mean 'model'?)" for a close name, else ""."""
    found = close_names(name, choices)
    return f" (did you mean {quote}{found[0]}{quote}?)" if found else ""
