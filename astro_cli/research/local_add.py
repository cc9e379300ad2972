"""A paper from a local file: `astro library add ./paper.pdf`, `./source.tar.gz` or `./main.tex`.

Not every paper is on arXiv (a referee copy, a thesis, a journal PDF from the library). The file is
copied into papers/ (the user's own file is never moved or changed; a .tex brings the .tex, .bbl and
.bib files of its folder, which its \\input needs), and its metadata is taken from the file itself
unless given: a PDF's title is the largest print at the top of page 1, its authors the line below,
its arXiv id from arXiv's margin stamp, its DOI from the first page; a LaTeX source gives \\title and
\\author. The row is written like a download's, so parse_paper and search treat it the same way.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.app import AppContext

SOURCE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".gz")
COPIED_WITH_TEX = (".tex", ".bbl", ".bib", ".cls", ".sty", ".bst")
MAX_SOURCE_FILES = 500
_STAMP = re.compile(r"arXiv:(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?\s+\[[^\]]+\]\s+\d{1,2}\s+[A-Z][a-z]{2}\s+(\d{4})")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>,;]+[^\s\"<>,;.)])")
_MARKS = re.compile(r"(?<=[^\W\d_])\d+(?:,\s?\d+)*|[*†‡§¶]")


class LocalFileError(Exception):
    """The file cannot be added; one sentence."""


@dataclass
class LocalPaper:
    paper: dict[str, Any]
    kind: str  # "pdf" or "latex"
    stored: Path


def looks_like_path(argument: str) -> bool:
    """A file to add rather than an identifier: it exists, or reads as a path to a paper file."""
    text = argument.strip()
    return (Path(text).expanduser().exists() or text.startswith(("./", "../", "/", "~"))
            or text.lower().endswith((".pdf", ".tex", *SOURCE_SUFFIXES)))


def add_local(app: AppContext, path: Path, given: dict[str, Any]) -> LocalPaper:
    """Copy the file into papers/, read its metadata (what `given` names wins), record the paper."""
    from astro_cli.research.download import file_stem
    from astro_cli.research.library import Library

    path = path.expanduser()
    if not path.is_file():
        raise LocalFileError(f"there is no file {path}")
    kind = _kind(path)
    found = pdf_metadata(path) if kind == "pdf" else latex_metadata(path)
    meta = {**found, **{k: v for k, v in given.items() if v not in (None, "", [])}}
    if not meta.get("title"):
        raise LocalFileError(f"no title could be read from {path.name}; give one with --title")
    meta["id"] = meta.get("arxiv_id") or meta.get("doi") or meta.get("bibcode") or _local_id(meta)
    library = Library(app)
    existing = library.get_paper(meta["id"])
    stem = file_stem(existing["id"] if existing else meta["id"]).replace(":", "-")
    papers = library.files_folder()
    stored = _store(path, kind, papers, stem)
    meta["pdf_path" if kind == "pdf" else "source_path"] = str(stored)
    return LocalPaper(library.upsert_paper(meta), kind, stored)


def _kind(path: Path) -> str:
    with open(path, "rb") as handle:
        head = handle.read(1024)
    if b"%PDF-" in head:
        return "pdf"
    name = path.name.lower()
    if name.endswith(".tex") or name.endswith(SOURCE_SUFFIXES) or head[:2] == b"\x1f\x8b":
        return "latex"
    raise LocalFileError(f"{path.name} is neither a PDF nor a LaTeX source (.tex, .tar.gz)")


def _store(path: Path, kind: str, papers: Path, stem: str) -> Path:
    if kind == "pdf":
        target = papers / f"{stem}.pdf"
        shutil.copyfile(path, target)
        return target
    if path.name.lower().endswith(".tex"):
        folder = papers / f"{stem}-source"
        shutil.rmtree(folder, ignore_errors=True)
        files = [p for p in sorted(path.parent.rglob("*")) if p.is_file() and p.suffix.lower() in COPIED_WITH_TEX]
        for item in files[:MAX_SOURCE_FILES]:
            target = folder / item.relative_to(path.parent)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(item, target)
        return folder
    from astro_cli.research.download import unpack_source

    stored = unpack_source(path, papers, stem)
    if stored is None:
        raise LocalFileError(f"{path.name} holds no LaTeX source")
    return stored


def pdf_metadata(path: Path) -> dict[str, Any]:
    """Title, authors, arXiv id, DOI and year read from the first page of a PDF."""
    from astro_cli.research.pdfread import PdfError, read_pages

    try:
        pages = read_pages(path)
    except PdfError as exc:
        raise LocalFileError(str(exc)) from None
    if not pages:
        return {}
    first = pages[0]
    meta: dict[str, Any] = {}
    head_text = "\n".join(first.lines)
    stamp = _STAMP.search(head_text)
    if stamp:
        meta["arxiv_id"], meta["year"] = stamp.group(1), int(stamp.group(3))
    doi = _DOI.search("\n".join(head_text.splitlines()[:80]))
    if doi:
        meta["doi"] = doi.group(1)
    top = [(line, size) for line, size in zip(first.lines[:15], first.sizes[:15]) if not _STAMP.search(line)]
    if top:
        biggest = max(size for _, size in top)
        at = next(n for n, (_, size) in enumerate(top) if size == biggest)
        title = [top[at][0]]
        for line, size in top[at + 1 :]:
            if size != biggest:
                break
            title.append(line)
        meta["title"] = _title_case(" ".join(title))
        rest = top[at + len(title) :]
        if rest:
            meta["authors"] = split_authors(rest[0][0])
    return meta


def latex_metadata(path: Path) -> dict[str, Any]:
    """\\title and \\author of a LaTeX source."""
    from astro_cli.research.latex import (
        LatexError,
        braced,
        collect_macros,
        expand_macros,
        inline_inputs,
        latex_sections,
        main_file,
        read_source_files,
        to_text,
    )

    try:
        title, _sections = latex_sections(path)
        files = read_source_files(path)
        text = inline_inputs(files, main_file(files))
    except LatexError as exc:
        raise LocalFileError(str(exc)) from None
    text = expand_macros(text, collect_macros(text))
    authors: list[str] = []
    for match in re.finditer(r"\\author\s*(?:\[[^\]]*\])?\s*\{", text):
        raw, _ = braced(text, match.end() - 1)
        raw = re.sub(r"\\(?:altaffilmark|affil|affiliation|inst|thanks|footnote|email)\s*\{[^{}]*\}", "", raw)
        authors += split_authors(to_text(raw.replace("\\and", ",")))
    return {"title": title, "authors": authors}


def split_authors(line: str) -> list[str]:
    """'James M. Murray,1 Adrian Del Maestro,1, 2 and Zlatko Tešanović1' -> three names."""
    line = _MARKS.sub("", line)
    parts = re.split(r",|\band\b|&", line)
    names = [re.sub(r"^[\d\s]+", "", " ".join(p.split())).strip(" .,;") for p in parts]
    return [n for n in names if re.search(r"[^\W\d_]{2,}", n) and len(n.split()) <= 6]


def _title_case(text: str) -> str:
    from astro_cli.research.pdftext import _title_case as title_case

    return title_case(" ".join(text.split()))


def _local_id(meta: dict[str, Any]) -> str:
    """An id for a paper with no arXiv id, DOI or bibcode: surname, year and first title word."""
    authors = meta.get("authors") or []
    surname = authors[0].split()[-1] if authors else "paper"
    word = next((w for w in re.findall(r"[A-Za-z]{4,}", meta.get("title") or "") if w.lower() not in ("the", "with")),
                "untitled")
    return re.sub(r"[^a-z0-9]", "", f"{surname}{meta.get('year') or ''}{word}".lower()) or "paper"
