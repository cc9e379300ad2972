"""One compaction round: the layers in order, each only while the context is still too big.

A round works on the view (what is sent) and its origin map (the stored-history index of each
view message, None for messages compaction made up). It emits CompactionStarted / Compacted for
each layer that runs and records a row per layer; the engine decides when a round happens.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.agent import events as ev
from astro_cli.compact import layers as L
from astro_cli.compact.events import Compacted, CompactionStarted
from astro_cli.compact.records import CompactionRecord, CompactionStore
from astro_cli.compact.summary import SummaryFailed, fit_history, request_summary

if TYPE_CHECKING:
    from astro_cli.agent.extensions import SessionView, TurnView
    from astro_cli.agent.tokens import TokenCounter
    from astro_cli.compact.window import Policy
    from astro_cli.usage import Usage

AUTO_LAYERS = ("snip", "micro", "summary", "aggressive")
ON_DEMAND_LAYERS = ("summary", "aggressive")
MIN_RESULT_CHARS = 400


@dataclass
class View:
    messages: list[dict[str, Any]]
    origin: list[int | None]

    def copy(self) -> View:
        return View(list(self.messages), list(self.origin))


@dataclass
class Outcome:
    """What a round did, for the breaker, the /compact line and the compress_context result."""

    trigger: str
    layers: list[str] = field(default_factory=list)
    messages_before: int = 0
    messages_after: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    limit: int = 0
    summary: str | None = None
    error: str | None = None

    @property
    def changed(self) -> bool:
        return bool(self.layers)

    def describe(self) -> str:
        if self.error == "cancelled" and not self.layers:
            return "Compaction cancelled; nothing changed."
        if self.error and not self.layers:
            return f"Compaction failed: {self.error}"
        if not self.layers:
            return "Nothing to compact yet: the conversation is too short."
        done = ", ".join(self.layers)
        line = (
            f"Compacted ({done}): {self.messages_before} → {self.messages_after} messages, "
            f"~{self.tokens_before:,} → ~{self.tokens_after:,} tokens sent."
        )
        return line + (f" ({self.error})" if self.error else "")


@dataclass
class Round:
    session: SessionView
    state: TurnView | None
    trigger: str
    instructions: str | None
    policy: Policy
    counter: TokenCounter
    system: str
    tools: list[dict[str, Any]]
    ratio: float  # the provider's count over litellm's for the same request (1.0 when litellm's is higher)
    limit: int
    window: int
    restore: Callable[[int], dict[str, Any] | None]
    store: Callable[[], CompactionStore]  # where the round's records go (opened when there are some)
    restored: dict[str, Any] | None = None  # the re-injection message this round added
    records: list[CompactionRecord] = field(default_factory=list)  # written once the round is complete
    reserve: int = 0  # tokens the re-injection message will add

    def tokens(self, messages: list[dict[str, Any]]) -> int:
        return int(self.counter.request(self.system, messages, self.tools) * self.ratio)

    # --- the round -----------------------------------------------------------------------------
    def run(self, view: View, sent_before: list[dict[str, Any]], tokens_before: int) -> tuple[View, Outcome]:
        outcome = Outcome(
            self.trigger, messages_before=len(sent_before), tokens_before=tokens_before, limit=self.limit
        )
        reserve = self.reserve = self._restore_reserve(view)
        current = self.tokens(view.messages) + reserve
        for layer in AUTO_LAYERS if self.trigger == "auto" else ON_DEMAND_LAYERS:
            forced = layer == "summary" and self.trigger != "auto"
            if not forced and current <= self.limit:
                break
            result = self._layer(layer, view, sent_before, current, outcome)
            if result is not None:
                view = result
                current = self.tokens(view.messages) + reserve
        if outcome.changed:
            message = self.restore(len(view.messages))
            self.restored = message
            if message is not None:
                view.messages.append(message)
                view.origin.append(None)
        outcome.messages_after = len(view.messages) if outcome.changed else outcome.messages_before
        outcome.tokens_after = self.tokens(view.messages) if outcome.changed else tokens_before
        self._record()
        return view, outcome

    def _record(self) -> None:
        """Rows for `astro sessions show`; a database problem costs the record, not the compaction."""
        if not self.records:
            return
        session = self.session
        try:
            store = self.store()
            seq = store.last_seq(session.session_id)
            for record in self.records:
                record.after_seq = seq
                store.add(record)
        except sqlite3.Error as exc:
            session.bus.emit(
                ev.Notice(level="warning", text=f"The compaction could not be recorded ({exc}).")
            )

    def _restore_reserve(self, view: View) -> int:
        message = self.restore(0)  # with the identity reminder: the largest it can be
        return self.counter.message(message) if message else 0

    def _layer(
        self, layer: str, view: View, sent_before: list[dict[str, Any]], current: int, outcome: Outcome
    ) -> View | None:
        if layer == "summary":
            return self._summary(view, sent_before, current, outcome)
        if layer == "snip":
            plan = L.snip_plan(
                view.messages,
                self.policy.snip_max_messages,
                self.policy.snip_keep_head,
                self.policy.snip_keep_tail,
            )
            if plan is None:
                return None
            head, tail = plan
            after: View | None = View(view.messages[:head] + view.messages[tail:], view.origin[:head] + view.origin[tail:])
        elif layer == "micro":
            replaced = L.micro(view.messages, self.policy.keep_tool_results)
            after = View(replaced, list(view.origin)) if replaced else None
        else:
            after = self._aggressive(view)
        if after is None:
            return None
        self._started(layer, view, current)
        self._finished(layer, view, after, current, outcome)
        return after

    def _aggressive(self, view: View) -> View | None:
        messages = L.aggressive(view.messages, self.policy.aggressive_keep) or list(view.messages)
        # Still too big with two results: cut the kept results down, halving until it fits.
        longest = max((len(L.text_of(m)) for m in messages if m.get("role") == "tool"), default=0)
        size = longest // 2
        while self.tokens(messages) + self.reserve > self.limit and size >= MIN_RESULT_CHARS:
            messages = L.truncate_results(messages, size) or messages
            size //= 2
        if messages == view.messages:
            return None
        return View(messages, list(view.origin))

    def _summary(
        self, view: View, sent_before: list[dict[str, Any]], current: int, outcome: Outcome
    ) -> View | None:
        cut = L.summary_cut(view.messages, self.policy.summary_keep_messages)
        if cut is None:
            return None
        # The kept tail gets at most a third of the room the system prompt and tools leave.
        empty = self.tokens([])
        budget = max(0, self.limit - empty) // 3
        cut = L.tighten_cut(view.messages, cut, lambda tail: self.tokens(tail) - empty <= budget)
        self._started("summary", view, current)
        history = fit_history([sent_before, view.messages], self.tokens, self.window, self.instructions,
                              self.policy.summary_prompt)
        from astro_cli.agent.provider import ProviderError

        try:
            summary = request_summary(
                self.session.llm,
                self.system,
                self.tools,
                history,
                self.instructions,
                cancel=self.session.cancel,
                base=self.policy.summary_prompt,
            )
        except (ProviderError, SummaryFailed) as exc:
            outcome.error = f"the summary request failed ({exc})"
            self.session.bus.emit(
                ev.Notice(
                    level="warning",
                    text=f"Compaction: {outcome.error}; older tool results are shortened instead.",
                )
            )
            self._emit_compacted("summary", view, view, current, current)
            return None
        self._account(summary.usage)
        after = View(L.apply_summary(view.messages, cut, summary.text), [None, *view.origin[cut:]])
        keep_from = next((i for i in view.origin[cut:] if i is not None), len(self.session.messages))
        outcome.summary = summary.text
        self._finished("summary", view, after, current, outcome, summary=summary.text, keep_from=keep_from)
        return after

    # --- events, records, usage ----------------------------------------------------------------
    def _started(self, layer: str, view: View, current: int) -> None:
        self.session.bus.emit(
            CompactionStarted(
                layer=layer, messages_before=len(view.messages), tokens_before=current, trigger=self.trigger
            )
        )

    def _emit_compacted(
        self, layer: str, before: View, after: View, tokens_before: int, tokens_after: int
    ) -> None:
        self.session.bus.emit(
            Compacted(
                layer=layer,
                messages_before=len(before.messages),
                messages_after=len(after.messages),
                tokens_before=tokens_before,
                tokens_after=tokens_after,
                trigger=self.trigger,
            )
        )

    def _finished(
        self,
        layer: str,
        before: View,
        after: View,
        current: int,
        outcome: Outcome,
        summary: str | None = None,
        keep_from: int | None = None,
    ) -> None:
        tokens_after = self.tokens(after.messages)
        self._emit_compacted(layer, before, after, current, tokens_after)
        outcome.layers.append(layer)
        session = self.session
        turn = self.state.turn if self.state is not None else session.turn_number
        self.records.append(
            CompactionRecord(
                session_id=session.session_id,
                turn=turn,
                layer=layer,
                trigger=self.trigger,
                messages_before=len(before.messages),
                messages_after=len(after.messages),
                tokens_before=current,
                tokens_after=tokens_after,
                after_seq=0,
                keep_from=keep_from,
                summary=summary,
                instructions=self.instructions if layer == "summary" else None,
            )
        )

    def _account(self, usage: Usage) -> None:
        """The summary's tokens are the session's cost too: stored with purpose 'summary'."""
        if not usage:
            return
        self.session.record_usage(self.state, usage, purpose="summary")
