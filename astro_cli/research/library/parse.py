"""parse_paper's work: a paper's source (LaTeX, Markdown: preferred) or PDF into indexed chunks.

Which file is read by what is the text readers' business (readers/, registered in extensions.py).

Chunks follow the paper's sections (a chunk never spans two) and are cut at paragraph or
sentence ends near `library.chunk_chars`, so a passage the search returns reads as a whole.
They are contiguous and do not overlap, which lets get_paper_content rebuild a section from
them. The database write is one transaction: a paper is either fully indexed or left as it was.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from astro_cli.extensions import ReaderError
from astro_cli.research.library.papers import now_iso
from astro_cli.research.records import Chunk, Paper

if TYPE_CHECKING:
    from pathlib import Path

    from astro_cli.extensions import Slot, TextReader, TextReading
    from astro_cli.research.library.papers import LibraryCore
    from astro_cli.research.library.storage.shapes import Replaced

MIN_SOURCE_CHARS = 2000  # a source (LaTeX, Markdown) with less prose than this is a stub; the PDF is better
_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[$\\])"), re.compile(r"\s+"))


class ParseError(Exception):
    """The paper cannot be parsed; one sentence for the model and the user."""


@dataclass
class ParseReport:
    paper: Paper
    parsed_from: str  # "latex" or "pdf"
    pages: int | None
    chunks: int
    sections: list[tuple[str, int | None]]  # the outline: (heading, first page), parents without text included
    warning: str | None = None
    already: bool = False  # it was indexed before; nothing was read again
    vectors_in: float | None = None  # seconds until the vectors made in the background are ready (estimate)
    origin: str = ""  # the file read, in sentences ("the PDF"): its reader's label
    hint: str | None = None  # how the model should read that text form (its reader's hint)


FLOAT_CHARS = 8000  # a table longer than this is cut (at rows) all the same: one chunk would swamp a result


def split_text(text: str, size: int) -> list[str]:
    """Pieces of at most ~size characters, cut at a paragraph, else a sentence, else a space."""
    text = text.strip()
    pieces: list[str] = []
    while len(text) > size:
        cut = -1
        for pattern in _BREAKS:
            ends = [m.start() for m in pattern.finditer(text, 0, size + 1) if m.start() >= size // 2]
            if ends:
                cut = ends[-1]
                break
        if cut <= 0:
            cut = size
        pieces.append(text[:cut].strip())
        text = text[cut:].strip()
    if text:
        if pieces and len(text) < size // 4 and len(pieces[-1]) + len(text) <= size * 5 // 4:
            pieces[-1] = pieces[-1] + "\n" + text  # no crumbs at the end of a section
        else:
            pieces.append(text)
    return [p for p in pieces if p]


def section_kind(name: str | None) -> str:
    """'references', 'acknowledgments' or 'body': what search leaves out by default, and what not."""
    if name in ("References", "Bibliography"):
        return "references"
    if name == "Acknowledgments":
        return "acknowledgments"
    return "body"


def _section_text(lines: list[Any]) -> tuple[str, list[tuple[int, int]]]:
    """Lines of one section as running text (a footnote is a paragraph of its own), with the
    offset where each line starts and its page."""
    parts: list[str] = []
    starts = []
    length = 0
    for line in lines:
        if length:
            parts.append("\n\n" if line.starts_block else " ")
            length += len(parts[-1])
        starts.append((length, line.page))
        parts.append(line.text)
        length += len(line.text)
    return "".join(parts), starts


_CAPTION = re.compile(r"(?:Fig(?:ure|\.)|FIG(?:URE|\.)|Table|TABLE)\s*[0-9IVX]+[.:]")


def _notes_apart(lines: list[Any]) -> list[list[Any]]:
    """A section's running text, then each of its footnotes (pdftext.py put them at its end): a
    note is a passage of its own, found by what it says rather than by the paragraph before it.
    A figure or table caption (a paragraph of its own since pdfcaptions.py) is one too."""
    groups: list[list[Any]] = [[]]
    in_caption = False
    for line in lines:
        caption = line.starts_block and _CAPTION.match(line.text) is not None
        if line.starts_block and (line.text.startswith("Footnote") or caption or in_caption) and groups[-1]:
            groups.append([])  # a footnote, or a caption (a chunk of its own, issue 42), or what follows one
        if line.starts_block:
            in_caption = caption
        groups[-1].append(line)
    return [g for g in groups if g]


def pdf_chunks(pages: list[Any], size: int) -> tuple[list[Chunk], list[tuple[str, int | None]]]:
    """Chunks of a PDF's text, section by section, and the paper's outline."""
    from astro_cli.research.library.table_chunks import table_pieces
    from astro_cli.research.text.pdftext import TABLES, pdf_layout

    layout = pdf_layout(pages)
    chunks: list[Chunk] = []
    lines = layout.lines
    i = 0
    while i < len(lines):
        section = lines[i].section
        j = i
        while j < len(lines) and lines[j].section == section:
            j += 1
        if section == TABLES:
            for row_piece in table_pieces(lines[i:j], size):
                chunks.append(Chunk(section, row_piece.page, len(chunks), row_piece.text, section_kind(section)))
            i = j
            continue
        for group in _notes_apart(lines[i:j]):
            text, starts = _section_text(group)
            offsets = [start for start, _ in starts]
            highest = list(accumulate((p for _, p in starts), max))  # the latest page up to each line
            offset = 0
            for piece in split_text(text, size):
                at = text.find(piece[:40], offset)
                at = offset if at < 0 else at
                before = bisect_right(offsets, at)
                page = highest[before - 1] if before else group[0].page
                chunks.append(Chunk(section, page, len(chunks), piece, section_kind(section)))
                offset = at + len(piece) - 1 if at >= 0 else offset
        i = j
    return chunks, [(name, page) for name, page in layout.outline]


def latex_chunks(sections: list[Any], size: int) -> list[Chunk]:
    """A section's prose cut near `size`; each float (a table with its caption, a figure's caption, an
    algorithm) after it is a chunk of its own, never cut (up to FLOAT_CHARS), never glued to prose."""
    from astro_cli.research.text.latex_markup import FLOAT_MARK

    chunks: list[Chunk] = []
    for section in sections:
        prose, *floats = section.text.split(FLOAT_MARK)
        pieces = split_text(prose, size)
        for block in floats:
            pieces += split_text(block, max(size, FLOAT_CHARS))
        for piece in pieces:
            chunks.append(Chunk(section.title, None, len(chunks), piece, section_kind(section.title)))
    return chunks


def parse_paper(library: LibraryCore, paper: Paper | str, force: bool = False, vectors: str = "auto") -> ParseReport:
    """Parse and index one library paper (the record a download or a lookup handed over, or any of
    its names); an already parsed paper is left alone unless force.
    `vectors`: when its chunks are embedded ("now", "background" or "auto", see _vectors)."""
    if isinstance(paper, str):
        found_paper = library.get_paper(paper)
        if found_paper is None:
            raise ParseError(f"paper {paper} is not in the library; download it with download_paper first.")
        paper = found_paper
    if paper.parsed_at and not force:
        existing = _existing_report(library, paper)
        if existing.chunks:
            existing.warning, existing.vectors_in = _vectors(library, paper.id, only_missing=True, when=vectors)
            return existing
    size = library.settings.typed["library.chunk_chars"]  # at least 200: config_schema declares it
    named = paper.pdf_path or paper.source_path
    if not library.has_files(paper) and (named or library.store.shared):
        paper = _fetch_files(library, paper)
    found = _extract(library, paper, size)
    if not found.chunks:
        raise ParseError(f"no text could be taken from paper {paper.id} (a scanned PDF without a text layer?).")
    stored = store_chunks(library, paper.id, found.chunks, found.parsed_from, found.pages, found.outline,
                          only_if_unparsed=not force)
    if stored is None:  # someone else indexed it meanwhile (a shared library): theirs stands
        return _existing_report(library, library.get_paper(paper.id) or paper)
    problem, vectors_in = _vectors(library, paper.id, when=vectors, written=(stored, found.chunks))
    return _labelled(library, ParseReport(stored.paper, found.parsed_from, found.pages, len(found.chunks),
                                          found.outline, problem or found.warning, vectors_in=vectors_in))


def _labelled(library: LibraryCore, report: ParseReport) -> ParseReport:
    """The report with its reader's label and hint (a paper indexed by a reader no longer installed: its name)."""
    reader = library.readers.reader_named(report.parsed_from)
    report.origin = reader.label if reader else f"its {report.parsed_from} file"
    report.hint = reader.hint if reader else None
    return report


