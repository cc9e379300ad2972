"""Fetching a paper into the library: its arXiv PDF, its LaTeX source when offered, and its row.

An arXiv id, a bibcode, a DOI or any identifier a registered source recognises is first resolved to
an arXiv id (resolve.py). Files arrive as `<name>.part` and are
renamed only once complete and checked (a PDF must start with %PDF), so the library never holds
half a file; an interrupted PDF download resumes from its .part with an HTTP Range request.
"""

from __future__ import annotations

import gzip
import shutil
import tarfile
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.agent.events import Event
from astro_cli.research.found import FoundPaper
from astro_cli.research.library.resolve import resolve
from astro_cli.research.sources.http import ServiceError, arxiv_throttle, http_error, make_client, stream
from astro_cli.security import writer
from astro_cli.security.writer import Place
from astro_cli.store.locks import FileLock, LockHolder, LockTimeout

if TYPE_CHECKING:
    import httpx

    from astro_cli.extensions import ExtensionPoints
    from astro_cli.research.library.papers import LibraryCore
    from astro_cli.research.records import Paper
    from astro_cli.research.sources.web import Web

Progress = Callable[[str, int, "int | None"], None]  # (label, bytes done, bytes expected)
CHUNK = 64 * 1024
MAX_SOURCE_BYTES = 300 * 1024 * 1024  # an e-print bigger than this unpacked is not a LaTeX source
PAPER_LOCK_WAIT = 1800.0  # seconds a download waits for another process fetching the same paper


@dataclass
class DownloadProgress(Event):
    """Bytes of a download so far; renderers may draw a bar (the loop itself knows no terminal)."""

    type = "download_progress"
    label: str
    done: int
    total: int | None


class NotAPdf(ServiceError):
    """The server sent something else (an HTML page, an error text) where a PDF was expected."""


class NoSuchPaper(ServiceError):
    """arXiv has no file under that id."""


# --- fetching files --------------------------------------------------------------------------
def _part(target: Path) -> Path:
    return target.with_name(target.name + ".part")


def fetch_file(
    web: Web, client: httpx.Client, url: str, target: Path, *, label: str,
    progress: Progress | None = None, cancel: threading.Event | None = None, resume: bool = True,
) -> Path:
    """Download `url` into `<target>.part` (resuming it when it exists), return the .part path."""
    part = _part(target)
    done = part.stat().st_size if resume and part.exists() else 0
    headers = {"Range": f"bytes={done}-"} if done else {}
    with arxiv_throttle(web).turn() as turn, \
            stream(client, "GET", url, service="arXiv", setting="arxiv_pdf_url", headers=headers) as response:
        turn.answered()  # the headers are in: the next request may follow in 3 s while this body streams
        if response.status_code == 416 and done:
            total = response.headers.get("Content-Range", "").rpartition("/")[2]
            if total.isdigit() and int(total) == done:
                return part  # the .part already holds the whole file
            part.unlink(missing_ok=True)
            return fetch_file(web, client, url, target, label=label, progress=progress, cancel=cancel, resume=False)
        if response.status_code == 404:
            raise NoSuchPaper(f"arXiv has no file at {url}.")
        if response.status_code >= 400:
            raise http_error("arXiv", response)
        if response.status_code != 206:
            done = 0  # the server ignored the Range: start over
        length = response.headers.get("Content-Length")
        total = done + int(length) if length and length.isdigit() else None
        if not done:
            writer.remove(Place.beside(part))
        with writer.open_append(Place.beside(part)) as handle:  # a link planted at the .part name is refused
            if progress:
                progress(label, done, total)
            for chunk in response.iter_bytes():  # as received, so a dropped connection keeps every byte
                handle.write(chunk)
                done += len(chunk)
                if progress:
                    progress(label, done, total)
                if cancel is not None and cancel.is_set():
                    raise ServiceError(f"The download of {label} was interrupted; run it again to resume.")
    return part


def is_pdf(path: Path) -> bool:
    with open(path, "rb") as handle:
        return b"%PDF-" in handle.read(1024)


def _kind_of(path: Path) -> str:
    with open(path, "rb") as handle:
        head = handle.read(1024)
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if b"%PDF-" in head:
        return "pdf"
    return "tar" if tarfile.is_tarfile(path) else "text"


