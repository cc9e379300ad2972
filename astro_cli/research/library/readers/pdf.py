"""The PDF reader: a paper's PDF, read in a bounded child (pdf_limits.py), into chunks by section and page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from astro_cli.extensions import ReaderError, Slot, TextReading


class PdfReader:
    name = "pdf"
    label = "the PDF"
    kinds = "a PDF"
    slot: Slot = "pdf"
    hint: str | None = ("PDF text: x^{2} and x_{i} are super- and subscripts, a/b a stacked fraction, [3] a note or "
                        "citation mark, ' | ' separates table cells; ⟦ ⟧ encloses a formula whose layout was guessed.")

    def claims(self, path: Path, head: bytes) -> bool:
        return b"%PDF-" in head or path.name.lower().endswith(".pdf")  # a .pdf that is none: the reader says so

    def metadata(self, path: Path) -> dict[str, Any]:
        from astro_cli.research.text.file_metadata import pdf_metadata

        return pdf_metadata(path)

    def store(self, path: Path, papers: Path, stem: str) -> Path:
        from astro_cli.security import writer
        from astro_cli.security.writer import Place

        return writer.copy_into(path, Place(papers, (f"{stem}.pdf",)))

    def read(self, path: Path, size: int) -> TextReading:
        from astro_cli.research.library.parse import pdf_chunks
        from astro_cli.research.text.pdf_limits import read_pages_bounded
        from astro_cli.research.text.pdfread import PdfError, reading_notes

        try:
            reading = read_pages_bounded(path)
        except PdfError as exc:
            raise ReaderError(str(exc)) from None
        chunks, outline = pdf_chunks(reading.pages, size) if reading.pages else ([], [])
        return TextReading(chunks, outline, len(reading.pages), reading.exceeded, reading_notes(reading.pages))
