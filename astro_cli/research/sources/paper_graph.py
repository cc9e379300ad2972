"""Citation trails: what a paper cites, who cites it, what resembles it (the paper_graph tool and
`astro papers refs|cited-by|similar ID`).

With an ADS token the answer is ADS's: `references(bibcode:X)`, `citations(bibcode:X)` and
`similar(bibcode:X)` through the search API, paged (`start`, `rows` <= 50) so a paper with 10,000
citations is a page and a count, never 10,000 lines. Without one, references come from the paper's
own bibliography, which parsing already put in its "References" chunks (one `[key] Authors year,
Journal, volume, page` paragraph per entry, latex_bib.py): each entry is resolved to an arXiv id or
DOI it names, else to the bibcode its journal, volume and page spell (`2013PASP..125..306F`, the
way ADS builds bibcodes). "Cited by" and "similar" need ADS's index, and say so in one sentence.
Every neighbour is marked when it is already in the library; the paper itself is never its own
neighbour, so a reference cycle cannot make a list loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.research.found import FoundPaper
from astro_cli.research.sources.http import ServiceError

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore
    from astro_cli.research.source_entry import ListedPapers
    from astro_cli.research.sources.web import Web

DIRECTIONS = {"refs": "references", "cited-by": "citations", "similar": "similar"}
TITLES = {"refs": "References of", "cited-by": "Papers citing", "similar": "Papers similar to"}
ADS_SORTS = {"refs": "date", "cited-by": "date", "similar": "relevance"}
MAX_ROWS = 50
BIBCODE = re.compile(r"^\d{4}[A-Za-z&.]{5}[\w.&]{9}[A-Za-z.]$")  # 19 characters, as ADS writes them
ENTRY = re.compile(r"^\[(?P<key>[^\]]{1,80})\]\s*(?P<text>.+)$", re.DOTALL)
# The part after the authors: " 2013, PASP, 125, 306". Found with `search` and the authors taken as the
# text before it, so no pattern has a leading `.*?` (which retries from every start: quadratic).
CITATION = re.compile(r"\s(?P<year>(?:18|19|20)\d\d)[a-z]?,\s{0,10}(?P<journal>[^,\d]{1,60}?),\s{0,10}"
                      r"(?P<volume>\d{1,5}),\s{0,10}(?P<page>[A-Za-z]?\d{1,6})")
# A reference is a few hundred characters; text beyond this is not read as one (it bounds every pattern's work).
MAX_REFERENCE_CHARS = 2_000
# In a PDF's run-on list, an entry ends with its page or e-print and the next begins "Surname, I." or "—.":
# the space before is cut where it follows a letter, digit, '+', '.' or ')' (never ',' or '&', as inside
# an author list).
NEXT_ENTRY = re.compile(r"(?<=[\w+.)])\s+(?=(?:—+\.?\s|[A-Z][\w'’-]+(?:\s[A-Z][\w'’-]+)?,\s(?:[A-Z]\.)))")
YEAR = re.compile(r"\b(?:18|19|20)\d\d[a-z]?,")
DOI = re.compile(r"\b(10\.\d{4,9}/[^\s,;]+[^\s,;.])")


@dataclass
class Neighbour:
    record: FoundPaper
    in_library: bool = False
    text: str = ""  # the reference as the paper printed it (bibliography only)


@dataclass
class GraphPage:
    paper: str  # what the paper was called in the answer (its bibcode, or the library id)
    direction: str
    total: int
    start: int
    neighbours: list[Neighbour] = field(default_factory=list)
    source: str = "NASA ADS"
    notes: list[str] = field(default_factory=list)


def check(direction: str, rows: int, start: int) -> None:
    if direction not in DIRECTIONS:
        raise ServiceError(f"direction must be one of {', '.join(DIRECTIONS)}, not '{direction}'.")
    if not 1 <= rows <= MAX_ROWS:
        raise ServiceError(f"rows must be between 1 and {MAX_ROWS}.")
    if start < 0:
        raise ServiceError("start must be 0 or more (the first neighbour is 0).")


def paper_graph(library: LibraryCore, identifier: str, direction: str = "refs", rows: int = 20,
                start: int = 0) -> GraphPage:
    """One page of a paper's references, citations or similar papers (neighbours in `library` marked)."""
    from astro_cli.research.sources import ads

    identifier = (identifier or "").strip()
    if not identifier:
        raise ServiceError("Give the paper's bibcode, arXiv id or DOI (or its id in the library).")
    check(direction, rows, start)
    if ads.has_token(library.web):
        return _from_ads(library.web, library, identifier, direction, rows, start)
    if direction != "refs":
        what = "who cites a paper" if direction == "cited-by" else "which papers resemble a paper"
        raise ServiceError(f"Finding {what} needs NASA ADS's citation index: set ADS_API_TOKEN (astro keys set "
                           "ads). Without it, paper_graph gives a library paper's references from its bibliography.")
    return _from_bibliography(library, identifier, rows, start)