def _extract_tar(archive: Path, folder: Path) -> int:
    """Regular files only, each kept inside `folder` (no links, no absolute or '..' paths)."""
    count = 0
    size = 0
    with tarfile.open(archive) as tar:
        for member in tar:
            if not member.isfile():
                continue
            name = Path(member.name)
            if name.is_absolute() or ".." in name.parts:
                continue
            size += member.size
            if size > MAX_SOURCE_BYTES:
                raise ServiceError("The LaTeX source is larger than astro accepts; it was not stored.")
            source = tar.extractfile(member)
            if source is None:
                continue
            with source, writer.open_binary(Place.of(folder, name)) as out:
                while block := source.read(CHUNK):
                    out.write(block)
            count += 1
    return count


def _looks_like_latex(path: Path) -> bool:
    with open(path, "rb") as handle:
        text = handle.read(2 * 1024 * 1024)
    return b"\\document" in text or b"\\begin{document}" in text


def unpack_source(raw: Path, papers_dir: Path, stem: str) -> Path | None:
    """The e-print turned into `<stem>-source/` (a tar) or `<stem>.tex` (one file); None if it was a PDF."""
    work = Path(tempfile.mkdtemp(prefix=f".{stem}-", dir=papers_dir))
    try:
        payload = raw
        if _kind_of(raw) == "gzip":
            payload = work / "payload"
            with gzip.open(raw, "rb") as src, writer.open_binary(Place.of(work, "payload")) as out:
                copied = 0
                while block := src.read(CHUNK):
                    copied += len(block)
                    if copied > MAX_SOURCE_BYTES:
                        raise ServiceError("The LaTeX source is larger than astro accepts; it was not stored.")
                    out.write(block)
        kind = _kind_of(payload)
        if kind == "pdf":
            return None
        if kind == "tar":
            folder = work / "tree"
            folder.mkdir()
            if _extract_tar(payload, folder) == 0:
                return None
            final = papers_dir / f"{stem}-source"
            shutil.rmtree(final, ignore_errors=True)
            writer.rename(Place.of(work, "tree"), Place.beside(final))
            return final
        if not _looks_like_latex(payload):
            return None
        final = papers_dir / f"{stem}.tex"
        if payload == raw:
            writer.copy_into(raw, Place.beside(final))
        else:
            writer.rename(Place.of(work, "payload"), Place.beside(final))
        return final
    except (OSError, EOFError, tarfile.TarError, gzip.BadGzipFile):
        return None  # a broken source is no source; the PDF still counts
    finally:
        shutil.rmtree(work, ignore_errors=True)


def file_stem(arxiv_id: str) -> str:
    return arxiv_id.replace("/", "_")


# --- the whole operation ---------------------------------------------------------------------
@dataclass
class Downloaded:
    """What a download hands on: the paper as stored (indexing starts from it, no read by id) and its files."""

    paper: Paper
    pdf: Path
    source: Path | None
    already: bool
    notes: list[str]


