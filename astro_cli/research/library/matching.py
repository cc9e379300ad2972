"""When two descriptions name the same paper: the rules `Library.upsert` merges rows by.

Two records are merged only when their identifiers agree: different arXiv ids or different
bibcodes are different papers, whatever else they share (a wrong lookup answer must never turn one
paper's row into another's). A row is a stored `Paper` or a field mapping about to be stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from astro_cli.research.identifiers import arxiv_of_doi, doi_key, is_preprint_bibcode, same_bibcode_paper

Fields = Mapping[str, Any]


def disagreement(row: Fields, clean: Fields) -> str | None:
    """Why `row` cannot be the paper `clean` describes, or None when nothing speaks against it."""
    arxiv = clean.get("arxiv_id")
    if arxiv and row.get("arxiv_id") and row["arxiv_id"] != arxiv:
        return f"it has arXiv id {row['arxiv_id']}, not {arxiv}" + _shared(row, clean)
    bibcode = clean.get("bibcode")
    if bibcode and row.get("bibcode") and not same_bibcode_paper(row["bibcode"], bibcode,
                                                                arxiv or row.get("arxiv_id")):
        return f"it has bibcode {row['bibcode']}, not {bibcode}" + _shared(row, clean)
    if not (arxiv and row.get("arxiv_id")) and not (bibcode and row.get("bibcode")):
        # Linked by the DOI or the id alone: a DOI on both sides that differs means two papers.
        doi = clean.get("doi")
        if doi and row.get("doi") and doi_key(doi) != doi_key(row["doi"]) and row["id"] != clean.get("id"):
            return f"it has DOI {row['doi']}, not {doi}"
    return None


def _shared(row: Fields, clean: Fields) -> str:
    if clean.get("doi") and doi_key(clean["doi"]) == doi_key(row.get("doi")):
        return f" (both give DOI {row['doi']})"
    if clean.get("bibcode") and clean["bibcode"] == row.get("bibcode"):
        return f" (both give bibcode {row['bibcode']})"
    return ""


def keep_stored_identifiers(row: Fields, clean: dict[str, Any]) -> None:
    """A matched row keeps its identifiers; a preprint's bibcode or arXiv DOI gives way to the journal's."""
    bibcode = clean.get("bibcode")
    if bibcode and row.get("bibcode") and bibcode != row["bibcode"]:
        if not (is_preprint_bibcode(row["bibcode"]) and not is_preprint_bibcode(bibcode)):
            clean.pop("bibcode")
    doi = clean.get("doi")
    if doi and row.get("doi") and doi_key(doi) != doi_key(row["doi"]):
        if not (arxiv_of_doi(row["doi"]) and not arxiv_of_doi(doi)):
            clean.pop("doi")
    if clean.get("arxiv_id") and row.get("arxiv_id"):
        clean.pop("arxiv_id")  # equal, or the row would not have matched


def identifiers_text(row: Fields) -> str:
    parts = [f"{label} {row[key]}" for key, label in (("arxiv_id", "arXiv"), ("bibcode", "bibcode"), ("doi", "DOI"))
             if row.get(key)]
    return ", ".join(parts) or "no identifiers"
