"""Rows that are likely one paper, and `astro library merge A B`, which makes them one.

`library check` already reports rows that share a DOI, bibcode or arXiv id (library.conflicts);
this adds rows added from the same file (the same SHA-256) and rows whose titles are near-identical
with the same first author (one added from a local .tex, one downloaded from arXiv, say).
Merging keeps A's row and id (chunks, notes and citations point at it), fills what A lacks from
B (identifiers, year, abstract, files), gives B's indexed text to A when A has none, and removes B.
"""

from __future__ import annotations

import difflib
import re
import shutil
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore
    from astro_cli.research.records import Paper

TITLE_SIMILARITY = 0.92  # "The MCMC Hammer" vs "emcee: The MCMC Hammer" is not enough; a typo or case is
# Filled from B only where A has none; ids and bookkeeping (added_at, added_by) stay A's.
MERGED_FIELDS = ("arxiv_id", "bibcode", "doi", "title", "authors", "year", "abstract", "citation_count", "url",
                 "journal_ref", "primary_class", "journal", "volume", "page", "pub_year", "pages", "content_sha256")


@dataclass(frozen=True)
class Duplicate:
    a: str
    b: str
    reason: str


def _title_key(title: str | None) -> str:
    text = unicodedata.normalize("NFKD", title or "").encode("ascii", "ignore").decode().lower()
    return " ".join(re.findall(r"[a-z0-9]+", text))


def _surname(paper: Paper) -> str:
    """The first author's surname, folded: "Foreman-Mackey, D." and "Daniel Foreman-Mackey" agree."""
    authors = paper.authors
    first = str(authors[0]) if authors else ""
    name = first.split(",")[0] if "," in first else (first.split() or [""])[-1]
    return _title_key(name).replace(" ", "")


def likely_duplicates(papers: Sequence[Paper]) -> list[Duplicate]:
    """Pairs (older row first) added from the same file, or with near-identical titles and first authors."""
    ordered = sorted(papers, key=lambda p: (str(p.added_at or ""), p.id))
    found: list[Duplicate] = []
    seen: set[tuple[str, str]] = set()
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            reason = _same_paper_reason(a, b)
            if reason and (a.id, b.id) not in seen:
                seen.add((a.id, b.id))
                found.append(Duplicate(a.id, b.id, reason))
    return found


def _same_paper_reason(a: Paper, b: Paper) -> str | None:
    if a.content_sha256 and a.content_sha256 == b.content_sha256:
        return "added from the same file"
    ta, tb = _title_key(a.title), _title_key(b.title)
    if not ta or not tb or len(ta) < 12:
        return None
    if difflib.SequenceMatcher(None, ta, tb).ratio() < TITLE_SIMILARITY:
        return None
    sa, sb = _surname(a), _surname(b)
    if sa and sb and sa != sb:
        return None
    return "near-identical titles" + (f" and the same first author ({sa})" if sa and sb else "")


class MergeRefused(Exception):
    """Two rows that cannot be one paper (different arXiv ids, say): one clear sentence."""


def merge_papers(library: LibraryCore, keep: str, drop: str) -> Paper:
    """Fold row `drop` into row `keep`; the merged row."""
    a, b = library.get_paper(keep), library.get_paper(drop)
    for name, row in ((keep, a), (drop, b)):
        if row is None:
            raise MergeRefused(f"Paper '{name}' is not in the library; `astro library list` shows what is.")
    assert a is not None and b is not None
    if a.id == b.id:
        raise MergeRefused(f"{keep} and {drop} are the same row.")
    for key, label in (("arxiv_id", "arXiv ids"), ("bibcode", "bibcodes")):
        if getattr(a, key) and getattr(b, key) and getattr(a, key) != getattr(b, key):
            raise MergeRefused(f"{a.id} and {b.id} have different {label} ({getattr(a, key)}, {getattr(b, key)}): they are two "
                               "papers. Remove the wrong row with `astro library remove`.")
    fields: dict[str, Any] = {k: getattr(b, k) for k in MERGED_FIELDS if getattr(b, k) not in (None, "", [], ()) and not getattr(a, k)}
    taken = [k for k in ("pdf_path", "source_path") if getattr(b, k) and not getattr(a, k)]
    fields.update({k: getattr(b, k) for k in taken})
    store = library.store
    with store.transaction():
        if not store.chunk_count(a.id) and store.chunk_count(b.id):
            store.move_chunks(b.id, a.id)
            fields.update({k: getattr(b, k) for k in ("parsed_at", "parsed_from") if getattr(b, k)})
        store.delete_paper(b.id)
        if "authors" in fields and not isinstance(fields["authors"], str):
            import json

            fields["authors"] = json.dumps(fields["authors"])
        store.update_paper(a.id, fields)
    kept = {library.resolve_file(getattr(b, k)) for k in taken}
    for path in library.paper_files(b):  # B's own files A did not take
        if path in kept or any(p is not None and p.resolve() == path for p in kept):
            continue
        shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
    merged = library.get_paper(a.id)
    assert merged is not None
    return merged
