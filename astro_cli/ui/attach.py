"""Files attached to one question (`-a FILE`, `@path` in the REPL), not added to the library.

A PDF or a LaTeX source is read with the library's readers, in their bounded child process (pages,
time, memory); any other file as UTF-8 text (a table, a log, a script); a binary file is refused
with one sentence. Each is cut at config `read.max_chars` with a note, its text escaped so it
cannot form astro's prompt tags, and placed before the question in an `<attached-file>` block.
"""

from __future__ import annotations

import re
from pathlib import Path

from astro_cli.prompt.tags import escape_tags

MENTION = re.compile(r"(?<![\w@])@((?:[\w.~/+-]|\\ )+)")  # `@notes/jet.md`, `@~/data/obs.csv`


class AttachError(Exception):
    """A file that cannot be attached: the sentence says why."""


def read_attachment(path: Path, limit: int) -> str:
    """The text of `path`, at most `limit` characters (a note says what was left out)."""
    if not path.is_file():
        raise AttachError(f"cannot attach {path}: no such file")
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        text = _pdf(path)
    elif suffix == ".tex":
        text = _latex(path)
    else:
        raw = path.read_bytes()[: limit * 4 + 4]
        if b"\0" in raw[:8192]:
            raise AttachError(f"cannot attach {path.name}: it is a binary file (attach a PDF, a .tex or a text file)")
        text = raw.decode("utf-8", errors="replace")
    if len(text) > limit:
        text = text[:limit] + f"\n[… cut at {limit:,} characters (config read.max_chars)]"
    return text


def _pdf(path: Path) -> str:
    from astro_cli.research.text.pdf_limits import read_pages_bounded
    from astro_cli.research.text.pdfread import PdfError

    try:
        reading = read_pages_bounded(path)
    except PdfError as exc:
        raise AttachError(f"cannot attach {path.name}: {exc}") from None
    pages = [f"[page {n}]\n" + "\n".join(page.lines) for n, page in enumerate(reading.pages, start=1)]
    note = [f"[{reading.exceeded}]"] if reading.exceeded else []
    return "\n\n".join(pages + note)


def _latex(path: Path) -> str:
    from astro_cli.research.text.latex_limits import LatexError, read_bounded

    try:
        reading = read_bounded(path)
    except LatexError as exc:
        raise AttachError(f"cannot attach {path.name}: {exc}") from None
    parts = [reading.title or ""] + [f"## {title}\n{text}" for title, text in reading.sections]
    return "\n\n".join(p for p in parts if p) + (f"\n[{reading.exceeded}]" if reading.exceeded else "")


def with_attachments(question: str, paths: list[Path], limit: int) -> str:
    """The question after a block per attached file (raises AttachError for one that cannot be read)."""
    blocks = [f'<attached-file path="{escape_tags(str(path))}">\n{escape_tags(read_attachment(path, limit))}\n'
              "</attached-file>" for path in paths]
    return "\n\n".join([*blocks, question]) if blocks else question


def mentioned_files(text: str, cwd: Path) -> list[Path]:
    """The `@path` words of `text` that name an existing file (others, such as e-mail handles, stay words)."""
    found: list[Path] = []
    for match in MENTION.finditer(text):
        path = (cwd / Path(match.group(1).replace("\\ ", " ")).expanduser()).resolve()
        if path.is_file() and path not in found:
            found.append(path)
    return found
