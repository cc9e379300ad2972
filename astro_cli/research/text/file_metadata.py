"""What a paper file says about itself: title, authors, arXiv id, DOI and year from a PDF's first
page, or \\title and \\author from a LaTeX source. Used to add a local file (local_add.py) and when
arXiv sends no metadata for a download (download.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

_STAMP = re.compile(r"arXiv:(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?\s+\[[^\]]+\]\s+\d{1,2}\s+[A-Z][a-z]{2}\s+(\d{4})")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>,;]+[^\s\"<>,;.)])")
_MARKS = re.compile(r"\[\d+(?:[,–-]\s?\d+)*\]|(?<=[^\W\d_])\d+(?:,\s?\d+)*|[*†‡§¶]")  # [1, 2]: marks as pdfscript writes them


LIMIT_NOTE = "beyond_limits"  # the bound a hostile file hit while its metadata was read (not stored)
UNREADABLE_NOTE = "unreadable"  # why the first page gives no title: a scan, fonts without a Unicode map


class LocalFileError(Exception):
    """The file cannot be added; one sentence."""


def pdf_metadata(path: Path) -> dict[str, Any]:
    """Title, authors, arXiv id, DOI and year read from the first page of a PDF."""
    from astro_cli.research.text.pdf_limits import PdfLimits, read_pages_bounded
    from astro_cli.research.text.pdfread import PdfError

    try:  # only the first page is needed; read in the bounded child (research/text/bounded.py)
        reading = read_pages_bounded(path, PdfLimits(max_pages=1, max_seconds=60.0))
    except PdfError as exc:
        raise LocalFileError(str(exc)) from None
    pages = reading.pages
    if not pages:
        return {LIMIT_NOTE: reading.exceeded} if reading.exceeded else {}
    first = pages[0]
    if first.scanned or not first.chars:
        return {UNREADABLE_NOTE: "its first page has no text layer (a scanned image; astro does no OCR)"}
    if first.unmapped * 10 >= first.chars:  # the text would be wrong characters: no title from it
        return {UNREADABLE_NOTE: "the fonts of its first page have no Unicode map, so their text is not readable"}
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
    """\\title and \\author of a LaTeX source, read in a bounded child process (research/text/bounded.py):
    a hostile source stops there with one sentence, not in astro's own process."""
    from astro_cli.research.text.latex_limits import LatexError, metadata_bounded

    try:
        found = metadata_bounded(path)
    except LatexError as exc:
        raise LocalFileError(str(exc)) from None
    meta = {"title": found.get("title"), "authors": found.get("authors") or []}
    meta.update({key: found[key] for key in ("year", "journal") if found.get(key)})  # latex_publication's
    if found.get("exceeded"):
        meta[LIMIT_NOTE] = found["exceeded"]
    return meta


def read_latex_metadata(path: Path, budget: Any) -> dict[str, Any]:
    """latex_metadata's work, in the child (research/text/latex_worker.py), within `budget`."""
    from astro_cli.research.text.latex import (
        inline_inputs,
        latex_sections,
        main_file,
        read_source_files,
        to_text,
    )
    from astro_cli.research.text.latex_macros import collect_macros, expand_macros
    from astro_cli.research.text.latex_markup import braced

    title, _sections = latex_sections(path, budget=budget)
    again = type(budget)(budget.limits)  # the authors need the inlined text once more
    files = read_source_files(path)
    text = inline_inputs(files, main_file(files), budget=again)
    text = expand_macros(text, collect_macros(text), again)
    authors: list[str] = []
    for match in re.finditer(r"\\author\s*(?:\[[^\]]*\])?\s*\{", text):
        raw, _ = braced(text, match.end() - 1)
        raw = re.sub(r"\\(?:altaffilmark|affil|affiliation|inst|thanks|footnote|email)\s*\{[^{}]*\}", "", raw)
        authors += split_authors(to_text(raw.replace("\\and", ",")))
    return {"title": title, "authors": authors, **latex_publication(text)}


# Document classes that name their journal; `\journal{...}` (AASTeX, elsarticle) wins over them.
CLASS_JOURNALS = {"mnras": "Monthly Notices of the Royal Astronomical Society", "aa": "Astronomy & Astrophysics",
                  "pasj": "Publications of the Astronomical Society of Japan"}
_YEAR_MACROS = r"\\(?:date|year|pubyear|copyrightyear|submitted|received|accepted|published)"


def latex_publication(text: str) -> dict[str, Any]:
    r"""Year and journal a LaTeX source states: \date, \year, \pubyear, \received..., \journal, the class."""
    found: dict[str, Any] = {}
    years = []
    for match in re.finditer(_YEAR_MACROS + r"\s*(?:=\s*(\d{4})|\{([^{}]*)\})", text):
        stated = match.group(1) or match.group(2) or ""
        year = re.search(r"\b(19[5-9]\d|20\d\d)\b", stated)
        if year:
            years.append(int(year.group(1)))
    if years:
        found["year"] = max(years)  # the latest stated (accepted after received)
    journal = re.search(r"\\journal(?:name)?\s*\{([^{}]+)\}", text)
    documentclass = re.search(r"\\documentclass\s*(?:\[[^\]]*\])?\s*\{([^{}]+)\}", text)
    if journal and journal.group(1).strip():
        found["journal"] = " ".join(journal.group(1).split())
    elif documentclass and documentclass.group(1).strip() in CLASS_JOURNALS:
        found["journal"] = CLASS_JOURNALS[documentclass.group(1).strip()]
    return found


def split_authors(line: str) -> list[str]:
    """'James M. Murray,1 Adrian Del Maestro,1, 2 and Zlatko Tešanović1' -> three names."""
    line = _MARKS.sub("", line)
    parts = re.split(r",|\band\b|&", line)
    names = [re.sub(r"^[\d\s]+", "", " ".join(p.split())).strip(" .,;") for p in parts]
    return [n for n in names if re.search(r"[^\W\d_]{2,}", n) and len(n.split()) <= 6]


def _title_case(text: str) -> str:
    from astro_cli.research.text.pdftext import _title_case as title_case

    return title_case(" ".join(text.split()))
