"""BibTeX for papers: NASA ADS's own export when a token is set, else built from stored metadata.

ADS entries are what journals expect (journal macros, ADS keys), so every paper with a bibcode
goes to the export service when a token is available, and its entry is kept byte for byte. ADS
is checked, not trusted: a bibcode that did not come back gets the metadata entry and a note.

Without ADS the entry must still be right. A paper arXiv lists as published (its journal_ref,
"Phys. Rev. B 85, 115117 (2012)", or ADS's journal, volume and page stored at download) is
exported as the published article (journal, volume, pages or eid, year, doi) with its `eprint`,
`archivePrefix` and `primaryClass`; only a paper with no published version stays an
`arXiv e-prints` entry. Titles are braced whole, as ADS does, so every capital survives any style.
The entry itself (type, fields, journal macro, month, number, pages) is bibtex_entry.py's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from astro_cli.research.bibtex.entry import build
from astro_cli.research.bibtex.name_accents import with_paper_accents
from astro_cli.research.identifiers import doi_key
from astro_cli.research.records import Paper
from astro_cli.research.sources import ads
from astro_cli.research.sources.http import ServiceError

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore

ENTRY_START = re.compile(r"(?m)^@")
ENTRY_KEY = re.compile(r"^@\s*\w+\s*\{\s*([^,\s]+)\s*,")
FIELD_VALUE = r"(?im)^\s*{name}\s*=\s*[{{\"]+([^}}\"]+)"


def from_metadata(paper: Paper | Mapping[str, Any], max_authors: int = 10, author_cutoff: int = 200) -> str:
    """One entry from stored metadata, as ADS writes it (research/bibtex/entry.py); a paper known outside
    the library (a service's record, a session's source entry) is read as a `Paper` first."""
    return build(as_paper(paper), max_authors, author_cutoff).text


def as_paper(paper: Paper | Mapping[str, Any]) -> Paper:
    return paper if isinstance(paper, Paper) else Paper.of(paper)


# --- ADS's export, checked ---------------------------------------------------------------------
def split_entries(text: str) -> list[str]:
    """The entries of a BibTeX text, each exactly as written (without the blank lines between)."""
    starts = [m.start() for m in ENTRY_START.finditer(text)]
    return [text[a:b].rstrip() for a, b in zip(starts, [*starts[1:], len(text)])]


def _entry_names(entry: str) -> set[str]:
    """The names an ADS entry can be matched by: its key, and its eprint and DOI."""
    names: set[str] = set()
    key = ENTRY_KEY.match(entry)
    if key:
        names.add(key.group(1))
    for field_name in ("eprint", "doi"):
        value = re.search(FIELD_VALUE.format(name=field_name), entry)
        if value:
            names.add(value.group(1).strip() if field_name == "eprint" else "doi:" + value.group(1).strip().lower())
    return names


def _match_ads_entries(papers: Sequence[Paper], entries: list[str]) -> dict[int, str]:
    """{paper index: its ADS entry}: by key (the bibcode), else by its eprint or DOI."""
    named = [(entry, _entry_names(entry)) for entry in entries]
    found: dict[int, str] = {}
    for index, paper in enumerate(papers):
        wanted = [str(paper.bibcode)]
        wanted += [str(paper.arxiv_id)] if paper.arxiv_id else []
        wanted += [f"doi:{doi_key(paper.doi)}"] if paper.doi else []
        for name in wanted:
            entry = next((e for e, names in named if name in names), None)
            if entry is not None:
                found[index] = entry
                break
    return found


def export(library: LibraryCore, given: Sequence[Paper | Mapping[str, Any]]) -> tuple[str, list[str]]:
    """(BibTeX text, notes), one entry per paper in the order given.

    Papers with a bibcode come from the ADS export service (one request) when a token is set,
    each entry byte for byte; any bibcode ADS did not send back, and every other paper, gets the
    entry built from the stored metadata, and the notes say so.
    """
    papers = [as_paper(p) for p in given]
    notes: list[str] = []
    by_ads: dict[int, str] = {}
    with_bibcode = [i for i, p in enumerate(papers) if p.bibcode]
    if with_bibcode and ads.has_token(library.web):
        bibcodes = list(dict.fromkeys(str(papers[i].bibcode) for i in with_bibcode))
        try:
            entries = split_entries(ads.export_bibtex(library.web, bibcodes))
        except ServiceError as exc:
            notes.append(f"{exc} The entries were built from the stored metadata instead.")
        else:
            by_ads = _match_ads_entries([papers[i] for i in with_bibcode], entries)
            by_ads = {with_bibcode[i]: entry for i, entry in by_ads.items()}
            missing = [str(papers[i].bibcode) for i in with_bibcode if i not in by_ads]
            if missing:
                notes.append(f"NASA ADS sent no entry for {', '.join(missing)}; "
                             f"{'its entry was' if len(missing) == 1 else 'their entries were'} built from the "
                             "stored metadata.")
    elif papers and not ads.has_token(library.web):
        notes.append("No ADS_API_TOKEN is set (`astro keys set ads` sets one), so the entries were built from "
                     "the stored metadata (arXiv's journal reference gives the published version).")
    out: list[str] = []
    max_authors = library.settings.typed["bibtex.max_authors"]
    cutoff = library.settings.typed["bibtex.author_cutoff"]
    incomplete: list[str] = []
    for index, paper in enumerate(papers):
        text = by_ads.get(index)
        if text is None:
            built = build(with_paper_accents(library, paper), max_authors, cutoff)
            text = built.text.rstrip()
            if built.missing:
                incomplete.append(f"{built.key} (no {' or '.join(built.missing)})")
        if text not in out:
            out.append(text)
    if incomplete:
        notes.append(f"{len(incomplete)} entr{'y has' if len(incomplete) == 1 else 'ies have'} no author or title "
                     f"anyone could find, marked with a note in the entry: {', '.join(incomplete)}.")
    return ("\n\n".join(out) + "\n") if out else "", notes
