"""Fetching a paper into the library: its arXiv PDF, its LaTeX source when offered, and its row.

An arXiv id, a bibcode or a DOI is first resolved to an arXiv id (bibcodes and DOIs through
NASA ADS, or decoded when they name an arXiv e-print). Files arrive as `<name>.part` and are
renamed only once complete and checked (a PDF must start with %PDF), so the library never holds
half a file; an interrupted PDF download resumes from its .part with an HTTP Range request.
"""

from __future__ import annotations

import gzip
import re
import shutil
import tarfile
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.agent.events import Event
from astro_cli.research.identifiers import ARXIV_BIBCODE, ARXIV_DOI, BIBCODE
from astro_cli.research.sources import ads, arxiv, crossref
from astro_cli.research.sources.http import ServiceError, arxiv_throttle, http_error, make_client, stream
from astro_cli.security import writer
from astro_cli.security.writer import Place
from astro_cli.store.locks import FileLock, LockHolder, LockTimeout

if TYPE_CHECKING:
    import httpx

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


# --- resolving an identifier ---------------------------------------------------------------
def classify(identifier: str) -> str:
    """'arxiv', 'doi' or 'bibcode' for what the user typed; a ServiceError sentence otherwise."""
    text = identifier.strip()
    if arxiv.looks_like_arxiv_id(text) or ARXIV_BIBCODE.match(text) or ARXIV_DOI.match(text):
        return "arxiv"
    if re.match(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)?10\.\d{4,9}/\S+$", text, re.IGNORECASE):
        return "doi"
    if BIBCODE.match(text):
        return "bibcode"
    raise ServiceError(
        f"'{identifier}' is not an arXiv id (1001.0012, astro-ph/0601001), a DOI (10.xxxx/...) "
        "or an ADS bibcode (2013PASP..125..306F)."
    )


def arxiv_id_of(identifier: str) -> tuple[str, str] | None:
    """(id, version) when the identifier itself names an arXiv e-print, without asking anyone."""
    text = identifier.strip()
    match = ARXIV_BIBCODE.match(text)
    if match:
        return f"{match.group(1)}.{match.group(2)}", ""
    match = ARXIV_DOI.match(text)
    if match:
        text = match.group(1)
    if arxiv.looks_like_arxiv_id(text):
        return arxiv.split_id(text)
    return None


def resolve(web: Web, identifier: str) -> tuple[dict[str, Any], str]:
    """(metadata record, arXiv version or '') for an arXiv id, bibcode or DOI."""
    kind = {"doi": "DOI"}.get(classify(identifier), classify(identifier))
    ads_record: dict[str, Any] | None = None
    known = arxiv_id_of(identifier)
    if known is None:
        clean = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", identifier.strip(), flags=re.IGNORECASE)
        if not ads.has_token(web):
            raise ServiceError(
                f"Finding the arXiv version of the {kind} '{clean}' needs NASA ADS: set ADS_API_TOKEN (or keep a "
                "token with `astro keys set ads`), or give the arXiv id instead."
            )
        ads_record = ads.lookup(web, clean)
        if ads_record is None:
            raise ServiceError(f"NASA ADS does not know the {kind} '{clean}'.")
        if not ads_record.get("arxiv_id"):
            raise ServiceError(
                f"NASA ADS lists no arXiv version of '{ads_record.get('title') or clean}' ({clean}), so there is "
                "no open PDF to fetch; get it from the publisher."
            )
        known = (ads_record["arxiv_id"], "")
    arxiv_id, version = known
    records = [r for r in arxiv.fetch(web, [arxiv_id + version]) if r.get("arxiv_id") == arxiv_id]
    record = dict(records[0]) if records else {"id": arxiv_id, "arxiv_id": arxiv_id, "url": None, "sources": []}
    if ads_record is None and ads.has_token(web):
        try:
            ads_record = ads.lookup(web, f"arXiv:{arxiv_id}")
        except ServiceError:
            ads_record = None  # the bibcode is a bonus; the paper itself comes from arXiv
    if ads_record:
        for key in ("bibcode", "citation_count", "doi", "title", "authors", "year", "abstract"):
            if ads_record.get(key) and (key in ("bibcode", "citation_count") or not record.get(key)):
                record[key] = ads_record[key]
        for key in ("journal", "volume", "page", "pub_year"):  # the published version, when there is one
            record[key] = ads_record.get(key)
        record["biblio"] = {**(record.get("biblio") or {}), **(ads_record.get("biblio") or {})}
        record["primary_class"] = record.get("primary_category") or ads_record.get("primary_class")
        if ads_record.get("journal") and ads_record.get("doi"):
            record["doi"] = ads_record["doi"]  # the journal's DOI rather than arXiv's own
    record["id"] = arxiv_id
    record["arxiv_id"] = arxiv_id
    record["url"] = record.get("url") or f"https://arxiv.org/abs/{arxiv_id}"
    crossref.attach_updates(web, record)  # retracted or corrected: marked in the library and the footer
    return record, version


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
    record, version = resolve(library.web, identifier)
    # One process at a time fetches a given paper (its .part files are shared); the others wait,
    # then find it in the library.
    with paper_lock(library, record["arxiv_id"], cancel, on_wait):
        return _download_resolved(library, record, version, with_source, progress, cancel)


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
    library: LibraryCore, record: dict[str, Any], version: str, with_source: bool,
    progress: Progress | None, cancel: threading.Event | None,
) -> Downloaded:
    from astro_cli.research.library.papers import LibraryConflict

    existing = library.get_paper(record["arxiv_id"])  # another process fetched it while this one waited?
    if existing is not None:
        pdf = library.resolve_file(existing.pdf_path)
        if pdf is not None and pdf.exists():
            return Downloaded(existing, pdf, library.resolve_file(existing.source_path), True, [])
    arxiv_id = record["arxiv_id"]
    stem = file_stem(arxiv_id)
    papers_dir = library.files_folder()
    web = library.web
    base = web.settings.typed["arxiv_pdf_url"].rstrip("/")
    pdf_target = papers_dir / f"{stem}.pdf"
    notes: list[str] = []
    with make_client(web) as client:
        part = fetch_file(web, client, f"{base}/pdf/{arxiv_id}{version}", pdf_target,
                          label=f"arXiv:{arxiv_id} PDF", progress=progress, cancel=cancel)
        if not is_pdf(part):
            part.unlink(missing_ok=True)
            raise NotAPdf(f"arXiv sent something that is not a PDF for {arxiv_id}; nothing was stored.")
        source = None
        if with_source:
            source, note = _fetch_source(web, client, f"{base}/e-print/{arxiv_id}{version}", papers_dir, stem,
                                         progress, cancel)
            if note:
                notes.append(note)
    writer.rename(Place.beside(part), Place.beside(pdf_target))
    meta = {k: record.get(k) for k in ("id", "arxiv_id", "bibcode", "doi", "title", "authors", "year",
                                        "abstract", "citation_count", "url", "journal_ref", "journal", "volume",
                                        "page", "pub_year", "biblio")}
    meta["primary_class"] = record.get("primary_category") or record.get("primary_class")
    if not meta.get("title"):
        read, note = _metadata_from_pdf(arxiv_id, pdf_target)
        meta.update({k: v for k, v in read.items() if not meta.get(k)})
        notes.insert(0, note)
    meta["pdf_path"] = str(pdf_target)
    meta["source_path"] = str(source) if source else None
    try:
        stored = library.upsert(meta)
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
