"""`astro library check` (alias `doctor`): find what is wrong in a library and repair what is safe.

Repaired without asking (each only removes what nothing can use, or restores what is certain):
chunks and vectors whose paper or note is gone, a full-text index out of step with its chunks (FTS5;
PostgreSQL's tsvector is a generated column and cannot drift),
a paper marked parsed that has no chunks (it is parsed again when next read), a stored path to
a PDF that moved within papers/ under its own name, astro's own temporary folders left by a
crash. Reported for the researcher, because only they can say which record is right: rows
whose identifiers disagree (a row named 1001.0012 whose arXiv id is 1111.2011), rows that share
a DOI, bibcode or arXiv id, missing files, and files under papers/ that no row names. In a library a
group shares, a paper whose files are on another member's machine is normal: it is counted in a note.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from astro_cli.research.identifiers import arxiv_of_bibcode, arxiv_of_doi, is_arxiv_id, normalize_arxiv
from astro_cli.research.library.duplicates import likely_duplicates
from astro_cli.research.records import Paper

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore

STALE_SECONDS = 3600  # a temporary folder this old belongs to no download still running


@dataclass
class Finding:
    kind: str  # fixed | needs-you | note
    text: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


@dataclass
class CheckReport:
    papers: int = 0
    chunks: int = 0
    findings: list[Finding] = field(default_factory=list)

    def add(self, kind: str, text: str) -> None:
        self.findings.append(Finding(kind, text))

    @property
    def needs_you(self) -> bool:
        return any(f.kind == "needs-you" for f in self.findings)


def _stem_id(path: Path) -> str | None:
    """The arXiv id a file under papers/ is named after (1001.0012.pdf, astro-ph_0601001-source)."""
    name = path.name.removesuffix(".pdf").removesuffix(".tex").removesuffix("-source")
    candidate = name.replace("_", "/", 1) if "_" in name else name
    return candidate if is_arxiv_id(candidate) else None


def identity_problems(paper: Paper) -> list[str]:
    """Why a row's own identifiers disagree with each other (empty when they agree)."""
    problems: list[str] = []
    arxiv = paper.arxiv_id
    own = normalize_arxiv(paper.id)
    if arxiv and own and is_arxiv_id(own) and own != arxiv:
        problems.append(f"its id is arXiv {own} but its arXiv id is {arxiv}")
    from_bibcode = arxiv_of_bibcode(paper.bibcode)
    if arxiv and from_bibcode and from_bibcode != arxiv:
        problems.append(f"its bibcode {paper.bibcode} is the e-print {from_bibcode}, not {arxiv}")
    from_doi = arxiv_of_doi(paper.doi)
    if arxiv and from_doi and from_doi != arxiv:
        problems.append(f"its DOI {paper.doi} is the e-print {from_doi}, not {arxiv}")
    for key in ("pdf_path", "source_path"):
        stem = _stem_id(Path(getattr(paper, key))) if getattr(paper, key) else None
        if stem and arxiv and stem != arxiv:
            problems.append(f"its file {getattr(paper, key)} is named after {stem}")
    return problems