def _vectors(library: LibraryCore, paper_id: str, only_missing: bool = False, when: str = "auto",
             written: tuple[Replaced, list[Chunk]] | None = None) -> tuple[str | None, float | None]:
    """Embed the paper's chunks when a model is in use: (warning, seconds until the background vectors).

    `when`: "now" embeds here; "none" leaves it to a later reindex; "background" leaves it to a detached reindex (reindex.py); "auto" is
    now for a model the user named and background for the default local model, whose 15-20 s a
    paper would make indexing feel slow. A paper indexed before the model was set gets its vectors
    on its next parse_paper or reindex; a failure is a warning, the index stands."""
    model = library.embedding_model
    if not model or when == "none":
        return None, None
    store = library.store
    if only_missing and store.has_vectors(paper_id, model):
        return None, None
    if when == "auto":
        when = "now" if library.settings.typed["library.embedding_model"] else "background"
    if when == "background" and not store.vectors_note():
        from astro_cli.research.search.reindex import estimate_seconds, start_background

        if start_background(library):
            from astro_cli.research.search.reindex import pending

            # The paper waits for those queued before it: the estimate is for the whole queue.
            chunks = len(written[1]) if written else store.chunk_count(paper_id)
            queued = sum(n for pid, n in pending(library) if pid != paper_id)
            return None, estimate_seconds(library, chunks + queued)
    from astro_cli.research.search.embed import embed_paper, embed_written
    from astro_cli.research.search.vectors import EmbeddingError

    try:
        if written is not None:  # the chunks just written: embedded from memory, not read back
            embed_written(library, written[0].chunk_ids, written[1])
        else:
            embed_paper(library, paper_id)
    except EmbeddingError as exc:
        return f"full-text search works, but no vectors were made: {exc}", None
    return None, None