def download(
    library: LibraryCore, identifier: str, *, with_source: bool = True,
    progress: Progress | None = None, cancel: threading.Event | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> Downloaded:
    """The paper fetcher: resolve, fetch the PDF (and source), store the row, and hand the stored
    `Paper` on; raise ServiceError with one sentence."""
    existing = library.get_paper(identifier)
    if existing is not None:
        pdf = library.resolve_file(existing.pdf_path)
        if pdf is not None and pdf.exists():
            return Downloaded(existing, pdf, library.resolve_file(existing.source_path), True, [])
    record, version = resolve(library.web, identifier, library.readers)
    # One process at a time fetches a given paper (its .part files are shared); the others wait,
    # then find it in the library.
    with paper_lock(library, str(record.arxiv_id), cancel, on_wait):
        return _download_resolved(library, record, version, with_source, progress, cancel, library.readers)


def paper_lock(
    library: LibraryCore, arxiv_id: str, cancel: threading.Event | None, on_wait: Callable[[str], None] | None
) -> FileLock:
    lock = FileLock(library.workspace.astro_dir / "locks" / f"paper-{file_stem(arxiv_id)}.lock")

    def waiting(holder: LockHolder | None) -> None:
        if on_wait is not None:
            who = f" ({holder.describe()})" if holder else ""
            on_wait(f"another astro process{who} is downloading arXiv:{arxiv_id}; waiting for it to finish.")

    try:
        lock.acquire(PAPER_LOCK_WAIT, on_wait=waiting, cancel=cancel)
    except LockTimeout:
        if cancel is not None and cancel.is_set():
            raise ServiceError(f"The download of arXiv:{arxiv_id} was interrupted while it waited for another "
                               "astro process.") from None
        raise ServiceError(
            f"another astro process has been downloading arXiv:{arxiv_id} for {PAPER_LOCK_WAIT / 60:.0f} minutes; "
            "try again when it has finished."
        ) from None
    return lock


def _download_resolved(
    library: LibraryCore, record: FoundPaper, version: str, with_source: bool,
    progress: Progress | None, cancel: threading.Event | None, sources: ExtensionPoints,
) -> Downloaded:
    from astro_cli.research.library.papers import LibraryConflict

    arxiv_id = str(record.arxiv_id)
    existing = library.get_paper(arxiv_id)  # another process fetched it while this one waited?
    if existing is not None:
        pdf = library.resolve_file(existing.pdf_path)
        if pdf is not None and pdf.exists():
            return Downloaded(existing, pdf, library.resolve_file(existing.source_path), True, [])
    stem = file_stem(arxiv_id)
    papers_dir = library.files_folder()
    web = library.web
    offered = sources.files_for(web, record, version)
    if offered is None:
        raise ServiceError(f"No registered paper source serves the files of {arxiv_id}.")
    pdf_target = papers_dir / f"{stem}.pdf"
    notes: list[str] = []
    with make_client(web) as client:
        part = fetch_file(web, client, offered.pdf, pdf_target,
                          label=f"{offered.label}:{arxiv_id} PDF", progress=progress, cancel=cancel)
        if not is_pdf(part):
            part.unlink(missing_ok=True)
            raise NotAPdf(f"{offered.label} sent something that is not a PDF for {arxiv_id}; nothing was stored.")
        source = None
        if with_source and offered.source:
            source, note = _fetch_source(web, client, offered.source, papers_dir, stem, progress, cancel)
            if note:
                notes.append(note)
    writer.rename(Place.beside(part), Place.beside(pdf_target))
    if not record.title:  # the PDF's first page fills what the services left empty
        read, note = _metadata_from_pdf(arxiv_id, pdf_target)
        record = record + FoundPaper.from_record({**read, "sources": ["pdf"]})
        notes.insert(0, note)
    try:
        stored = library.upsert(record, pdf_path=str(pdf_target), source_path=str(source) if source else None)
    except Exception as exc:
        pdf_target.unlink(missing_ok=True)
        if source is not None and source.is_dir():
            shutil.rmtree(source, ignore_errors=True)
        elif source is not None:
            source.unlink(missing_ok=True)
        if isinstance(exc, LibraryConflict):
            raise ServiceError(str(exc)) from None
        raise
    notes += [f"{arxiv_id} was {text}; `astro library list` shows both." for text in stored.conflicts]
    return Downloaded(stored.paper, pdf_target, source, False, notes)


def _metadata_from_pdf(arxiv_id: str, pdf: Path) -> tuple[dict[str, Any], str]:
    """arXiv sent no metadata: what the PDF's first page says (title, authors, year from arXiv's
    stamp; research/text/file_metadata.py reads it), and a warning saying so."""
    from astro_cli.research.text.file_metadata import LocalFileError, pdf_metadata

    try:
        found = pdf_metadata(pdf)
    except LocalFileError:
        found = {}
    read = {k: found[k] for k in ("title", "authors", "year") if found.get(k)}
    if read.get("title"):
        fields = ", ".join(k for k in ("authors", "year") if k in read)
        also = f" ({fields} too)" if fields else ""
        return read, (f"warning: arXiv returned no metadata for {arxiv_id}; the title \"{read['title']}\"{also} "
                      "was read from the PDF's first page: check it with `astro library list`.")
    return read, (f"warning: arXiv returned no metadata for {arxiv_id} and the PDF shows no title; the paper is "
                  "stored untitled (BibTeX export will lack its title).")


def _fetch_source(
    web: Web, client: httpx.Client, url: str, papers_dir: Path, stem: str,
    progress: Progress | None, cancel: threading.Event | None,
) -> tuple[Path | None, str]:
    """The LaTeX source when arXiv offers one; a missing or failed source never fails the download."""
    target = papers_dir / f".{stem}.e-print"
    try:
        part = fetch_file(web, client, url, target, label=f"arXiv:{stem} source", progress=progress,
                          cancel=cancel, resume=False)
    except NoSuchPaper:
        return None, "arXiv offers no LaTeX source for this paper."
    except ServiceError as exc:
        _part(target).unlink(missing_ok=True)
        return None, f"The LaTeX source was not fetched: {exc}"
    try:
        source = unpack_source(part, papers_dir, stem)
    finally:
        part.unlink(missing_ok=True)
    return source, "" if source else "arXiv offers no LaTeX source for this paper (only the PDF)."
