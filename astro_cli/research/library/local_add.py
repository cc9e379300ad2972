"""A paper from a local file: `astro library add ./paper.pdf`, `./source.tar.gz`, `./main.tex` or `./paper.md`.

The file's kind is its text reader's business (extensions.py, readers/): the first that claims it reads its
metadata and copies it into papers/.

Not every paper is on arXiv (a referee copy, a thesis, a journal PDF from the library). The file is
copied into papers/ (the user's own file is never moved or changed; a .tex brings only what it names:
the files it \\input-s or \\include-s, its .bbl/.bib, and the folder's .cls/.sty files, latex_closure.py), and its metadata is taken from the file itself
unless given: a PDF's title is the largest print at the top of page 1, its authors the line below,
its arXiv id from arXiv's margin stamp, its DOI from the first page; a LaTeX source gives \\title and
\\author. A paper with a DOI is looked up on Crossref once, for notices of retraction or correction. The
row is written like a download's, so parse_paper and search treat it the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.research.text.file_metadata import LIMIT_NOTE, UNREADABLE_NOTE, LocalFileError

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore
    from astro_cli.research.records import Paper

# What reads as a paper file rather than an identifier, before any reader is loaded (an existing file always does).
FILE_SUFFIXES = (".pdf", ".tex", ".tar.gz", ".tgz", ".tar", ".gz", ".md", ".markdown", ".mmd")


@dataclass
class LocalPaper:
    paper: Paper
    kind: str  # the reader's name: "pdf", "latex", "markdown"...
    stored: Path
    created: bool = True  # False: the file (or its id) was in the library; its row was updated


def looks_like_path(argument: str) -> bool:
    """A file to add rather than an identifier: it exists, or reads as a path to a paper file."""
    text = argument.strip()
    return (Path(text).expanduser().exists() or text.startswith(("./", "../", "/", "~"))
            or text.lower().endswith(FILE_SUFFIXES))


def add_local(library: LibraryCore, path: Path, given: dict[str, Any]) -> LocalPaper:
    """Copy the file into papers/, read its metadata (what `given` names wins), record the paper."""
    from astro_cli.research.library.download import file_stem

    path = path.expanduser()
    if not path.is_file():
        raise LocalFileError(f"there is no file {path}")
    readers = library.readers
    reader = readers.reader_for(path)
    if reader is None:
        raise LocalFileError(f"{path.name} is none of the paper files astro reads ({readers.kinds()})")
    found = reader.metadata(path)
    limit = found.pop(LIMIT_NOTE, None)
    unreadable = found.pop(UNREADABLE_NOTE, None)
    meta = {**found, **{k: v for k, v in given.items() if v not in (None, "", [])}}
    if not meta.get("title"):
        why = f" (it is beyond astro's limits: {limit})" if limit else f" ({unreadable})" if unreadable else ""
        raise LocalFileError(f"no title could be read from {path.name}{why}; give one with --title")
    meta["content_sha256"] = file_sha256(path)
    if meta.get("doi"):  # a retracted or corrected paper is marked, as a downloaded one is (issue 43)
        from astro_cli.research.sources.crossref import notices_for

        notices = notices_for(library.web, str(meta["doi"]))
        if notices:
            meta["biblio"] = {**(meta.get("biblio") or {}), "updates": [n.as_dict() for n in notices]}
    # The same file added again (with --arxiv, then --author, as astro's hint suggests) is the same
    # paper: its row is updated, whatever id the new flags would give it.
    same_file = library.store.papers_named("hash", meta["content_sha256"])
    meta["id"] = (same_file[0].id if same_file else None) or meta.get("arxiv_id") or meta.get("doi") \
        or meta.get("bibcode") or _local_id(meta)
    existing = library.get_paper(meta["id"])
    stem = file_stem(existing.id if existing else meta["id"]).replace(":", "-")
    papers = library.files_folder()
    stored = reader.store(path, papers, stem)
    meta["pdf_path" if reader.slot == "pdf" else "source_path"] = str(stored)
    upserted = library.upsert(meta)
    return LocalPaper(upserted.paper, reader.name, stored, created=upserted.created)


def file_sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _local_id(meta: dict[str, Any]) -> str:
    """An id for a paper with no arXiv id, DOI or bibcode: surname, year and first title word."""
    authors = meta.get("authors") or []
    surname = authors[0].split()[-1] if authors else "paper"
    word = next((w for w in re.findall(r"[A-Za-z]{4,}", meta.get("title") or "") if w.lower() not in ("the", "with")),
                "untitled")
    return re.sub(r"[^a-z0-9]", "", f"{surname}{meta.get('year') or ''}{word}".lower()) or "paper"
