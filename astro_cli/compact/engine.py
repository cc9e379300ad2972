"""The compaction engine: a loop extension that decides what is sent, and the circuit breaker.

The stored history (SQLite, `session.messages`) always stays complete. The engine keeps its own
compacted view of it across steps: each request sends the view plus the messages stored since,
so the prefix the provider cached stays byte-identical until the next compaction. A summary
compaction is recorded with the number of stored messages it covers, so a resumed session sends
the same view instead of paying for a new summary.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astro_cli.agent import events as ev
from astro_cli.agent.extensions import LoopExtension
from astro_cli.agent.tokens import CHARS_PER_TOKEN, TokenCounter
from astro_cli.compact.layers import find_safe_cut_point, summary_cut, summary_message
from astro_cli.compact.records import CompactionStore
from astro_cli.compact.restore import restore_text
from astro_cli.compact.rounds import Outcome, Round, View
from astro_cli.compact.tokens import ProviderMark
from astro_cli.compact.window import UNKNOWN_MODEL, Policy, Window, resolve_window
from astro_cli.skills.state import SkillsState
from astro_cli.tools.context import Compactor

if TYPE_CHECKING:
    from astro_cli.agent.extensions import SessionView, TurnView
    from astro_cli.app import AppContext

log = logging.getLogger(__name__)

BREAKER_LIMIT = 3
BREAKER_OPEN = (
    "Automatic compaction is off for the rest of this session: {limit} compactions in a row did not bring "
    "the context under the threshold. /compact still works; /clear starts a new session."
)
OVER_WINDOW = (
    "After compaction the request is still about {tokens:,} tokens, above the model's window of "
    "{window:,}; the provider may refuse it. Start a new session, or raise config 'context_window' "
    "if the model allows more."
)


class CircuitBreaker:
    """Opens after `limit` consecutive compactions that achieved nothing; stays open for the session."""

    def __init__(self, limit: int = BREAKER_LIMIT) -> None:
        self.limit = limit
        self.failures = 0
        self.open = False

    def record(self, useful: bool) -> bool:
        """Count one automatic compaction; True when this one opened the breaker."""
        if useful:
            self.failures = 0
            return False
        self.failures += 1
        if self.failures >= self.limit and not self.open:
            self.open = True
            return True
        return False


class CompactionEngine(LoopExtension):
    def __init__(self, app: AppContext) -> None:
        self.app = app
        self.session: SessionView | None = None
        self.policy = Policy()
        self.breaker = CircuitBreaker()
        self.view = View([], [])
        self.seen = 0  # stored messages already folded into the view
        self.compacted = False
        self.restore_message: dict[str, Any] | None = None
        self.pending: tuple[str, str | None] | None = None  # (trigger, instructions) asked for by a tool
        self.mark: ProviderMark | None = None
        self._sent: tuple[Any, int, int] | None = None  # (turn state, its usage total, history length)
        self._window: Window | None = None
        self._model = ""
        self._counter: TokenCounter | None = None
        self._notices: set[str] = set()

    # --- lifecycle -----------------------------------------------------------------------------
    def on_session_start(self, session: SessionView) -> None:
        self._attach(session)
        self._resume(session)

    def _attach(self, session: SessionView) -> None:
        if self.session is session:
            return
        self.session = session
        session.states.put(self)  # found by type: /compact, find_engine
        session.states.put(self, Compactor)  # the compress_context tool's ctx.request_compaction
        self.policy = Policy.from_settings(self.app.settings)

    def _resume(self, session: SessionView) -> None:
        """Send the recorded summary again instead of the history it covered."""
        try:
            row = CompactionStore(self.app.db).latest_summary(session.session_id)
        except sqlite3.Error:
            log.debug("the summary of session %s could not be read", session.session_id, exc_info=True)
            return
        full = session.messages
        if row is None or not row["keep_from"] or row["keep_from"] > len(full):
            return
        keep = find_safe_cut_point(full, row["keep_from"])
        self.view = View([summary_message(row["summary"]), *full[keep:]], [None, *range(keep, len(full))])
        self.seen = len(full)
        self.compacted = True

    def on_turn_end(self, state: TurnView) -> None:
        self._note_usage(state)

    # --- what is sent --------------------------------------------------------------------------
    def transform_messages(self, state: TurnView, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        session = state.session
        self._attach(session)
        self._note_usage(state)
        self.sync(messages)
        trigger, instructions = self.pending or (None, None)
        self.pending = None
        if trigger is not None or (self.policy.enabled and not self.breaker.open):
            assembled = state.assembled or session.assemble(question=state.prompt)
            tokens, counted = self._estimate(session, assembled.system, assembled.tools, messages)
            limit = self._limit(session, tokens)
            if trigger is None and tokens > limit:
                trigger = "auto"
            if trigger is not None:
                outcome = self._round(session, state, trigger, instructions, assembled, tokens, counted)
                # Useful means the request now fits under the threshold; a round that only shrank the
                # message count but left the request too big would run (and pay a summary) every step.
                if trigger == "auto" and self.breaker.record(
                    outcome.changed and outcome.tokens_after <= limit
                ):
                    self._notice(BREAKER_OPEN.format(limit=self.breaker.limit), force=True)
        usage = state.usage.context_tokens
        self._sent = (state, usage, len(messages))
        return list(self.view.messages)

    def compact_now(self, session: SessionView, instructions: str | None = None) -> Outcome:
        """/compact: a summary now, between turns, whatever the context size and the breaker."""
        from astro_cli.agent.model import Cancelled

        self._attach(session)
        self.sync(session.messages)
        assembled = session.assemble()
        tokens, counted = self._estimate(session, assembled.system, assembled.tools, session.messages)
        self._limit(session, tokens)
        try:
            return self._round(session, None, "manual", instructions, assembled, tokens, counted)
        except (Cancelled, KeyboardInterrupt):
            return Outcome("manual", error="cancelled")

    def request(self, instructions: str | None = None) -> None:
        """compress_context: compact before the next request (the call's result must exist first)."""
        self.pending = ("tool", instructions)

    def request_compaction(self, focus: str | None) -> str:
        """The compress_context tool's request; the sentence the model reads back."""
        if self.session is None:
            return "Nothing to compact yet: the conversation is still short. Go on with the task."
        self.sync(self.session.messages)
        # A summary must replace more than the exchange in flight to be worth a model call.
        keep = self.policy.summary_keep_messages
        if len(self.view.messages) <= keep + 2 or summary_cut(self.view.messages, keep) is None:
            return "Nothing to compact yet: the conversation is still short. Go on with the task."
        self.request(focus)
        return (
            "The conversation will be compacted before your next request: a summary will replace the earlier "
            "messages. Continue with the task."
        )

    # --- the view ------------------------------------------------------------------------------
    def sync(self, full: list[dict[str, Any]]) -> None:
        count = len(full)
        if not self.compacted or count < self.seen:
            self.view = View(list(full), list(range(count)))
            self.compacted = False
        else:
            self.view.messages.extend(full[self.seen :])
            self.view.origin.extend(range(self.seen, count))
        self.seen = count

    def _round(
        self,
        session: SessionView,
        state: TurnView | None,
        trigger: str,
        instructions: str | None,
        assembled: Any,
        tokens: int,
        counted: int,
    ) -> Outcome:
        assert self._window is not None and self._counter is not None
        sent_before = list(self.view.messages)
        base = self.view.copy()
        if self.restore_message is not None:
            kept = [i for i, m in enumerate(base.messages) if m is not self.restore_message]
            base = View([base.messages[i] for i in kept], [base.origin[i] for i in kept])
        rnd = Round(
            session=session,
            state=state,
            trigger=trigger,
            instructions=instructions,
            policy=self.policy,
            counter=self._counter,
            system=assembled.system,
            tools=assembled.tools,
            ratio=max(1.0, tokens / max(1, counted)),
            limit=self._limit(session, tokens),
            window=self._window.tokens,
            restore=self._restore_builder(session),
            store=lambda: CompactionStore(self.app.db),
        )
        view, outcome = rnd.run(base, sent_before, tokens)
        if outcome.changed:
            self.view = view
            self.restore_message = rnd.restored
            self.compacted = True
            self.mark = None  # the provider's last figure described the old view
            if outcome.tokens_after > self._window.tokens:
                self._notice(
                    OVER_WINDOW.format(tokens=outcome.tokens_after, window=self._window.tokens), force=True
                )
        return outcome

    def _restore_builder(self, session: SessionView) -> Callable[[int], dict[str, Any] | None]:
        def build(remaining: int) -> dict[str, Any] | None:
            from astro_cli.memory.reminder import latest_block

            skills = session.state(SkillsState).loaded
            text = restore_text(
                self.app, session.session_id, skills, remaining, self.policy.skill_budget_chars,
                memory_block=latest_block(session.messages), identity=self.policy.identity_prompt,
            )
            return {"role": "user", "content": text} if text else None

        return build

    # --- tokens --------------------------------------------------------------------------------
    def _note_usage(self, state: TurnView) -> None:
        """Remember the provider's figure for the request the engine last shaped, once it is known."""
        if self._sent is None or self._sent[0] is not state or not state.last_context_tokens:
            return
        _, usage_then, length = self._sent
        if state.usage.context_tokens == usage_then:
            return
        full = state.session.messages
        if length < len(full) and full[length].get("role") == "assistant":
            length += 1  # the reply: its tokens are the request's output tokens
        self.mark = ProviderMark(state.last_context_tokens, length)
        self._sent = None

    def _estimate(
        self, session: SessionView, system: str, tools: list[dict[str, Any]], full: list[dict[str, Any]]
    ) -> tuple[int, int]:
        """(tokens the request will have, litellm's count of it)."""
        counter = self._counter_for(session)
        # Far below the threshold, a bound that needs no tokenizer settles it: loading and running
        # the tokenizer would cost most of a short run's overhead for nothing.
        bound = counter.request_bound(system, self.view.messages, tools)
        if self.mark is not None:
            bound = max(bound, self.mark.tokens + counter.byte_bound(full[self.mark.history_length :]))
        if bound <= self._threshold_tokens():
            rough = bound // CHARS_PER_TOKEN
            return rough, rough
        counted = counter.request(system, self.view.messages, tools)
        provider = self.mark.estimate(counter, full) if self.mark is not None else 0
        return max(counted, provider), counted

    def _counter_for(self, session: SessionView) -> TokenCounter:
        """The session model's counter (its owner makes a new one when /model switches): a new
        counter means a new model, whose window is resolved again."""
        counter = session.llm.current.counter()
        if counter is not self._counter:
            self._counter, self._model, self._window = counter, counter.model or "", None
        return counter

    def _resolved_window(self) -> Window:
        if self._window is None:
            self._window = resolve_window(self.app.settings, self._model)
        return self._window

    def _threshold_tokens(self) -> int:
        return int(self._resolved_window().tokens * self.policy.threshold)

    def _limit(self, session: SessionView, tokens: int) -> int:
        window = self._resolved_window()
        if window.source == "default" and tokens > window.tokens // 2:
            self._notice(UNKNOWN_MODEL.format(model=self._model, tokens=window.tokens), level="info")
        return int(window.tokens * self.policy.threshold)

    def _notice(self, text: str, level: str = "warning", force: bool = False) -> None:
        """Each notice once per session (`force`: once per occurrence, e.g. the breaker opening)."""
        if (text in self._notices and not force) or self.session is None:
            return
        self._notices.add(text)
        self.session.bus.emit(ev.Notice(level=level, text=text))


def find_engine(session: SessionView | None) -> CompactionEngine | None:
    """The session's engine (None for an agent without compaction, a teammate)."""
    return session.states.find(CompactionEngine) if session is not None else None
