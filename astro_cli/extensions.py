"""The extension points a feature or a plugin joins astro through, declared in one place (as simonw/llm's
hookspecs.py declares its hooks).

Built-in features and plugins use the same calls: a feature's `install(app)` and a plugin's
`register(api)` (hooks/plugins.py) both end here. The points:

- tools: `app.tools.register(tool)` (tools/registry.py; a later one of the same name replaces an earlier one)
- prompt sections and runtime context: `app.prompt.add(...)`, `app.prompt.add_context(...)` (prompt/registry.py)
- loop extensions: `loop_extensions(app).add(factory)` (agent/extensions.py)
- slash commands: `slash_commands(app).register(command)` (slash.py)
- transcript sections: `transcript_sections(app)` (transcript_sections.py)
- text readers: `extension_points(app).add_text_reader(reader)`, declared here: a `TextReader` turns one kind of
  paper file (PDF, LaTeX, Markdown...) into the library's chunks
- paper sources: `extension_points(app).add_paper_source(source)`, declared here: a `PaperSource` resolves
  the identifiers it recognises to a record and may search; `resolve.resolve`, `search_papers`, the tool's
  `source` choice and `astro search --source` read the registered ones
- CLI commands and command groups: `CliCommands.add_group(...)` / `add_command(...)`, declared here; the
  built-in ones from `commands/builtin.py`'s `register_commands(cli)`, a plugin's from its own
  `register_commands(cli)` (plugin_commands.py), as llm's `register_commands` hook. There is no app yet when
  the command line is read, so this point alone takes no app; each entry names its typer object lazily.
- a plugin's slash commands and transcript sections: `PluginAPI.add_slash_command` / `add_transcript_section`
  (hooks/plugins.py), whose handlers get narrow views (`slash.SlashView`, the session's row), never the app

This module imports nothing heavy and no feature: the protocol is what a reader must satisfy, and
`ExtensionPoints` is the app's one registry of readers and sources (found by class, `app.service`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    import typer

    from astro_cli.app import AppContext
    from astro_cli.research.found import FoundPaper
    from astro_cli.research.records import Chunk
    from astro_cli.research.sources.web import Web

log = logging.getLogger(__name__)

Slot = Literal["pdf", "source"]  # which of a paper's stored files a reader reads: pdf_path or source_path
HEAD_BYTES = 1024  # what a reader sees of a file to decide whether it is its kind


class ReaderError(Exception):
    """The file cannot be read by this reader; one sentence for the model and the user."""


@dataclass
class TextReading:
    """A paper file as the library's text: chunks (section by section) and the paper's outline."""

    chunks: list[Chunk]
    outline: list[tuple[str, int | None]]  # (heading, first page); pages only where the file has them
    pages: int | None = None
    exceeded: str | None = None  # the bound the file hit (a hostile or huge file); the chunks are what was read
    notes: list[str] = field(default_factory=list)  # one clause each: scans, fonts without Unicode...


class TextReader(Protocol):
    """One kind of paper file: how it is recognised, copied into papers/, described and read.

    `name` is stored as the paper's `parsed_from`; `label` names the file in sentences ("the PDF");
    `kinds` says what files it takes, for the sentence a file nobody reads gets; `hint` tells the model
    how to read the text it produced (None: plain prose). A paper keeps at most one file per `slot`:
    a source reader (LaTeX, Markdown) is preferred to the PDF and the PDF is the fallback."""

    name: str
    label: str
    kinds: str
    slot: Slot
    hint: str | None

    def claims(self, path: Path, head: bytes) -> bool:
        """Whether this reader reads `path` (`head`: its first HEAD_BYTES bytes, empty for a folder)."""
        ...

    def metadata(self, path: Path) -> dict[str, Any]:
        """What the file says of the paper (title, authors, year, ids), read before it is stored."""
        ...

    def store(self, path: Path, papers: Path, stem: str) -> Path:
        """Copy the file (and what it needs) into the papers folder through the safe writer; the stored path."""
        ...

    def read(self, path: Path, size: int) -> TextReading:
        """The file's text as chunks cut near `size` characters; ReaderError when it cannot be read."""
        ...


@dataclass(frozen=True)
class SearchRequest:
    """One search as the user asked it; a source reads `text` in its own query language."""

    text: str
    rows: int
    sort: str  # relevance, date or citations
    year_from: int | None = None
    year_to: int | None = None


@dataclass
class SearchAnswer:
    """What a source's search found: its total, its records and the notes a reader should see."""

    total: int
    records: list[FoundPaper]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PaperFiles:
    """Where a paper's files are: its PDF and, when offered, its LaTeX source archive."""

    pdf: str
    source: str | None
    label: str  # the service in sentences and progress lines: "arXiv"


