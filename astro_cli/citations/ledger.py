"""What the tools of a session have returned: the papers an answer may cite as verified.

A paper counts as returned when a successful tool result lists it in `data["sources"]` (search
results, downloads, library reads carry title, authors, year and identifiers), or when its
identifier appears in a successful result's text (a search listing, a .bib file read from the
workspace). An identifier that appears in the call's own arguments is not counted from that
call's text: a search for an invented bibcode answers "No papers found for: <it>", which proves
nothing. Answers written by models (a subagent's or teammate's reply) are not tool output: a
subagent's own tool results are read from its child session instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.citations.extract import find_identifiers
from astro_cli.research.identifiers import keys_of, record_keys

if TYPE_CHECKING:
    from astro_cli.app import AppContext

MODEL_WRITTEN = frozenset({"subagent", "team_start", "team_wait"})  # their text is a model's answer

Key = tuple[str, str]


@dataclass
class SeenPaper:
    """A paper a tool returned: its names, and what is known of it (for titles and author-year matches)."""

    keys: set[Key]
    record: dict[str, Any] = field(default_factory=dict)

    @property
    def title(self) -> str | None:
        return self.record.get("title") or None

    @property
    def paper_id(self) -> str | None:
        rec = self.record
        return rec.get("arxiv_id") or rec.get("bibcode") or rec.get("doi") or rec.get("id") or None


def _key(kind: str, value: str) -> Key:
    return kind, value.lower()


class CitationLedger:
    """Per-session state of the citation check: the papers seen, and online answers already had."""

    def __init__(self) -> None:
        self.papers: list[SeenPaper] = []
        self._by_key: dict[Key, SeenPaper] = {}
        self.online: dict[Key, dict[str, Any] | None] = {}  # a lookup's record, or None: not found
        self.loaded = False

    # --- taking in tool results ----------------------------------------------------------------
    def ingest(self, tool: str, arguments: dict[str, Any], content: str, data: dict[str, Any] | None, ok: bool,
               app: AppContext | None = None) -> None:
        if not ok:
            return  # an error names what it could not find
        data = data or {}
        for source in data.get("sources") or []:
            if isinstance(source, dict):
                self._add(record_keys(source), source)
        child = (data.get("subagent") or {}).get("session_id") if isinstance(data.get("subagent"), dict) else None
        if child and app is not None:
            self.load_session(app, child)
        if tool in MODEL_WRITTEN or child:
            return
        echoed = {_key(k, v) for k, v in keys_of_text(json.dumps(arguments, ensure_ascii=False, default=str))}
        for cited in find_identifiers(content or ""):
            keys = {_key(k, v) for k, v in keys_of(cited.lookup)} - echoed
            if keys:
                self._add(keys, {})

    def _add(self, keys: set[Key] | set[tuple[str, str]], record: dict[str, Any]) -> None:
        keys = {_key(kind, value) for kind, value in keys if value}
        if not keys:
            return
        known = next((self._by_key[k] for k in keys if k in self._by_key), None)
        if known is None:
            known = SeenPaper(set(), {})
            self.papers.append(known)
        known.keys |= keys
        for name, value in record.items():
            if value not in (None, "", []) and not known.record.get(name):
                known.record[name] = value
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

    def described(self) -> list[SeenPaper]:
        """The papers whose authors and year are known (author-year citations are matched on these)."""
        return [p for p in self.papers if p.record.get("authors") and p.record.get("year")]


def keys_of_text(text: str) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for cited in find_identifiers(text):
        found |= keys_of(cited.lookup)
    return found