@dataclass
class Extracted:
    chunks: list[Chunk]
    parsed_from: str
    pages: int | None
    outline: list[tuple[str, int | None]]
    warning: str | None = None


def _extract(library: LibraryCore, paper: Paper, size: int) -> Extracted:
    """The paper's text from the first of its files a reader reads well: its source (LaTeX, Markdown)
    before its PDF. A source beyond the limits, unreadable or a stub gives way to the PDF when there
    is one, with a note saying why; the last file is read for whatever it holds."""
    readers = library.readers
    files: list[tuple[Path, TextReader]] = []
    unread: list[str] = []  # files no reader claims (a plugin's reader no longer installed)
    slots: tuple[tuple[Slot, str | None], ...] = (("source", paper.source_path), ("pdf", paper.pdf_path))
    for slot, stored in slots:
        path = library.resolve_file(stored)
        if path is not None and path.exists():
            reader = readers.reader_for(path, slot)
            if reader is None:
                unread.append(path.name)
            else:
                files.append((path, reader))
    if not files and unread:
        raise ParseError(f"paper {paper.id}'s file {unread[0]} is none of the files astro reads "
                         f"({readers.kinds()}); nothing was indexed.")
    if not files:
        raise ParseError(f"paper {paper.id} has no file astro reads in papers/ ({readers.kinds()}); "
                         "download it with download_paper.")
    warning = f"no reader reads {unread[0]}, so {files[0][1].label} was used" if unread else None
    for (path, reader), after in zip(files, [*files[1:], None]):
        fallback = f", so {after[1].label} was used" if after else ""
        try:
            reading = reader.read(path, size)
        except ReaderError as exc:
            if after is None:
                raise ParseError(f"{exc}; nothing was indexed.") from None
            warning = f"{reader.label} could not be read ({exc}){fallback}"
            continue
        chars = sum(len(c.text) for c in reading.chunks)
        if after is not None and reading.exceeded:
            warning = f"{reader.label} is beyond astro's limits ({reading.exceeded}){fallback}"
            continue
        if after is not None and reader.slot == "source" and chars < MIN_SOURCE_CHARS:
            warning = f"{reader.label} held little text{fallback}"
            continue
        return _checked(paper, reader, reading, warning)
    raise AssertionError("unreachable: the last file returns or raises")


