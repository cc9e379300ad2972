"""Files attached to one question: `astro run -a FILE` and `@FILE` in the REPL (Claude Code's habits).

The file's text goes into that question's message only, not into the library: a PDF and a LaTeX
source are read by the library's own bounded readers (research/text/), a FITS or VOTable table by
astropy, anything else as UTF-8 text (a binary file is refused). Each is cut at `read.max_chars`
characters, with a note that says so. The text is framed as `<attached-file path="...">` and passes
through `escape_tags`, so a file cannot open or close astro's prompt tags.

Where a file may come from: `@FILE` (typed at the REPL, where text from anywhere can be pasted) is
confined to the workspace as file tools are; `-a FILE` on the command line may name a file outside
it, since the person named it there. Key stores are refused either way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from astro_cli.prompt.tags import escape_tags
from astro_cli.user_error import UserError

if TYPE_CHECKING:
    from astro_cli.app import AppContext

TABLE_SUFFIXES = (".fits", ".fit", ".fts", ".fits.gz", ".vot", ".votable")
# `@notes.md`, `@papers/a.pdf`, `@"my notes.md"`: at the start of the line or after a space (an e-mail
# address is no mention); a trailing `,.;:!?)` ends the sentence, not the path.
MENTION = re.compile(r"""(?:(?<=\s)|^)@(?:"([^"]+)"|([^\s"]+?))(?=[,.;:!?)]*(?:\s|$))""")


class AttachmentError(UserError):
    """A file that cannot be attached; one sentence naming it and why (`astro run` exits 2 with it)."""


@dataclass(frozen=True)
class Attachment:
    shown: str  # the name as the person wrote it
    text: str  # what the model reads (cut)
    total: int | None  # characters in the file, when all were read (None: a long text file read in part)
    cut: bool

    def framed(self) -> str:
        name = escape_tags(self.shown).replace('"', "'")
        return f'<attached-file path="{name}">\n{escape_tags(self.text)}{self._note()}\n</attached-file>'

    def _note(self) -> str:
        if not self.cut:
            return ""
        of = f" of {self.total:,}" if self.total is not None else ""
        return f"\n[cut at {len(self.text):,}{of} characters]"

    def summary(self) -> str:
        """`attached notes.md (1,234 characters)`, and the cut when there was one."""
        size = self._note().strip().strip("[]") if self.cut else f"{len(self.text):,} characters"
        return f"attached {self.shown} ({size})"


def resolve(app: AppContext, raw: str, named_by_user: bool) -> Path:
    """The file `raw` names: inside the workspace unless the person named it on the command line."""
    from astro_cli.security.paths import PathRefused

    confinement = app.confinement
    try:
        if not named_by_user:
            path = confinement.resolve(raw, must_exist=True)
        else:
            path = Path(raw).expanduser()
            path = (path if path.is_absolute() else Path.cwd() / path).resolve()
            if confinement.is_secret(path):
                raise PathRefused(f"'{raw}' is a key store ({path}); astro does not attach it.")
            if not path.exists():
                raise PathRefused(f"'{raw}' does not exist.")
    except PathRefused as exc:
        raise AttachmentError(str(exc)) from None
    if path.is_dir():
        raise AttachmentError(f"'{raw}' is a folder; attach its files one by one.")
    return path


def read(path: Path, shown: str, max_chars: int) -> Attachment:
    """The file's text, cut at `max_chars` (raises AttachmentError with one sentence)."""
    text, more = _text(path, shown, max_chars)
    return Attachment(shown, text[:max_chars], None if more else len(text), more or len(text) > max_chars)


def _text(path: Path, shown: str, max_chars: int) -> tuple[str, bool]:
    """The text, and whether a text file goes on past what was read."""
    name = path.name.lower()
    if name.endswith(".pdf"):
        from astro_cli.research.text.pdf_limits import read_pages_bounded
        from astro_cli.research.text.pdfread import PdfError

        try:
            reading = read_pages_bounded(path)
        except PdfError as exc:
            raise AttachmentError(f"'{shown}' could not be read: {exc}") from None
        if not reading.pages and reading.exceeded:
            raise AttachmentError(f"'{shown}' could not be read: {reading.exceeded}.")
        pages = [f"[page {n}]\n" + "\n".join(page.lines) for n, page in enumerate(reading.pages, start=1)]
        return "\n\n".join(pages) + (f"\n[{reading.exceeded}]" if reading.exceeded else ""), False
    if name.endswith((".tex", ".ltx")):
        from astro_cli.research.text.latex_limits import LatexError, read_bounded

        try:
            latex = read_bounded(path)
        except LatexError as exc:
            raise AttachmentError(f"'{shown}' could not be read: {exc}") from None
        body = "\n\n".join(f"## {title}\n{text}" if title else text for title, text in latex.sections)
        title = f"# {latex.title}\n\n" if latex.title else ""
        return title + body + (f"\n[{latex.exceeded}]" if latex.exceeded else ""), False
    if name.endswith(TABLE_SUFFIXES):
        from astro_cli.tools.base import ToolError
        from astro_cli.tools.table_read import read_table

        try:
            table = read_table(path, shown)
        except ToolError as exc:
            raise AttachmentError(str(exc)) from None
        return "\n".join(table.pformat(max_lines=-1, max_width=-1)), False
    with path.open("rb") as handle:
        raw = handle.read(4 * max_chars + 4)  # enough for max_chars characters of any UTF-8, and to see the cut
    if b"\x00" in raw[:4096]:
        raise AttachmentError(f"'{shown}' is a binary file; astro attaches text, PDF, LaTeX and FITS or VOTable tables.")
    more = len(raw) > 4 * max_chars
    return raw[: 4 * max_chars].decode("utf-8", errors="replace"), more


def attach(app: AppContext, raw: str, named_by_user: bool) -> Attachment:
    """Resolve and read one file, cut at config `read.max_chars`."""
    path = resolve(app, raw, named_by_user)
    try:
        return read(path, raw, int(app.settings.typed["read.max_chars"]))
    except OSError as exc:  # unreadable (permissions), gone since: one sentence, no traceback
        raise AttachmentError(f"'{raw}' could not be read: {exc.strerror or exc}.") from None


def attached_question(app: AppContext, question: str, names: list[str], say: Callable[[str], None]) -> str:
    """`astro run -a FILE...`: the question with each file framed after it; `say` hears a line per file.
    A file that cannot be read stops the run (AttachmentError) before any model is called."""
    attached = []
    for name in names:
        attached.append(attach(app, name, named_by_user=True))
        say(attached[-1].summary())
    return with_attachments(question, attached) if attached else question


def with_attachments(question: str, attachments: list[Attachment]) -> str:
    """The question, then each file framed: what the model receives as the user's message."""
    return "\n\n".join([question, *(a.framed() for a in attachments)])


def mentions(app: AppContext, line: str) -> tuple[list[Attachment], list[str]]:
    """The workspace files a REPL line names as `@FILE`, read, and a sentence for each that could not be.

    A word after `@` that names no file in the workspace stays text (`@astropy` on GitHub, a handle)."""
    found: list[Attachment] = []
    problems: list[str] = []
    seen: set[str] = set()
    for match in MENTION.finditer(line):
        raw = match.group(1) or match.group(2)
        if raw in seen:
            continue
        seen.add(raw)
        candidate = Path(raw).expanduser()
        if not (candidate if candidate.is_absolute() else app.workspace.root / candidate).exists():
            continue
        try:
            found.append(attach(app, raw, named_by_user=False))
        except AttachmentError as exc:
            problems.append(str(exc))
    return found, problems
