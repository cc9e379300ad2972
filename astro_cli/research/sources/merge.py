"""Merging paper records from several services into one list without duplicates.

The same paper comes back from ADS (bibcode, citations) and arXiv (arXiv id, abstract); two
records are the same paper when they share an arXiv id, a DOI or a bibcode, and carry no arXiv id
or bibcode that differs (see research/identifiers.py). The merged record
keeps the first service's values and fills the gaps from the others, so ADS (listed first) wins.
"""

from __future__ import annotations

from typing import Any

from astro_cli.research.identifiers import same_bibcode_paper

KEYS = ("arxiv_id", "doi", "bibcode")


def _keys(record: dict[str, Any]) -> list[tuple[str, str]]:
    return [(k, str(record[k]).strip().lower()) for k in KEYS if record.get(k)]


def canonical_id(record: dict[str, Any]) -> str | None:
    """The library's id for a paper: the arXiv id when known, else the bibcode, else the DOI."""
    return record.get("arxiv_id") or record.get("bibcode") or record.get("doi")


def _compatible(a: dict[str, Any] | None, b: dict[str, Any]) -> bool:
    """Records that share a DOI but carry different arXiv ids or bibcodes are two papers, not one."""
    if a is None:
        return False
    if a.get("arxiv_id") and b.get("arxiv_id") and a["arxiv_id"] != b["arxiv_id"]:
        return False
    return same_bibcode_paper(a.get("bibcode"), b.get("bibcode"), a.get("arxiv_id") or b.get("arxiv_id"))


def _combine(into: dict[str, Any], other: dict[str, Any]) -> None:
    for key, value in other.items():
        if key == "sources":
            into["sources"] = list(dict.fromkeys([*(into.get("sources") or []), *(value or [])]))
        elif key == "citation_count":
            counts = [c for c in (into.get(key), value) if isinstance(c, int)]
            into[key] = max(counts) if counts else None
        elif key == "biblio" and isinstance(value, dict):
            into[key] = {**value, **(into.get(key) or {})}  # the first service's facts win, per fact
        elif into.get(key) in (None, "", []):
            into[key] = value


def merge(*lists: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One list of records, first-seen order, each paper once."""
    merged: list[dict[str, Any] | None] = []
    index: dict[tuple[str, str], int] = {}
    for records in lists:
        for record in records:
            hits = sorted({index[k] for k in _keys(record) if k in index
                           and _compatible(merged[index[k]], record)})
            if not hits:
                merged.append(dict(record))
                slot = len(merged) - 1
            else:
                slot = hits[0]
                target = merged[slot]
                assert target is not None
                _combine(target, record)
                for extra in hits[1:]:  # the record linked two entries: fold the later one in
                    other = merged[extra]
                    if other is not None and _compatible(target, other):
                        _combine(target, other)
                        merged[extra] = None
                        for key, value in list(index.items()):
                            if value == extra:
                                index[key] = slot
            target = merged[slot]
            assert target is not None
            for key in _keys(target):
                index[key] = slot
    result = [r for r in merged if r is not None]
    for record in result:
        record["id"] = canonical_id(record)
    return result


def source_entry(record: dict[str, Any]) -> dict[str, Any]:
    """What /sources lists for a paper a tool returned, with what the citation check matches on.

    The first authors and the year let an answer's "Foreman-Mackey et al. 2013" be checked;
    the identifiers and the journal reference let `/cite` write its BibTeX. (Stored in the tool
    message's meta, never sent to the model.)
    """
    from astro_cli.research.library.papers import SOURCE_AUTHORS

    authors = list(record.get("authors") or [])
    entry = {
        "id": record.get("id") or canonical_id(record),
        "title": record.get("title"),
        "bibcode": record.get("bibcode"),
        "arxiv_id": record.get("arxiv_id"),
        "url": record.get("url"),
        "doi": record.get("doi"),
        "year": record.get("year"),
        "authors": authors[:SOURCE_AUTHORS],
    }
    if len(authors) > SOURCE_AUTHORS:
        entry["n_authors"] = len(authors)
    for key in ("journal_ref", "journal", "volume", "page", "pub_year"):
        if record.get(key):
            entry[key] = record[key]
    if record.get("primary_category") or record.get("primary_class"):
        entry["primary_class"] = record.get("primary_category") or record["primary_class"]
    facts = record.get("biblio") or {}
    if facts:
        entry["biblio"] = facts  # doctype, month, issue, pages... for /cite's BibTeX
    if record.get("updates"):  # Crossref's retraction or correction notices: the citation must carry them (issue 43)
        entry["updates"] = record["updates"]
    return entry
