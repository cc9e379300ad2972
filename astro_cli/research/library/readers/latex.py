"""The LaTeX reader: an arXiv e-print folder, a .tex or a .tar.gz, read in a bounded child (latex_limits.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from astro_cli.extensions import ReaderError, Slot, TextReading

SOURCE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".gz")


class LatexReader:
    name = "latex"
    label = "the LaTeX source"
    kinds = "a LaTeX source (.tex, .tar.gz)"
    slot: Slot = "source"
    hint: str | None = None

    def claims(self, path: Path, head: bytes) -> bool:
        name = path.name.lower()
        return path.is_dir() or name.endswith((".tex", *SOURCE_SUFFIXES)) or head[:2] == b"\x1f\x8b"

    def metadata(self, path: Path) -> dict[str, Any]:
        from astro_cli.research.text.file_metadata import latex_metadata

        return latex_metadata(path)

    def store(self, path: Path, papers: Path, stem: str) -> Path:
        from astro_cli.research.text.file_metadata import LocalFileError
        from astro_cli.security import writer
        from astro_cli.security.writer import Place

        if path.name.lower().endswith(".tex"):
            from astro_cli.research.text.latex_closure import tex_closure

            folder = papers / f"{stem}-source"
            shutil.rmtree(folder, ignore_errors=True)
            root = path.resolve().parent
            for item in tex_closure(path):  # the named file and what it inputs, never the folder's other papers
                writer.copy_into(item, Place(papers, (folder.name, *item.relative_to(root).parts)))
            return folder
        from astro_cli.research.library.download import unpack_source

        stored = unpack_source(path, papers, stem)
        if stored is None:
            raise LocalFileError(f"{path.name} holds no LaTeX source")
        return stored

    def read(self, path: Path, size: int) -> TextReading:
        from astro_cli.research.library.parse import latex_chunks
        from astro_cli.research.text.latex import LatexSection
        from astro_cli.research.text.latex_limits import LatexError, read_bounded

        try:
            reading = read_bounded(path)
        except LatexError as exc:
            raise ReaderError(str(exc)) from None
        sections = [LatexSection(title, text) for title, text in reading.sections]
        return TextReading(latex_chunks(sections, size), [(s.title, None) for s in sections],
                           exceeded=reading.exceeded)
