"""What astro lets through to a TAP service: one read-only SELECT, with a row limit.

TAP services answer ADQL SELECTs only, but some pass text on to their database, so astro refuses
anything else before it leaves the machine: a second statement, SELECT ... INTO, data-changing
words outside quoted strings. A query without TOP gets `TOP <limit>`; one with a larger TOP needs
the researcher's approval (the tool asks before it runs, see feature.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from astro_cli.catalog.errors import CatalogError

_STRING = re.compile(r"'(?:[^']|'')*'")
_QUOTED_NAME = re.compile(r'"(?:[^"]|"")*"')
# A string literal, a quoted name or a comment, whichever starts first: `--` inside quotes is text.
_TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*")
_WRITE_WORDS = re.compile(
    r"\b(INSERT|UPDATE|DELETE|DROP|CREATE|ALTER|TRUNCATE|GRANT|REVOKE|MERGE|COPY|INTO|EXECUTE|CALL)\b", re.IGNORECASE
)
_HEAD = re.compile(r"^\s*SELECT\s+(?:(ALL|DISTINCT)\s+)?(?:TOP\s+(\d+)\s+)?", re.IGNORECASE)
_TABLES = re.compile(r"\b(?:FROM|JOIN)\s+((?:\"(?:[^\"]|\"\")*\"|[\w.]+)(?:\.\"(?:[^\"]|\"\")*\")?)", re.IGNORECASE)


@dataclass(frozen=True)
class Checked:
    """A query astro will send: its text (with TOP), the row limit, and the tables it reads."""

    text: str
    top: int
    tables: list[str]


def _blank(pattern: re.Pattern[str], text: str) -> str:
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def strip_comments(adql: str) -> str:
    """The query without its `--` comments; a `--` inside a string literal or quoted name is kept."""
    return _TOKEN.sub(lambda m: "" if m.group(0).startswith("--") else m.group(0), adql)


def requested_top(adql: str) -> int | None:
    """The TOP a query asks for, None without one (or when it is no SELECT)."""
    match = _HEAD.match(strip_comments(adql or ""))
    return int(match.group(2)) if match and match.group(2) else None


def check(adql: str, limit: int) -> Checked:
    """The query to send with at most `limit` rows; CatalogError (one sentence) for what astro refuses."""
    text = strip_comments(str(adql or "")).strip().rstrip(";").strip()
    if not text:
        raise CatalogError("Give an ADQL query, e.g. SELECT TOP 10 * FROM gaiadr3.gaia_source.")
    bare = _blank(_QUOTED_NAME, _blank(_STRING, text))
    if ";" in bare:
        raise CatalogError("Send one ADQL statement at a time (no ';' between statements).")
    head = _HEAD.match(bare)
    if head is None:
        raise CatalogError("Only ADQL SELECT queries are sent to catalogue services (read-only); "
                           f"this query starts with '{text.split()[0][:20]}'.")
    write = _WRITE_WORDS.search(bare)
    if write:
        raise CatalogError(f"Catalogue queries are read-only: '{write.group(1).upper()}' is not allowed outside "
                           "quoted strings.")
    top = int(head.group(2)) if head.group(2) else None
    if top is None:
        start = head.end()
        text = f"{text[:start].rstrip()} TOP {limit} {text[start:].lstrip()}"
        top = limit
    elif top > limit:
        raise CatalogError(f"The query asks for TOP {top} rows, above the limit of {limit}; lower TOP, or pass "
                           f"max_rows={top} (the researcher is asked first).")
    return Checked(text, top, tables_of(text))


def tables_of(adql: str) -> list[str]:
    """The table names after FROM and JOIN, as written (quotes kept: VizieR's "I/355/gaiadr3")."""
    bare = _blank(_STRING, adql)
    return [m.group(1) for m in _TABLES.finditer(bare)]


def number(value: float) -> str:
    """A coordinate for ADQL: plain decimal, enough digits, no exponent."""
    return f"{value:.8f}"
