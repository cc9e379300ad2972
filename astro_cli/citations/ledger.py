"""What the tools of a session have returned: the papers an answer may cite as verified, and the
passages it may cite by handle.

A paper counts as returned only when a successful tool result lists it as a record in
`data["sources"]` (search results, downloads, library reads carry title, authors, year and
identifiers). An identifier that merely occurs inside a result's text (a reference list that
rag_search returned, an abstract, a note the model saved, a .bib file it read) proves nothing
about the paper and is not counted: such ids can still be resolved online. Errors and answers
written by models (a subagent's or teammate's reply) are not tool output: a subagent's own tool
results are read from its child session instead.

Passages are the `Passage` records (research/records.py) that rag_search, get_paper_content and
search_papers put in their result's data (`passages`), one for each <paper-text> frame they showed
the model; the frames' text is never parsed back. The data is stored with the tool message, so a
resumed session knows what it read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.citations.handles import key_of
from astro_cli.research.identifiers import keys_of, record_keys
from astro_cli.research.records import PaperRef, Passage
from astro_cli.research.source_entry import SourceEntry

if TYPE_CHECKING:
    from astro_cli.app import AppContext

MODEL_WRITTEN = frozenset({"subagent", "team_start", "team_wait"})  # their text is a model's answer

Key = tuple[str, str]
DATA_CHARS = 200_000  # of one non-literature result kept for the claim check's "is it the researcher's data?"
DATA_TOTAL = 2_000_000


@dataclass
class SeenPaper:
    """A paper a tool returned: its names, and what is known of it (for titles and author-year matches),
    merged from every tool that listed it (the first tool's values kept, the others fill the gaps)."""

    keys: set[Key]
    entry: SourceEntry = field(default_factory=lambda: SourceEntry(PaperRef("")))

    @property
    def title(self) -> str | None:
        return self.entry.title

    @property
    def paper_id(self) -> str | None:
        return self.entry.paper_id


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _key(kind: str, value: str) -> Key:
    return kind, value.lower()


class CitationLedger:
    """Per-session state of the citation check: the papers seen, and online answers already had."""

    def __init__(self) -> None:
        self.papers: list[SeenPaper] = []
        self._by_key: dict[Key, SeenPaper] = {}
        self.online: dict[Key, dict[str, Any] | None] = {}  # a lookup's record, or None: not found
        self.loaded = False
        self.passages: dict[tuple[str, str], Passage] = {}  # by (paper, chunk) of the handle
        self.data_texts: list[str] = []  # other tool results (files read, commands run), newest last

    # --- taking in tool results ----------------------------------------------------------------
    def ingest(self, tool: str, arguments: Mapping[str, object], content: str, data: object, ok: bool,
               app: AppContext | None = None) -> None:
        """Take in one tool result: `data` is its JSON as stored (any shape an astro version wrote, or
        anything at all from a damaged row: what is not a record is passed over)."""
        if not ok:
            return  # an error names what it could not find
        data = data if isinstance(data, Mapping) else {}
        for source in _list(data.get("sources")):
            if isinstance(source, Mapping):  # read once, here, into the record the ledger keeps
                self._add(SourceEntry.from_dict(source))
        subagent = data.get("subagent")
        child = subagent.get("session_id") if isinstance(subagent, Mapping) else None
        if isinstance(child, str) and child and app is not None:
            self.load_session(app, child)
        if tool in MODEL_WRITTEN or child or not content:
            return
        found = [p for p in (Passage.from_dict(d) for d in _list(data.get("passages")) if isinstance(d, Mapping))
                 if p]
        if "passages" not in data:  # stored by an astro before the typed records: its frames say what it showed
            from astro_cli.citations.stored_frames import stored_passages

            found = stored_passages(content)
        for passage in found:
            key = key_of(passage.handle)
            if key is not None:
                self.passages.setdefault(key, passage)
        if not found:  # a file, a computation, a catalogue: numbers an answer may state without a paper
            self.data_texts.append(content[:DATA_CHARS])
            while sum(len(t) for t in self.data_texts) > DATA_TOTAL and len(self.data_texts) > 1:
                self.data_texts.pop(0)

    def _add(self, entry: SourceEntry) -> None:
        keys = {_key(kind, value) for kind, value in record_keys(entry.as_dict()) if value}
        if not keys:
            return
        known = next((self._by_key[k] for k in keys if k in self._by_key), None)
        if known is None:
            known = SeenPaper(set(), entry)
            self.papers.append(known)
        else:
            known.entry = known.entry.filled_from(entry)
        known.keys |= keys
        for key in keys:
            self._by_key.setdefault(key, known)

    def load_session(self, app: AppContext, session_id: str) -> None:
        """Take in every successful tool result stored for a session (and its subagents')."""
        arguments: dict[str, dict[str, Any]] = {}
        for stored in app.sessions.messages(session_id):
            message = stored.message
            if message.get("role") == "assistant":
                for call in message.get("tool_calls") or []:
                    try:
                        arguments[call["id"]] = json.loads(call["function"]["arguments"] or "{}")
                    except (KeyError, TypeError, ValueError):
                        arguments[call.get("id", "")] = {}
            elif message.get("role") == "tool":
                self.ingest(str(message.get("name") or ""), arguments.get(message.get("tool_call_id", ""), {}),
                            str(message.get("content") or ""), stored.meta.get("data"),
                            bool(stored.meta.get("ok", True)), app)

    # --- looking up -------------------------------------------------------------------------------
    def find(self, identifier: str) -> SeenPaper | None:
        for kind, value in keys_of(identifier):
            seen = self._by_key.get(_key(kind, value))
            if seen is not None:
                return seen
        return None

    def passage(self, handle: str) -> Passage | None:
        key = key_of(handle)
        return self.passages.get(key) if key else None

    def passages_of(self, names: set[str]) -> list[Passage]:
        """The passages read from a paper known by any of `names` (ids, lower case)."""
        return [p for (paper, _), p in self.passages.items() if paper in names]

    def described(self) -> list[SeenPaper]:
        """The papers whose authors and year are known (author-year citations are matched on these)."""
        return [p for p in self.papers if p.entry.described]
