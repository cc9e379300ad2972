"""What the tools of a session have returned: the papers an answer may cite as verified.

A paper counts as returned when a successful tool result lists it in `data["sources"]` (search
results, downloads, library reads carry title, authors, year and identifiers), or when its
identifier appears in a successful result's text (a search listing, a .bib file read from the
workspace). An identifier that appears in the call's own arguments is not counted from that
call's text: a search for an invented bibcode answers "No papers found for: <it>", which proves
nothing. Answers written by models (a subagent's or teammate's reply) are not tool output: a
subagent's own tool results are read from its child session instead.

Texts are not scanned when they arrive (a long session holds megabytes of results): the ledger
keeps them, and looks for the few identifiers an answer cites when it is asked (a substring
search, then a check that the match is a whole identifier).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

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
        self._texts: list[tuple[str, str]] = []  # (result text, the call's arguments), lower-cased

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
        if tool in MODEL_WRITTEN or child or not content:
            return
        self._texts.append((content.lower(), json.dumps(arguments, ensure_ascii=False, default=str).lower()))

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
        keys = keys_of(identifier)
        for kind, value in keys:
            seen = self._by_key.get(_key(kind, value))
            if seen is not None:
                return seen
        for kind, value in keys:
            if _in_texts(self._texts, kind, value.lower()):
                self._add(keys, {})
                return self._by_key.get(_key(kind, value))
        return None

    def described(self) -> list[SeenPaper]:
        """The papers whose authors and year are known (author-year citations are matched on these)."""
        return [p for p in self.papers if p.record.get("authors") and p.record.get("year")]


# Characters that would make a match part of a longer identifier, before and after it.
_BEFORE = {"bibcode": set("abcdefghijklmnopqrstuvwxyz0123456789.&"), "arxiv": set("abcdefghijklmnopqrstuvwxyz0123456789.-"),
           "doi": set("abcdefghijklmnopqrstuvwxyz0123456789.")}
_AFTER = {"bibcode": set("abcdefghijklmnopqrstuvwxyz0123456789&"), "arxiv": set("0123456789-"),
          "doi": set("abcdefghijklmnopqrstuvwxyz0123456789/-_")}


def _whole(text: str, start: int, end: int, kind: str) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    if kind == "arxiv" and after == "." and end + 1 < len(text) and text[end + 1].isdigit():
        return False  # 1912.9999 inside 1912.99991
    if kind == "arxiv" and after == "v":
        return True  # a version: 1912.99999v2
    return before not in _BEFORE[kind] and after not in _AFTER[kind]


def _in_texts(texts: list[tuple[str, str]], kind: str, needle: str) -> bool:
    """Whether `needle` stands as a whole identifier in some result whose call did not ask for it."""
    for text, arguments in texts:
        start = text.find(needle)
        while start >= 0:
            if _whole(text, start, start + len(needle), kind) and needle not in arguments:
                return True
            start = text.find(needle, start + 1)
    return False