def _from_ads(web: Web, library: LibraryCore, identifier: str, direction: str, rows: int,
              start: int) -> GraphPage:
    from astro_cli.research.sources import ads

    bibcode = _bibcode_of(web, library, identifier)
    query = f"{DIRECTIONS[direction]}(bibcode:{bibcode})"
    total, records = ads.search(web, query, rows, ADS_SORTS[direction], start=start)
    page = GraphPage(bibcode, direction, total, start)
    seen = {bibcode}
    for record in records:
        key = record.bibcode or record.id
        if not key or key in seen:  # the paper itself (a self-citation) or a repeat
            continue
        seen.add(key)
        page.neighbours.append(Neighbour(record, _in_library(library, record)))
    if start >= total and total:
        page.notes.append(f"start={start} is past the last of {total:,}; the first page is start=0.")
    return page


def _bibcode_of(web: Web, library: LibraryCore, identifier: str) -> str:
    from astro_cli.research.sources import ads
    from astro_cli.research.sources.arxiv_query import arxiv_id_of

    if BIBCODE.match(identifier):
        return identifier
    stored = library.get_paper(identifier)
    if stored and stored.bibcode:
        return str(stored.bibcode)
    wanted = f"arXiv:{arxiv_id_of(identifier)}" if arxiv_id_of(identifier) else identifier
    record = ads.lookup(web, wanted)
    if record is None or not record.bibcode:
        raise ServiceError(f"NASA ADS does not know the paper '{identifier}'; check the identifier.")
    return record.bibcode


def _in_library(library: LibraryCore, record: FoundPaper) -> bool:
    return any(name and library.get_paper(name) is not None for name in (record.arxiv_id, record.bibcode, record.doi))


def _from_bibliography(library: LibraryCore, identifier: str, rows: int, start: int) -> GraphPage:
    paper = library.get_paper(identifier)
    if paper is None:
        raise ServiceError(f"'{identifier}' is not in the library, and without ADS_API_TOKEN its references come "
                           "from its own bibliography: add it first (download_paper), or set ADS_API_TOKEN.")
    entries = bibliography(library, str(paper.id))
    if not entries:
        raise ServiceError(f"No reference list was found in the parsed text of {paper.id} (parse_paper reads "
                           "it from the LaTeX source or the PDF); with ADS_API_TOKEN, ADS has the references.")
    own = {str(getattr(paper, k)) for k in ("id", "arxiv_id", "bibcode", "doi") if getattr(paper, k)}
    neighbours = []
    for text in entries:
        record = resolve_reference(text)
        if record.id in own:  # a paper listing itself (a cycle of one)
            continue
        neighbours.append(Neighbour(record, _in_library(library, record), text))
    page = GraphPage(str(paper.id), "refs", len(neighbours), start, neighbours[start:start + rows],
                     source="its own bibliography")
    page.notes.append("Without ADS_API_TOKEN: references parsed from the paper's own bibliography; ids computed "
                      "from journal, volume and page are ADS-style bibcodes, not checked against ADS. "
                      "'cited-by' needs ADS.")
    return page


def bibliography(library: LibraryCore, paper_id: str) -> list[str]:
    """The paper's reference entries: `[key] Authors year, Journal, vol, page` paragraphs from LaTeX, or
    the run-on reference list of a PDF cut where the next entry's "Surname, I." begins."""
    entries: list[str] = []
    previous_authors = ""
    for chunk in library.store.chunks_of(paper_id):
        if chunk.kind != "references":
            continue
        text = chunk.text
        pieces = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
        if not any(ENTRY.match(p) for p in pieces):
            pieces = split_run_on(" ".join(text.split()))
        for piece in pieces:
            if not YEAR.search(piece) or piece in entries:
                continue
            if piece.startswith(("—", "---")) and previous_authors:  # "—. 2002b": the authors of the entry before
                piece = previous_authors + piece.lstrip("—-. ")
            previous_authors = piece[:YEAR.search(piece).start()]  # type: ignore[union-attr]
            entries.append(piece)
    return entries


def split_run_on(text: str) -> list[str]:
    """A PDF's reference list (one line of text) cut into entries at NEXT_ENTRY, except after a
    capitalised word: "Collier Cameron, A." is one author, not the start of an entry."""
    pieces, start = [], 0
    for match in NEXT_ENTRY.finditer(text):
        before = text[start:match.start()].rsplit(" ", 1)[-1]
        if before[:1].isupper() and before.rstrip(".").isalpha() and len(before.rstrip(".")) > 1:
            continue
        pieces.append(text[start:match.start()].strip())
        start = match.end()
    pieces.append(text[start:].strip())
    return [p for p in pieces if p]


