"""What happened in the last turn of the REPL: its tool calls (for `/tool N`) and sources (`/sources`).

A listener on the event bus keeps this record, so slash commands can expand a call or list the
papers an answer rests on after the turn has been rendered and forgotten by the renderer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from astro_cli.agent import events as ev
from astro_cli.citations.events import CitationsChecked


@dataclass
class ToolCallRecord:
    index: int  # 1-based, as shown on the compact tool line
    call_id: str
    name: str
    arguments: dict[str, Any]
    key_argument: str = ""
    agent: str = "main"
    ok: bool | None = None  # None while running
    duration: float | None = None
    content: str = ""
    data: dict[str, Any] | None = None


@dataclass
class TurnLog:
    """The tool calls and outcome of the latest turn of the main session."""

    calls: list[ToolCallRecord] = field(default_factory=list)
    prompt: str = ""
    answer: str = ""
    stop_reason: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)  # the answer's checked citations
    claims: list[dict[str, Any]] = field(default_factory=list)  # the answer's claim ledger (/evidence)
    evidence_read: bool = True
    _by_id: dict[str, ToolCallRecord] = field(default_factory=dict)

    def reset(self, prompt: str = "") -> None:
        self.calls.clear()
        self._by_id.clear()
        self.citations, self.claims, self.evidence_read = [], [], True
        self.prompt, self.answer, self.stop_reason = prompt, "", ""

    def handle(self, event: ev.Event) -> None:
        if isinstance(event, CitationsChecked):
            self.citations = list(event.citations)
            self.claims, self.evidence_read = list(event.claims), event.evidence_read
        elif isinstance(event, ev.ToolStarted):
            record = ToolCallRecord(
                index=len(self.calls) + 1,
                call_id=event.call_id,
                name=event.name,
                arguments=dict(event.arguments),
                key_argument=event.key_argument,
                agent=event.agent,
            )
            self.calls.append(record)
            self._by_id[f"{event.agent}:{event.call_id}"] = record
        elif isinstance(event, ev.ToolFinished):
            started = self._by_id.get(f"{event.agent}:{event.call_id}")
            if started is None:  # a finish without a start (a tool refused before it began)
                started = ToolCallRecord(len(self.calls) + 1, event.call_id, event.name, {}, agent=event.agent)
                self.calls.append(started)
            started.ok, started.duration, started.content, started.data = (
                event.ok, event.duration, event.content, event.data)

    def finish(self, event: ev.TurnFinished) -> None:
        self.answer, self.stop_reason = event.answer, event.stop_reason

    def get(self, index: int) -> ToolCallRecord | None:
        return self.calls[index - 1] if 1 <= index <= len(self.calls) else None

    def sources(self) -> list[dict[str, Any]]:
        """Sources the research tools attached to their results, in order, without repeats."""
        seen: set[str] = set()
        found: list[dict[str, Any]] = []
        for call in self.calls:
            for source in (call.data or {}).get("sources") or []:
                if not isinstance(source, dict):
                    continue
                key = str(
                    source.get("bibcode") or source.get("arxiv_id") or source.get("url")
                    or source.get("id") or source.get("title") or len(found)
                )
                if key not in seen:
                    seen.add(key)
                    found.append(source)
        return found

    def marked_sources(self) -> list[tuple[dict[str, Any], str]]:
        """Each source with how the answer used it: cited, consulted (returned but not cited),
        unverified (cited, but no tool returned it and no lookup found it); cited papers that no
        tool of this turn returned (an earlier turn's, the library's, found online) come last."""
        from astro_cli.research.identifiers import keys_of

        def keys(values: list[Any]) -> set[tuple[str, str]]:
            return {(k, v.lower()) for value in values if value for k, v in keys_of(str(value))}

        cited = [(c, keys([c.get("id") if c.get("kind") != "author-year" else None, c.get("paper")]))
                 for c in self.citations]
        used: set[int] = set()
        out: list[tuple[dict[str, Any], str]] = []
        for source in self.sources():
            mine = keys([source.get("bibcode"), source.get("arxiv_id"), source.get("doi"), source.get("id")])
            hits = [i for i, (c, k) in enumerate(cited) if c.get("status") in ("verified", "resolved") and k & mine]
            used.update(hits)
            out.append((source, "cited" if hits else "consulted"))
        for index, (citation, _) in enumerate(cited):
            if index in used:
                continue
            entry = {"id": citation.get("id"), "title": citation.get("title"), "kind": citation.get("kind")}
            mark = {"verified": "cited", "resolved": "cited, found online"}.get(citation.get("status", ""), "unverified")
            out.append((entry, mark))
        return out