class PaperSource(Protocol):
    """A service papers come from (arXiv, NASA ADS, Crossref, INSPIRE-HEP...).

    `name` is the `source` choice of search_papers and `astro search --source`; `label` names it in
    sentences. `query_language` says what `search` reads: "ads" for NASA ADS syntax (arXiv takes it
    translated), or the source's own (INSPIRE's). `searches` is False for a source that only resolves
    (Crossref). A record is a `FoundPaper` (research/found.py: ids, title, authors, year, venue, abstract,
    notices, which service said what; `FoundPaper.from_record` reads the common dict shape a client
    parses into). The library keys papers by arXiv id, so a record is
    downloaded only when it names one; `files` says which source serves them (arXiv today)."""

    name: str
    label: str
    query_language: str
    searches: bool

    def recognises(self, identifier: str) -> bool:
        """Whether `identifier` (stripped, as the user typed it) is one this source resolves."""
        ...

    def resolve(self, web: Web, identifier: str) -> FoundPaper | None:
        """The record for `identifier`, None when the source does not know it; ServiceError with one
        sentence when the source cannot be asked (no token, outage)."""
        ...

    def search(self, web: Web, request: SearchRequest) -> SearchAnswer:
        """What the source finds for `request`; only called when `searches`."""
        ...

    def files(self, web: Web, record: FoundPaper, version: str) -> PaperFiles | None:
        """Where this source serves `record`'s files (`version`: an arXiv version or ''), None when it does not."""
        ...


def _head(path: Path) -> bytes:
    if path.is_dir():
        return b""
    try:
        with open(path, "rb") as handle:
            return handle.read(HEAD_BYTES)
    except OSError as exc:
        log.debug("could not read the head of %s: %s", path, exc)
        return b""


@dataclass
class ExtensionPoints:
    """The app's text readers and paper sources, each in registration order (a later one of the same
    name replaces an earlier one, so a plugin may replace a built-in)."""

    readers: list[TextReader] = field(default_factory=list)
    sources: list[PaperSource] = field(default_factory=list)
    choices: list[str] = field(default_factory=lambda: ["all"])  # kept in place: the tool's enum is this list

    def add_paper_source(self, source: PaperSource) -> None:
        self.sources = [s for s in self.sources if s.name != source.name] + [source]
        self.choices[:] = ["all", *(s.name for s in self.sources if s.searches)]

    def source_for(self, identifier: str) -> PaperSource | None:
        """The source that resolves `identifier`: the last registered that recognises it."""
        return next((s for s in reversed(self.sources) if s.recognises(identifier)), None)

    def files_for(self, web: Web, record: FoundPaper, version: str) -> PaperFiles | None:
        """The record's files from the last registered source that serves them."""
        return next((f for s in reversed(self.sources) if (f := s.files(web, record, version)) is not None), None)

    def source_named(self, name: str) -> PaperSource | None:
        return next((s for s in self.sources if s.name == name), None)

    def search_choices(self) -> list[str]:
        """The `source` values a search takes: all, then every source that searches. The same list object
        for the registry's life, so a schema that holds it lists a source a plugin registers later."""
        return self.choices

    def add_text_reader(self, reader: TextReader) -> None:
        self.readers = [r for r in self.readers if r.name != reader.name] + [reader]

    def reader_named(self, name: str | None) -> TextReader | None:
        return next((r for r in self.readers if r.name == name), None)

    def reader_for(self, path: Path, slot: Slot | None = None) -> TextReader | None:
        """The reader that claims `path` (the last registered wins), of `slot` when given."""
        head = _head(path)
        for reader in reversed(self.readers):
            if (slot is None or reader.slot == slot) and reader.claims(path, head):
                return reader
        return None

    def kinds(self) -> str:
        """What files astro reads, for the sentence a file no reader claims gets."""
        return ", ".join(r.kinds for r in self.readers)


def extension_points(app: AppContext) -> ExtensionPoints:
    """The app's registry of readers and sources; the built-in ones are registered by the features' install (call
    `app.install_features()` before reading it, as `LibraryCore.readers` does)."""
    return app.service(ExtensionPoints)


CommandFunction = Callable[..., Any]  # a typer command: its parameters are the command's options and arguments


@dataclass(frozen=True)
class CliCommand:
    """One `astro NAME`: a group of sub-commands (`load` returns a typer.Typer) or one command (a function).
    `load` runs only when the command line is built, so declaring a command imports nothing."""

    name: str
    help: str
    load: Callable[[], typer.Typer] | Callable[[], CommandFunction]
    group: bool
    origin: str = "astro"  # the plugin that added it, for the sentence a clash gets


class CliCommands:
    """The `astro` command line's commands, in registration order (the order `astro --help` lists)."""

    def __init__(self) -> None:
        self._commands: dict[str, CliCommand] = {}

    def add_group(self, name: str, help: str, load: Callable[[], typer.Typer], origin: str = "astro") -> None:
        """`astro NAME ...`: the sub-commands of the typer.Typer `load()` returns."""
        self._add(CliCommand(name, help, load, group=True, origin=origin))

    def add_command(self, name: str, help: str, load: Callable[[], CommandFunction], origin: str = "astro") -> None:
        """`astro NAME`: the one command function `load()` returns."""
        self._add(CliCommand(name, help, load, group=False, origin=origin))

    def _add(self, command: CliCommand) -> None:
        taken = self._commands.get(command.name)
        if taken is not None:
            raise ValueError(f"the command '{command.name}' of {command.origin} is taken already (by {taken.origin})")
        self._commands[command.name] = command

    def names(self) -> frozenset[str]:
        return frozenset(self._commands)

    def __iter__(self) -> Iterator[CliCommand]:
        return iter(list(self._commands.values()))
