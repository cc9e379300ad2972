"""The Markdown reader: a paper as OCR tools write it (Nougat, Marker, Mistral OCR, MinerU).

Such a file is the paper's text already: `#` headings are its sections (whatever their level: OCR
tools guess levels), `$...$` and `$$...$$` math stays as LaTeX (the form the LaTeX reader keeps),
a pipe table is a chunk of its own with the "Table N" caption next to it, `<br>` is a line break
and images are dropped. The title is the first heading, the authors the paragraph below it. Reading
is one pass over the lines with no backtracking pattern, so it runs in astro's own process; a file
beyond MAX_BYTES (2 MB: under a second of CPU) is read up to there and says so.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from astro_cli.extensions import ReaderError, Slot, TextReading
from astro_cli.research.records import Chunk

MAX_BYTES = 2 * 1024 * 1024  # a paper's text is well under 1 MB (CAMELS: 157 kB); beyond this it is not one paper
FLOAT_CHARS = 8000  # as parse.py: a table is cut (at rows) beyond this, or one chunk would swamp a result
SUFFIXES = (".md", ".markdown", ".mmd")
FRONT_CHARS = 6000  # the title block an OCR tool writes: title, authors, affiliations, arXiv stamp

_HEADING = re.compile(r"#{1,6}[ \t]+(\S.*)")
_TABLE_RULE = re.compile(r"\|?[ \t]*:?-{2,}:?[ \t]*(\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*")
_CAPTION = re.compile(r"(?:Table|TABLE)\s+[A-Z]?\d+\b")
_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_MARKS = re.compile(r"\$\{\s*\}\^\{[^}$]*\}\$|\$\^\{[^}$]*\}\$|[*†‡§¶]")  # ${ }^{1,2}$: affiliation marks
_ARXIV = re.compile(r"\barXiv:\s?(\d{4}\.\d{4,5})(?:v\d+)?", re.IGNORECASE)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>,;]+[^\s\"<>,;.)])")


class MarkdownReader:
    name = "markdown"
    label = "the Markdown"
    kinds = "Markdown (.md)"
    slot: Slot = "source"
    hint: str | None = ("Markdown text (from OCR): $...$ is LaTeX math; a table's rows are lines of ' | '-separated "
                        "cells.")

    def claims(self, path: Path, head: bytes) -> bool:
        return path.name.lower().endswith(SUFFIXES) and not path.is_dir() and b"\0" not in head

    def metadata(self, path: Path) -> dict[str, Any]:
        text, _ = _text(path)
        lines = text.splitlines()
        meta: dict[str, Any] = {"title": None, "authors": []}
        front = lines[:400]
        for i, line in enumerate(lines[:400]):
            heading = _HEADING.fullmatch(line.strip())
            if heading:
                meta["title"] = _plain(heading.group(1))
                meta["authors"] = _authors(lines[i + 1:i + 12])
                after = next((j for j in range(i + 1, len(front)) if _HEADING.fullmatch(front[j].strip())), None)
                front = lines[:after]
                break
        # Ids only from the front matter (before the first heading after the title): the references'
        # arXiv ids and DOIs are other papers'.
        head = "\n".join(front)[:FRONT_CHARS]
        arxiv, doi = _ARXIV.search(head), _DOI.search(head)
        if arxiv:
            meta["arxiv_id"] = arxiv.group(1)
            meta["year"] = 2000 + int(arxiv.group(1)[:2])  # the year of that version, as the PDF's stamp gives it
        if doi:
            meta["doi"] = doi.group(1)
        return meta

    def store(self, path: Path, papers: Path, stem: str) -> Path:
        from astro_cli.security import writer
        from astro_cli.security.writer import Place

        return writer.copy_into(path, Place(papers, (f"{stem}.md",)))

    def read(self, path: Path, size: int) -> TextReading:
        from astro_cli.research.library.parse import section_kind, split_text

        text, exceeded = _text(path)
        chunks: list[Chunk] = []
        outline: list[tuple[str, int | None]] = []
        for title, prose, tables in _sections(text):
            if title and (not outline or outline[-1][0] != title):
                outline.append((title, None))
            pieces = split_text(prose, size) + [piece for table in tables for piece in _table_pieces(table)]
            for piece in pieces:
                chunks.append(Chunk(title, None, len(chunks), piece, section_kind(title)))
        return TextReading(chunks, outline, exceeded=exceeded)


def _text(path: Path) -> tuple[str, str | None]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ReaderError(f"{path.name} could not be read ({exc.strerror or exc})") from None
    exceeded = f"it is larger than {MAX_BYTES // (1024 * 1024)} MB" if len(raw) > MAX_BYTES else None
    return raw[:MAX_BYTES].decode("utf-8", errors="replace").replace("\r\n", "\n"), exceeded


def _plain(text: str) -> str:
    return " ".join(_MARKS.sub("", _BREAK.sub(" ", text)).replace("**", "").split()).strip(" #")


def _authors(lines: list[str]) -> list[str]:
    """The names in the first paragraph below the title (before the affiliations), or none."""
    block = next((line for line in lines if line.strip()), "")
    if _HEADING.fullmatch(block.strip()):
        return []
    first = _BREAK.split(block)[0]
    names = [_plain(name) for name in re.split(r",|\band\b", _MARKS.sub("", first))]
    names = [n for n in names if n]
    looks = [n for n in names if 1 < len(n.split()) <= 5 and len(n) <= 60 and not any(c.isdigit() for c in n)]
    return looks if names and len(looks) == len(names) else []


def _sections(text: str) -> list[tuple[str, str, list[list[str]]]]:
    """(heading, prose, tables) in reading order; a table is its lines, caption paragraph first."""
    out: list[tuple[str, str, list[list[str]]]] = []
    title, prose, tables = "", list[str](), list[list[str]]()
    lines = _IMAGE.sub("", text).split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = _HEADING.fullmatch(line.strip())
        if heading:
            if "".join(prose).strip() or tables:
                out.append((title, _prose(prose), tables))
            title, prose, tables = _plain(heading.group(1)), [], []
            i += 1
            continue
        if "|" in line and i + 1 < len(lines) and _TABLE_RULE.fullmatch(lines[i + 1].strip()):
            before, bar, row = line.partition("|")  # OCR glues a table to the line above: "... html| a | b |"
            if before.strip():
                prose.append(before)
            rows = [bar + row]
            i += 2  # the rule row only marks the header
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(lines[i])
                i += 1
            tables.append(_with_caption(prose, lines, i, rows))
            continue
        prose.append(line)
        i += 1
    if "".join(prose).strip() or tables:
        out.append((title, _prose(prose), tables))
    return out


def _with_caption(prose: list[str], lines: list[str], after: int, rows: list[str]) -> list[str]:
    """The table's caption (a "Table N" paragraph just before or after it) moved from the prose to the table."""
    cells = [" | ".join(" ".join(c.split()) for c in _BREAK.sub(" ", row).strip().strip("|").split("|")) for row in rows]
    back = len(prose)
    while back and not prose[back - 1].strip():
        back -= 1
    start = back
    while start and prose[start - 1].strip():
        start -= 1
    if back and _CAPTION.match(prose[start].strip()):
        caption = " ".join(p.strip() for p in prose[start:back])
        del prose[start:]
        return [caption, *cells]
    j = after
    while j < len(lines) and not lines[j].strip():
        j += 1
    if j < len(lines) and _CAPTION.match(lines[j].strip()):
        end = j
        while end < len(lines) and lines[end].strip() and not lines[end].lstrip().startswith(("#", "|")):
            end += 1
        caption = " ".join(line.strip() for line in lines[j:end])
        lines[j:end] = [""] * (end - j)  # read once: the caption is the table's, not the prose's
        return [caption, *cells]
    return cells


def _prose(lines: list[str]) -> str:
    text = "\n".join(_BREAK.sub("\n", line).rstrip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _table_pieces(table: list[str]) -> list[str]:
    """A table as one chunk, or cut at rows past FLOAT_CHARS (each piece keeps the caption and header)."""
    text = "\n".join(table)
    if len(text) <= FLOAT_CHARS:
        return [text]
    keep = 2 if len(table) > 2 and _CAPTION.match(table[0]) else 1
    head, rows = table[:keep], table[keep:]
    pieces: list[str] = []
    piece: list[str] = []
    base = sum(len(line) + 1 for line in head)
    length = base
    for row in rows:
        row = row[:FLOAT_CHARS]
        if piece and length + len(row) > FLOAT_CHARS:
            pieces.append("\n".join(head + piece))
            piece, length = [], base
        piece.append(row)
        length += len(row) + 1
    if piece:
        pieces.append("\n".join(head + piece))
    return pieces
