"""The names a paper goes by (arXiv id, ADS bibcode, DOI): normalising and comparing them.

Every part that decides whether two records are the same paper (the library, the download's
lookups, the citation check) compares identifiers through these functions, so 'arXiv:1001.0012v2',
'https://arxiv.org/abs/1001.0012' and '1001.0012' are one id everywhere, and DOIs compare without
regard to case (as the DOI system does) while keeping the case they were registered with.
"""

from __future__ import annotations

import re
from typing import Any

ARXIV_PREFIX = re.compile(r"^(?:arxiv:|https?://(?:export\.)?arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE)
VERSION = re.compile(r"v\d+$")
DOI_PREFIX = re.compile(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)
ARXIV_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)?10\.48550/arxiv\.(.+)$", re.IGNORECASE)
# An ADS bibcode is 19 characters: year, journal (5), volume (4), qualifier, page (4), initial.
BIBCODE = re.compile(r"^\d{4}[A-Za-z&.]{1,5}[\w.&]{9,14}[A-Z.]$")
ARXIV_BIBCODE = re.compile(r"^\d{4}arXiv(\d{4})\.?(\d{4,5})[A-Z.]$")
NEW_ARXIV = re.compile(r"^\d{4}\.\d{4,5}$")
OLD_ARXIV = re.compile(r"^[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7}$")


def normalize_arxiv(raw: str | None) -> str | None:
    """'arXiv:1001.0012v2', 'https://arxiv.org/abs/1001.0012' and '1001.0012' all name 1001.0012."""
    if not raw:
        return None
    text = ARXIV_PREFIX.sub("", str(raw).strip())
    text = text.removesuffix(".pdf")
    return VERSION.sub("", text) or None


def normalize_doi(raw: str | None) -> str | None:
    """The DOI without 'doi:' or a resolver URL, in the case it was given (DOIs ignore case)."""
    if not raw:
        return None
    return DOI_PREFIX.sub("", str(raw).strip()) or None


def doi_key(raw: str | None) -> str | None:
    """The form two DOIs are compared in."""
    doi = normalize_doi(raw)
    return doi.lower() if doi else None


def is_arxiv_id(text: str) -> bool:
    return bool(NEW_ARXIV.match(text) or OLD_ARXIV.match(text))


def arxiv_of_bibcode(bibcode: str | None) -> str | None:
    """The arXiv id an arXiv bibcode (2012arXiv1202.3665F) stands for; None for a journal bibcode."""
    match = ARXIV_BIBCODE.match(bibcode or "")
    return f"{match.group(1)}.{match.group(2)}" if match else None


def arxiv_of_doi(doi: str | None) -> str | None:
    """The arXiv id an arXiv DOI (10.48550/arXiv.1202.3665) stands for."""
    match = ARXIV_DOI.match(doi or "")
    return normalize_arxiv(match.group(1)) if match else None


def is_preprint_bibcode(bibcode: str | None) -> bool:
    return arxiv_of_bibcode(bibcode) is not None


def same_bibcode_paper(a: str | None, b: str | None, arxiv_id: str | None) -> bool:
    """Two bibcodes name one paper when equal, or when one is the arXiv bibcode of `arxiv_id`.

    ADS gives an e-print the bibcode 2012arXiv1202.3665F and, once it is published, a journal
    bibcode (2013PASP..125..306F): that is the same paper, not a conflict.
    """
    if not a or not b:
        return True
    if a == b:
        return True
    return bool(arxiv_id) and arxiv_id in (arxiv_of_bibcode(a), arxiv_of_bibcode(b))


def record_keys(record: dict[str, Any]) -> set[tuple[str, str]]:
    """Every identifier a record carries, as (kind, comparable value) pairs.

    ADS lists all of a paper's names in `identifiers` (alternate bibcodes, DOIs, 'arXiv:ID');
    library rows and arXiv records have the three fields.
    """
    keys: set[tuple[str, str]] = set()
    values: list[str] = [str(v) for v in record.get("identifiers") or [] if v]
    if record.get("arxiv_id"):
        keys.add(("arxiv", normalize_arxiv(str(record["arxiv_id"])) or ""))
    if record.get("bibcode"):
        values.append(str(record["bibcode"]))
    if record.get("doi"):
        values.append("doi:" + str(record["doi"]))
    for value in values:
        keys.update(keys_of(value))
    keys.discard(("arxiv", ""))
    return keys


def keys_of(identifier: str) -> set[tuple[str, str]]:
    """The (kind, comparable value) pairs one identifier stands for (an arXiv bibcode: two)."""
    text = identifier.strip()
    found: set[tuple[str, str]] = set()
    arxiv = arxiv_of_doi(text)
    if arxiv:
        return {("arxiv", arxiv), ("doi", doi_key(text) or "")}
    if DOI_PREFIX.match(text) or text.startswith("10."):
        return {("doi", doi_key(text) or "")}
    if BIBCODE.match(text):
        found.add(("bibcode", text))
        arxiv = arxiv_of_bibcode(text)
        if arxiv:
            found.add(("arxiv", arxiv))
        return found
    arxiv = normalize_arxiv(text)
    if arxiv and is_arxiv_id(arxiv):
        found.add(("arxiv", arxiv))
    return found


def carries(record: dict[str, Any], identifier: str) -> bool:
    """Whether a lookup's answer is really about `identifier` (any of its names equal, case-insensitively)."""
    wanted = {(kind, value.lower()) for kind, value in keys_of(identifier)}
    have = {(kind, value.lower()) for kind, value in record_keys(record)}
    return bool(wanted) and bool(wanted & have)