def check_library(library: LibraryCore, repair: bool = True) -> CheckReport:
    store = library.store
    report = CheckReport()
    papers = library.list_papers()
    report.papers = len(papers)
    report.chunks = store.chunk_count()
    verb = "removed" if repair else "would remove"

    orphans, stray_vectors = store.orphans()
    if orphans or stray_vectors:
        if repair:
            store.remove_orphans()
        report.add("fixed" if repair else "note",
                   f"{verb} {orphans} chunk(s) and {stray_vectors} vector(s) whose paper or note is no longer "
                   "in the library")
    if store.check_text_index(repair):
        report.add("fixed" if repair else "note",
                   f"{'rebuilt' if repair else 'would rebuild'} the full-text index, which was out of step with "
                   "the chunks")
    if library.embedding_model and store.vectors_note():
        report.add("note", f"{store.vectors_note()}.")

    for paper in papers:
        problems = identity_problems(paper)
        if problems:
            report.add("needs-you", f"{paper.id} ({paper.title or 'untitled'}) mixes two papers: "
                       f"{'; '.join(problems)}. Remove it (`astro library remove {paper.id}`) and add each "
                       "paper again.")
        if paper.parsed_at and not paper.chunks:
            if repair:
                store.update_paper(paper.id, {"parsed_at": None, "parsed_from": None})
            report.add("fixed" if repair else "note",
                       f"{paper.id} was marked indexed but has no chunks; "
                       f"{'it is' if repair else 'it would be'} indexed again when next read")
    for conflict in library.conflicts():
        report.add("needs-you", f"{conflict['a']} and {conflict['b']} have the same {conflict['kind']} "
                   f"{conflict['value']}: the same paper twice (`astro library merge {conflict['a']} "
                   f"{conflict['b']}` makes them one), or one of them carries a wrong identifier (check both with "
                   "`astro library list --json` and remove the wrong one).")
    for twin in likely_duplicates(papers):
        report.add("needs-you", f"{twin.a} and {twin.b} are likely the same paper ({twin.reason}); "
                   f"`astro library merge {twin.a} {twin.b}` keeps {twin.a} and folds {twin.b} into it.")
    _check_files(library, papers, report, repair)
    return report


def _check_files(library: LibraryCore, papers: list[Paper], report: CheckReport,
                 repair: bool) -> None:
    root = library.papers_dir
    named: set[Path] = set()
    elsewhere: list[str] = []  # a shared library's papers whose files are on other members' machines
    for paper in papers:
        for key in ("pdf_path", "source_path"):
            path = library.resolve_file(getattr(paper, key))
            if path is None:
                if getattr(paper, key):
                    report.add("needs-you", f"{paper.id}: its {key} {getattr(paper, key)!r} lies outside the paper folders "
                               f"({root}); astro never reads it. `astro library add {paper.id}` fetches the "
                               "paper again")
                continue
            if path.exists():
                named.add(path.resolve())
                continue
            moved = root / (paper.arxiv_id.replace("/", "_") + path.suffix) if paper.arxiv_id else None
            if key == "pdf_path" and moved is not None and moved.is_file() and moved.resolve() not in named:
                if repair:
                    library.upsert_paper({"id": paper.id, "pdf_path": str(moved)})
                named.add(moved.resolve())
                report.add("fixed" if repair else "note",
                           f"{paper.id}: its PDF is {moved.relative_to(library.workspace.root)}, not {getattr(paper, key)}")
            elif library.store.shared and paper.parsed_at and paper.arxiv_id:
                elsewhere.append(paper.id)
            else:
                report.add("needs-you", f"{paper.id}: {getattr(paper, key)} is missing; `astro library add {paper.id}` "
                           "fetches it again")
    if elsewhere:
        shown = ", ".join(list(dict.fromkeys(elsewhere))[:5]) + (" ..." if len(set(elsewhere)) > 5 else "")
        report.add("note", f"{len(set(elsewhere))} paper(s) of the group library have no file on this machine "
                   f"({shown}); their text is in the library, and a tool that needs the PDF fetches it from arXiv")
    if not root.is_dir():
        return
    for path in sorted(root.iterdir()):
        if path.resolve() in named:
            continue
        relative = path.relative_to(library.workspace.root)
        if path.name.startswith(".") and path.is_dir() and time.time() - path.stat().st_mtime > STALE_SECONDS:
            if repair:
                shutil.rmtree(path, ignore_errors=True)
            report.add("fixed" if repair else "note", f"{'removed' if repair else 'would remove'} {relative}, "
                       "a temporary folder left by an interrupted download")
        elif path.name.endswith(".part"):
            report.add("note", f"{relative} is an unfinished download; adding the paper again resumes it")
        elif not path.name.startswith("."):
            report.add("note", f"{relative} is in no library row (add it with `astro library add`, or delete it)")
