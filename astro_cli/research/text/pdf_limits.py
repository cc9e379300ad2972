"""Bounds on reading a PDF, which is untrusted input: pages, time and memory.

A 13 KB PDF whose page tree claims a million pages (ten kids, each ten kids, ... all the same
page) took PDFium in astro's own process to 1.2 GB and past three minutes. `read_pages_bounded`
reads PDFs in a child process (research/text/bounded.py: address space, CPU and wall-clock limits, no
keys in its environment) and at most `max_pages` pages of them; past a bound it says which, in one
clause, and parse_paper indexes what was read (or nothing) with one note.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from astro_cli.research.text.pdfread import PageText, PdfError


@dataclass(frozen=True)
class PdfLimits:
    max_pages: int = 2000  # the longest theses and catalogue papers have a few hundred
    max_seconds: float = 120.0  # the whole reading, in the child process
    max_memory: int = 1536 * 1024 * 1024  # address space of the child process (bytes)


@dataclass
class PdfReading:
    """The pages read, how many the PDF claims, and the bound that stopped the reading, if one did."""

    pages: list[PageText] = field(default_factory=list)
    claimed: int = 0
    exceeded: str | None = None


def read_pages_bounded(path: Path, limits: PdfLimits | None = None) -> PdfReading:
    """Read a PDF's pages in the bounded child (raises PdfError for a file that is no readable PDF)."""
    from astro_cli.research.text.bounded import ChildFailed, ChildLimits, run_bounded

    limits = limits or PdfLimits()
    if not path.exists():
        raise PdfError(f"the PDF {path.name} is missing from papers/")
    try:
        outcome = run_bounded("astro_cli.research.text.pdf_worker", [str(path.resolve()), json.dumps(asdict(limits))],
                              ChildLimits(limits.max_seconds, limits.max_memory))
    except ChildFailed as exc:
        raise PdfError(f"{path.name} could not be read: the PDF {exc}") from None
    answer: dict[str, Any] | None = outcome.answer
    if answer is None:
        return PdfReading([], 0, outcome.exceeded)
    if answer.get("error"):
        raise PdfError(answer["error"])
    # lines, sizes, marks, then what reading_notes needs: characters, unmapped, rotated, scanned
    pages = [PageText(list(p[0]), list(p[1]), list(p[2]), *p[3:7]) for p in answer["pages"]]
    claimed = int(answer["claimed"])
    exceeded = None
    if claimed > len(pages):
        exceeded = f"it claims {claimed:,} pages; only the first {len(pages):,} were read"
    return PdfReading(pages, claimed, exceeded)
