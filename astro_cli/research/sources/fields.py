"""Values from a service's answer, read by their type and bounded.

An answer from ADS, arXiv, Crossref or SIMBAD is outside data: a mirror, a proxy or a broken service
can put a number where text belongs, null, a list of objects, or a megabyte title. Parsers read
every field through these functions, so such an answer gives a record with what could be read (a
wrong type reads as absent) and never a traceback; `mapping` and `records` say in one sentence when
the answer as a whole is not what was asked for.
"""

from __future__ import annotations

from astro_cli.research.sources.answers import JSONObject
from astro_cli.research.sources.http import ServiceError

MAX_TEXT = 20_000  # an abstract is a few kB; a longer field is cut (the rest is not a paper's metadata)
MAX_SHORT = 1_000  # identifiers, journal names, author names
MAX_ITEMS = 3_000  # authors of the largest collaborations, identifiers, keywords
MAX_DIGITS = 12


def text(value: object, limit: int = MAX_TEXT) -> str:
    """A string field: text as given, a number written out, anything else (null, list, object) empty."""
    if isinstance(value, str):
        return value[:limit]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)[:limit]
    return ""


def first_text(value: object, limit: int = MAX_TEXT) -> str:
    """A field ADS gives as a list of strings (title, doi, page) or as one string: its first text."""
    if isinstance(value, list):
        return next((found for found in (text(item, limit) for item in value[:MAX_ITEMS]) if found), "")
    return text(value, limit)


def texts(value: object, limit: int = MAX_SHORT, items: int = MAX_ITEMS) -> list[str]:
    """A list-of-strings field: its string (or number) items, bounded; one string is a list of one."""
    if isinstance(value, list):
        return [found for found in (text(item, limit) for item in value[:items]) if found]
    found = text(value, limit)
    return [found] if found else []


def integer(value: object) -> int | None:
    """A count or a year: an int, or a string of digits; anything else (a bool, a float, 10**400) is None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) < 10**MAX_DIGITS else None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= MAX_DIGITS:
        return int(value.strip())
    return None


def optional_text(value: object, limit: int = MAX_SHORT) -> str | None:
    return text(value, limit) or None


def mapping(value: object, service: str, what: str = "an answer") -> JSONObject:
    """The answer's JSON object, or one sentence saying the service sent something else."""
    if not isinstance(value, dict):
        raise ServiceError(f"{service} sent {what} astro cannot read (not a JSON object); try again later.")
    return value


def records(value: object) -> list[JSONObject]:
    """The objects of a list of records (other items skipped: they carry nothing to read)."""
    if not isinstance(value, list):
        return []
    return [item for item in value[:MAX_ITEMS] if isinstance(item, dict)]
