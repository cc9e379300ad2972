"""Merging paper records from several services into one list without duplicates.

The same paper comes back from ADS (bibcode, citations) and arXiv (arXiv id, abstract); two
records are the same paper when they share an arXiv id, a DOI or a bibcode, and carry no arXiv id
or bibcode that differs (see research/identifiers.py). The merged record follows the rule stated in
research/found.py: the first service's values are kept and the others fill the gaps, so ADS (listed
first) wins; what a later service said otherwise is kept in the record's `conflicts`.
"""

from __future__ import annotations

from collections.abc import Sequence

from astro_cli.research.found import FoundPaper
from astro_cli.research.identifiers import same_bibcode_paper
from astro_cli.research.source_entry import SourceEntry

KEYS = ("arxiv_id", "doi", "bibcode")


def _keys(record: FoundPaper) -> list[tuple[str, str]]:
    return [(k, str(value).strip().lower()) for k in KEYS if (value := getattr(record, k))]


def _compatible(a: FoundPaper | None, b: FoundPaper) -> bool:
    """Records that share a DOI but carry different arXiv ids or bibcodes are two papers, not one."""
    if a is None:
        return False
    if a.arxiv_id and b.arxiv_id and a.arxiv_id != b.arxiv_id:
        return False
    return same_bibcode_paper(a.bibcode, b.bibcode, a.arxiv_id or b.arxiv_id)


def merge(*lists: Sequence[FoundPaper]) -> list[FoundPaper]:
    """One list of records, first-seen order, each paper once (merged by `FoundPaper.__add__`)."""
    merged: list[FoundPaper | None] = []
    index: dict[tuple[str, str], int] = {}
    for records in lists:
        for record in records:
            hits = sorted({index[k] for k in _keys(record) if k in index
                           and _compatible(merged[index[k]], record)})
            if not hits:
                merged.append(record)
                slot, target = len(merged) - 1, record
            else:
                slot = hits[0]
                first = merged[slot]
                assert first is not None
                target = first + record
                for extra in hits[1:]:  # the record linked two entries: fold the later one in
                    other = merged[extra]
                    if other is not None and _compatible(target, other):
                        target = target + other
                        merged[extra] = None
                        for key, value in list(index.items()):
                            if value == extra:
                                index[key] = slot
                merged[slot] = target
            for key in _keys(target):
                index[key] = slot
    return [r.but(id=r.canonical_id) for r in merged if r is not None]


def source_entry(record: FoundPaper) -> SourceEntry:
    """What /sources lists for a paper a tool returned, with what the citation check matches on.

    The first authors and the year let an answer's "Foreman-Mackey et al. 2013" be checked (its
    `PaperRef`); the identifiers and the journal reference let `/cite` write its BibTeX. (Stored in
    the tool message's meta, never sent to the model.)
    """
    from astro_cli.research.records import REF_AUTHORS, PaperRef

    ref = PaperRef(record.id or record.canonical_id or "", record.title, record.authors[:REF_AUTHORS],
                   len(record.authors), record.year, record.arxiv_id, record.bibcode, record.doi, record.url)
    # biblio: doctype, month, issue, pages... for /cite's BibTeX; updates: Crossref's retraction or correction
    # notices, which the citation must carry (issue 43)
    return SourceEntry(ref, record.journal_ref, record.journal, record.volume, record.page, record.primary_class,
                       record.pub_year, dict(record.biblio or {}), tuple(n.as_dict() for n in record.updates))