def resolve_reference(text: str) -> FoundPaper:
    """A record for one bibliography entry: the arXiv id or DOI it names, else the bibcode it spells."""
    from astro_cli.research.sources.arxiv import NEW_ID, OLD_ID

    text = text[:MAX_REFERENCE_CHARS]
    entry = ENTRY.match(text)
    body = entry.group("text") if entry else text
    cited = CITATION.search(body)
    record: dict[str, Any] = {"id": None, "arxiv_id": None, "bibcode": None, "doi": None,
                              "title": "", "authors": [], "year": None, "citation_count": None}
    authors = body[:cited.start()].rsplit("\n", 1)[-1] if cited else ""
    if cited:
        record["year"] = int(cited.group("year"))
        record["authors"] = [authors.strip(" ,")]
    arxiv = re.search(r"arXiv[:\s]*(\S+)", body, re.IGNORECASE)
    arxiv_match = (NEW_ID.search(arxiv.group(1)) or OLD_ID.search(arxiv.group(1))) if arxiv else None
    doi = DOI.search(body)
    if arxiv_match:
        record["arxiv_id"] = record["id"] = arxiv_match.group(1)
    elif doi:
        record["doi"] = record["id"] = doi.group(1)
    elif cited:
        record["bibcode"] = record["id"] = bibcode_of_reference(
            cited.group("year"), cited.group("journal"), cited.group("volume"), cited.group("page"), authors)
    return FoundPaper.from_record(record)


def bibcode_of_reference(year: str, journal: str, volume: str, page: str, authors: str) -> str | None:
    """The bibcode ADS gives a journal article: 2013 PASP 125 306 Foreman-Mackey -> 2013PASP..125..306F."""
    from astro_cli.research.bibtex.journals import bibstem_of

    stem = bibstem_of(journal.strip(), page)
    initial = next((ch for ch in authors if ch.isalpha()), "")
    stem = "ApJ" if stem == "ApJL" else stem  # ADS files ApJ Letters under ApJ with an L before the page
    if not stem or not initial or len(stem) > 5:
        return None
    letter = page[0].upper() if page[:1].isalpha() else "."
    number = page[1:] if page[:1].isalpha() else page
    if len(volume) > 4 or len(number) > 4:
        return None
    return f"{year}{stem:.<5}{volume:.>4}{letter}{number:.>4}{initial.upper()}"


def format_for_model(page: GraphPage) -> str:
    """A numbered page of neighbours; titles and author names (written by strangers) inside frames."""
    from astro_cli.prompt.tags import escape_tags
    from astro_cli.research.sources.remote_search import authors_line
    from astro_cli.research.textblock import DATA_NOTE, frame

    shown = len(page.neighbours)
    header = f"{TITLES[page.direction]} {page.paper} ({page.source}): "
    if not shown:
        lines = [escape_tags(header + f"none{' on this page' if page.start else ''} (total {page.total:,}).")]
        return "\n".join(lines + [escape_tags(n) for n in page.notes])
    first, last = page.start + 1, page.start + shown
    in_library = sum(n.in_library for n in page.neighbours)
    lines = [escape_tags(header + f"{first}-{last} of {page.total:,}; {in_library} of these in the library."),
             DATA_NOTE, ""]
    for number, neighbour in enumerate(page.neighbours, start=first):
        record = neighbour.record
        facts = [f"bibcode {record.bibcode}" if record.bibcode else "",
                 f"arXiv:{record.arxiv_id}" if record.arxiv_id else "",
                 f"doi {record.doi}" if record.doi else "",
                 str(record.year) if record.year else "",
                 f"{record.citation_count} citations" if record.citation_count is not None else "",
                 "in library" if neighbour.in_library else "",
                 "unresolved" if not record.id else ""]
        lines.append(escape_tags(f"[{number}] " + " · ".join(f for f in facts if f)))
        body = neighbour.text or "\n".join([record.title or "(untitled)", authors_line(list(record.authors))])
        lines.append(frame(body, source=record.id or "", section="citation trail"))
    lines.append("")
    if last < page.total:
        lines.append(escape_tags(f"More: paper_graph id={page.paper} direction={page.direction} start={last}."))
    lines += [escape_tags(note) for note in page.notes]
    return "\n".join(lines).rstrip()


def sources_data(page: GraphPage) -> ListedPapers:
    """The neighbours that have an id, listed for /sources and the ledger."""
    from astro_cli.research.source_entry import ListedPapers
    from astro_cli.research.sources.merge import source_entry

    return ListedPapers(tuple(source_entry(n.record) for n in page.neighbours if n.record.id))