def _checked(paper: Paper, reader: TextReader, reading: TextReading, warning: str | None) -> Extracted:
    """The last file's reading: what it holds, or one sentence saying why nothing was indexed."""
    limit = reading.exceeded
    if limit and not reading.chunks:
        what = " and what was read held no text" if reading.pages else ""
        alone = " and there is no PDF" if reader.slot == "source" else ""
        raise ParseError(f"{reader.label} of {paper.id} is beyond astro's limits ({limit}){what}{alone}; "
                         "nothing was indexed.")
    notes = list(reading.notes)
    if not reading.chunks and notes:
        raise ParseError(f"no text could be taken from paper {paper.id}: {'; '.join(notes)}.")
    if limit:
        notes.insert(0, f"{reader.label} is beyond astro's limits ({limit}); only what was read is indexed")
    return Extracted(reading.chunks, reader.name, reading.pages, reading.outline,
                     "; ".join(filter(None, [warning, *notes])) or None)


def _fetch_files(library: LibraryCore, paper: Paper) -> Paper:
    """A paper whose PDF and source are not on this machine (a shared library keeps the text, not the
    files): fetched again from arXiv into this member's papers folder."""
    if not paper.arxiv_id:
        return paper  # _extract says what is missing
    from astro_cli.research.library.download import download
    from astro_cli.research.sources.http import ServiceError

    try:
        return download(library, paper.arxiv_id).paper
    except ServiceError as exc:
        raise ParseError(f"paper {paper.id}'s PDF is not on this machine and could not be fetched again from "
                         f"arXiv: {exc}") from None


def store_chunks(library: LibraryCore, paper_id: str, chunks: list[Chunk], parsed_from: str, pages: int | None,
                 outline: list[tuple[str, int | None]] | None = None,
                 only_if_unparsed: bool = False) -> Replaced | None:
    """Replace the paper's chunks and outline in one transaction (the full-text index follows): the
    paper as updated and its chunks' ids; None when `only_if_unparsed` and another process indexed
    the paper first."""
    outline = outline if outline is not None else _outline_of(chunks)
    fields: dict[str, Any] = {"parsed_at": now_iso(), "parsed_from": parsed_from,
                              "outline": json.dumps(outline, ensure_ascii=False)}
    if pages is not None:
        fields["pages"] = pages
    fields["outline"] = library.redactor.redact(fields["outline"])
    return library.store.replace_chunks(paper_id, library.redacted_chunks(chunks), fields, only_if_unparsed)


def _outline_of(chunks: list[Chunk]) -> list[tuple[str, int | None]]:
    seen: list[tuple[str, int | None]] = []
    for chunk in chunks:
        if chunk.section and (not seen or seen[-1][0] != chunk.section):
            seen.append((chunk.section, chunk.page))
    return seen


def stored_outline(library: LibraryCore, paper: Paper) -> list[tuple[str, int | None]]:
    """The paper's outline as parsed; for a paper indexed before outlines were kept, its chunks' sections."""
    try:
        saved = json.loads(paper.outline or "null")
    except json.JSONDecodeError:
        saved = None
    if isinstance(saved, list) and saved:
        return [(str(name), page) for name, page in saved]
    return _outline_of(library.store.chunks_of(paper.id))


def _existing_report(library: LibraryCore, paper: Paper) -> ParseReport:
    count = library.store.chunk_count(paper.id)
    return _labelled(library, ParseReport(paper, paper.parsed_from or "pdf", paper.pages, int(count),
                                          stored_outline(library, paper), already=True))


def describe(report: ParseReport) -> str:
    """What parse_paper tells the model: what was indexed and how to read it, not the text itself."""
    paper = report.paper
    title = f' "{paper.title}"' if paper.title else ""
    origin = report.origin or f"its {report.parsed_from} file"
    pages = f"{report.pages} pages, " if report.pages else ""
    verb = "was already indexed" if report.already else "indexed"
    lines = [f"Paper {paper.id}{title} {verb} from {origin}: {pages}{len(report.sections)} sections, "
             f"{report.chunks} chunks."]
    if report.warning:
        lines.append(f"Note: {report.warning}.")
    if report.vectors_in is not None:
        lines.append(f"Its words are searchable now; the vectors for searching by meaning follow in the background "
                     f"(~{max(1, round(report.vectors_in))} s).")
    if report.hint:
        lines.append(report.hint)
    outline = ", ".join(f"{name} (p{page})" if page else name for name, page in report.sections)
    lines.append(f"Sections: {outline}")
    lines.append(
        f"Next: rag_search with paper='{paper.id}' to find passages, or get_paper_content with a section or pages."
    )
    return "\n".join(lines)
