"""The ReAct loop: request -> tool calls -> results -> next request, until an answer.

The loop knows nothing of the terminal. It emits events (agent/events.py) and calls extensions
(agent/extensions.py); every message is stored before the next request, so a crash loses at most
the reply in flight.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, TypeVar

from astro_cli.agent import events as ev
from astro_cli.agent.caller import Caller
from astro_cli.agent.done_by_tool import result_of_done_work
from astro_cli.agent.extensions import LoopExtension, TurnView
from astro_cli.agent.history import INTERRUPTED, missing_results, order_results, reply_record
from astro_cli.agent.history_store import HistoryStore
from astro_cli.agent.interrupt import TurnInterrupter
from astro_cli.agent.model import Cancelled, LLMReply, Model
from astro_cli.agent.permissions import PermissionPolicy
from astro_cli.agent.profiles import profile_tools, resolve_profile
from astro_cli.agent.provider import MissingCredentials, ProviderError
from astro_cli.agent.reply_checks import check_reply
from astro_cli.agent.request import request
from astro_cli.agent.tool_runner import ToolRunner
from astro_cli.agent.turn_state import TurnState
from astro_cli.by_kind import SessionStates
from astro_cli.prompt.context import ContextSource
from astro_cli.prompt.environment import session_sources
from astro_cli.prompt.registry import GLOBAL, AssembledPrompt, AssemblyAborted

if TYPE_CHECKING:
    from astro_cli.agent.parts import LoopParts
    from astro_cli.store.locks import FileLock
    from astro_cli.tools.base import Tool
    from astro_cli.usage import Usage

T = TypeVar("T")

MAX_STEPS_TEXT = (
    "You have used {steps} steps (the budget is {max_steps}). Give your final answer now from what you "
    "have gathered, without calling tools; say what is still open."
)
UNANSWERED = "unanswered"  # the stored kind of a question the provider failed on before any reply
MAX_BAD_REPLIES = 3  # unusable replies in a row (agent/reply_checks.py) before the turn pauses
EMPTY_REPLY_TEXT = "Your last reply was empty. Continue the task: call a tool or give your answer."


class AgentSession:
    """One conversation: its history (mirrored in its store), its prompt scope, tools and limits.

    It runs on the `parts` it is handed (agent/parts.py: settings, tools, prompt, redactor, history),
    never on the app. Features keep their per-session state in `states`, one typed object per class
    (`session.state(SkillsState)`); `role` and `parent_session_id` say whether a subagent or a
    teammate runs it.
    """

    def __init__(
        self,
        parts: LoopParts,
        session_id: str,
        llm: Model,
        bus: ev.EventBus,
        permissions: PermissionPolicy,
        extensions: list[LoopExtension] | None = None,
        scope: str = GLOBAL,
        agent: str = "main",
        only_tools: set[str] | None = None,
        max_steps: int | None = None,
        role: str | None = None,
        parent_session_id: str | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self.parts = parts
        self.history: HistoryStore = parts.history
        self.role = role
        self.parent_session_id = parent_session_id
        self.session_id = session_id
        self.llm = llm
        self.bus = bus
        self.permissions = permissions
        self.extensions = list(extensions or [])
        self.scope = scope
        self.agent = agent
        self.only_tools = only_tools
        self.max_steps = max_steps or parts.settings.typed["max_steps"]
        self.messages: list[dict[str, Any]] = []
        self.states = SessionStates()
        self.cancel = cancel or threading.Event()  # a delegated agent's is its caller's
        self.interrupter = TurnInterrupter(self.cancel)  # what a signal handler calls (agent/interrupt.py)
        self.lock: FileLock | None = None  # held by the main session of a process (agent/factory.py)
        self.forked_from: str | None = None
        self.turn_number = self.history.last_turn(session_id)
        self.tool_runner = ToolRunner(self, parts)
        # What delegating tools may know of this agent; its LLM follows /model, so it is made once.
        self.states.put(self.caller(), Caller)
        self.states.put(llm, Model)  # what a tool asks a model with (rag_search's re-rank)
        self._load()

    # --- history ---------------------------------------------------------------------------
    def _load(self) -> None:
        stored = [m.message for m in self.history.messages(self.session_id)]
        repairs = missing_results(stored)
        for message in repairs:
            self.history.append(self.session_id, message, kind="interrupted", turn=self.turn_number)
        self.messages = order_results(stored + repairs)

    def append(self, message: dict[str, Any], kind: str = "message", turn: int | None = None, meta: dict[str, Any] | None = None) -> int:
        """Store a message and add it to the history (known secrets never reach either); returns its
        sequence number. The one place the loop redacts what it keeps: user text, replies, tool results."""
        redactor = self.parts.redactor
        message = redactor.redact_data(message)
        meta = redactor.redact_data(meta) if meta else meta
        turn = self.turn_number if turn is None else turn
        seq = self.history.append(self.session_id, message, kind=kind, turn=turn, meta=meta)
        self.messages.append(message)
        return seq

    def state(self, kind: type[T]) -> T:
        """This session's `kind` object (a feature's own state), made on first use."""
        return self.states.get(kind)

    @property
    def delegated(self) -> bool:
        """A subagent's or teammate's session (the user did not open it)."""
        return self.role is not None

    def caller(self) -> Caller:
        """What delegating tools may know of this agent (agent/caller.py)."""
        return Caller(
            session_id=self.session_id, agent=self.agent, llm=self.llm, permissions=self.permissions,
            cancel=self.cancel, max_steps=self.max_steps,
            only_tools=frozenset(self.only_tools) if self.only_tools is not None else None, role=self.role,
        )

    def each_extension(self) -> list[LoopExtension]:
        """The extensions in install order, for typed calls of their LoopExtension methods."""
        return list(self.extensions)

    def start(self) -> None:
        for ext in self.each_extension():
            ext.on_session_start(self)

    def stop(self, reason: str) -> None:
        for ext in self.each_extension():
            ext.on_session_stop(self, reason)
        unfinished = self.tool_runner.still_running()
        if unfinished:
            self.bus.emit(ev.Notice(level="warning", text=(
                f"still running when the session stopped, so its effect may or may not have happened: "
                f"{', '.join(unfinished)}")))
        if not self.messages:
            # Opened and left without a question: leave no empty session behind in `sessions list`.
            self.history.delete_if_empty(self.session_id)
        if self.lock is not None:
            self.lock.release()

    # --- tools and prompt ------------------------------------------------------------------
    def visible_tools(self) -> list[Tool]:
        settings = self.parts.settings
        tools = self.parts.tools.ordered(settings.typed["tool_order"], only=self.only_tools)
        return profile_tools(tools, self.profile, settings.typed["small_profile.tools"])

    @property
    def profile(self) -> str:
        """`default` or `small` (agent/profiles.py), for this session's model and server."""
        return resolve_profile(self.parts.settings.typed["profile"], self.model, self.llm.config.context_window)

    @property
    def model(self) -> str:
        """The model this session sends requests to ({{model}}, the environment message and /config
        read it here); its owner is `self.llm.current` (agent/current_model.py)."""
        return self.llm.current.name

    def switch_model(self, name: str, origin: str) -> None:
        """Send the next requests to `name` (/model): the owner changes, the sessions row records it
        (so resuming goes on with it)."""
        self.llm.current.switch(name, origin)
        self.history.touch(self.session_id, model=name)

    def assemble(self, question: str = "", turn: TurnView | None = None) -> AssembledPrompt:
        """The prompt for this session; with `turn` (a model request), the runtime context as well."""
        tools = self.visible_tools()
        return self.parts.prompt.assemble(tools, scope=self.scope, question=question, states=self.states,
                                          variables={"model": self.model}, turn=turn, profile=self.profile,
                                          context=self.context_sources(turn) if turn is not None else None,
                                          signal=self.cancel if turn is not None else None)

    def context_sources(self, state: TurnView) -> list[ContextSource]:
        """This session's own runtime-context sources (evaluated only when runtime context is wanted)."""
        notes = state.retry_notes if isinstance(state, TurnState) else []
        return session_sources(str(self.parts.workspace), self.model, state, self.each_extension(), notes)

    # --- the turn --------------------------------------------------------------------------
    def run_turn(self, text: str, kind: str = "message", title: str | None = None) -> TurnState:
        """Answer one user message; always returns (errors end up in state.stop_reason).

        `title` names the session in `sessions list` when `text` is not what the person typed (a
        skill's body loaded with /NAME)."""
        self.interrupter.new_turn()
        self.turn_number += 1
        # Stored first: `append` redacts, once, so a key pasted into a question is neither stored nor sent.
        question_seq = self.append({"role": "user", "content": text}, kind=kind)
        stored_before = len(self.messages)
        text = str(self.messages[-1]["content"])
        state = TurnState(session=self, turn=self.turn_number, prompt=text, max_steps=self.max_steps)
        started, api_before = time.monotonic(), self.llm.api_seconds
        title = title or (text.strip().splitlines()[0] if text.strip() else None)
        self.history.touch(self.session_id, title=title)
        self.bus.emit(ev.TurnStarted(session_id=self.session_id, turn=state.turn, prompt=text))
        try:
            for ext in self.each_extension():
                ext.on_turn_start(state)
            with self.interrupter.steps():
                self._react(state)
        except (KeyboardInterrupt, Cancelled, AssemblyAborted):
            self.cancel.set()  # tools still running in threads (a command, a download) stop too
            state.stop_reason = "interrupted"
            self._close_open_calls(state)
            self._mark_interrupted()
        except ProviderError as exc:
            state.stop_reason = "config_error" if isinstance(exc, MissingCredentials) else "provider_error"
            state.error = self.parts.redactor.redact(str(exc))
            if not any(m.get("role") == "assistant" for m in self.messages[stored_before:]):
                # Nothing answered it: kept, but marked, so `sessions list` and --continue pass over
                # sessions that hold only failed attempts.
                self.history.set_kind(self.session_id, question_seq, UNANSWERED)
        finally:
            state.duration = time.monotonic() - started
            state.api_duration = self.llm.api_seconds - api_before
            self.permissions.end_turn()
            for ext in self.each_extension():
                ext.on_turn_end(state)
            self.bus.emit(
                ev.TurnFinished(
                    session_id=self.session_id,
                    answer=state.answer,
                    stop_reason=state.stop_reason,
                    num_steps=state.step,
                    error=state.error,
                )
            )
        return state

    def _react(self, state: TurnState) -> None:
        empty_replies = bad_text_calls = 0
        last_bad: str | None = None
        while True:
            if state.step >= state.max_steps and not state.force_final:
                state.force_final = True
                if self.parts.settings.typed["nudges.max_steps"]:
                    state.inject(MAX_STEPS_TEXT.format(steps=state.step, max_steps=state.max_steps), kind="nudge")
            state.step += 1
            self.bus.emit(ev.StepStarted(step=state.step, max_steps=state.max_steps))
            for ext in self.each_extension():
                ext.before_request(state)
            self.tool_runner.report_late(state)
            reply = request(self, state, self.parts.redactor, self.parts.workspace)
            if reply.interrupted:
                self.interrupter.settle()  # a later signal must not break the storing of the partial answer
                self._store_reply(state, reply, interrupted=True)
                state.answer = reply.text
                raise Cancelled()
            assembled = state.assembled
            bad = check_reply(reply, assembled.tools if assembled else [], self.messages, final=state.force_final,
                              sent=state.sent_texts) if (
                self.llm.config.text_tool_calls) else None
            self._store_reply(state, reply)
            if bad is not None and not state.force_final:
                bad_text_calls += 1
                # Each kind of unusable reply gets its corrective message once; the same kind twice in a
                # row, or a third unusable reply, pauses (a correction can lead to a new mistake, which
                # the model has not been told of yet).
                if bad_text_calls < MAX_BAD_REPLIES and bad.did != last_bad:
                    last_bad = bad.did
                    state.inject(bad.message, kind="nudge")
                    continue
                again = "twice in a row" if bad.did == last_bad else f"after {bad_text_calls - 1} other unusable replies"
                done = result_of_done_work(self.messages, state.tool_log, self._read_only)
                if done is not None:  # the work is done: astro says what was done (agent/done_by_tool.py)
                    state.answer, state.stop_reason = done, "answered"
                    self.bus.emit(ev.Notice(level="info", text=(
                        f"The model {bad.did} {again} after {state.tool_log[-1]['name']} had done the "
                        "work; the answer says what the turn did.")))
                    return
                state.answer, state.stop_reason = bad.answer, "paused"
                state.error = (f"The model {bad.did} {again} ({bad.problem}); the turn is "
                               "paused. Ask again or rephrase, or try a model with native tool calling.")
                self.bus.emit(ev.Notice(level="warning", text=state.error))
                return
            bad_text_calls, last_bad = 0, None
            if state.force_final:
                state.answer = reply.text
                state.stop_reason = self._answered(reply) if reply.text.strip() else "max_steps"
                if state.stop_reason == "max_steps":
                    state.error = (
                        f"The step budget ({state.max_steps}) ran out without an answer; raise it with "
                        "--max-steps or config 'max_steps'."
                    )
                if reply.tool_calls:
                    self._close_open_calls(state, note="[not run: the step budget was reached]")
                return
            if not reply.tool_calls:
                if reply.text.strip():
                    if any([ext.review_answer(state, reply.text) for ext in self.each_extension()]):
                        continue  # an extension asked for one more step (the citation check's nudge)
                    state.answer = reply.text
                    state.stop_reason = self._answered(reply)
                    return
                empty_replies += 1
                if empty_replies >= 2:
                    state.stop_reason = "paused"
                    state.error = "The model gave two empty replies in a row; the turn is paused. Ask again or rephrase."
                    self.bus.emit(ev.Notice(level="warning", text=state.error))
                    return
                state.inject(EMPTY_REPLY_TEXT, kind="nudge")
                continue
            empty_replies = 0
            self.tool_runner.run_all(state, reply.tool_calls)
            for ext in self.each_extension():
                ext.on_step_complete(state)

    def _read_only(self, name: str) -> bool:
        tool = self.parts.tools.get(name)
        return tool is None or tool.read_only

    def _answered(self, reply: LLMReply) -> str:
        """'answered', or 'max_tokens' when the answer is still cut at the token limit after continuations."""
        if not reply.truncated:
            return "answered"
        after = (f" (after {reply.continuations} continuation{'' if reply.continuations == 1 else 's'})"
                 if reply.continuations else "")
        self.bus.emit(ev.Notice(level="warning", text=(
            f"the answer stops at the model's output token limit{after}; ask for the rest, or raise max_tokens "
            "or max_continuations.")))
        return "max_tokens"

    def record_usage(self, state: TurnView | None, usage: Usage, purpose: str = "step") -> None:
        """One request's tokens and cost: stored, added to the turn, announced to the renderers."""
        turn = state.turn if state is not None else self.turn_number
        self.history.record_usage(self.session_id, turn, self.model, usage, purpose=purpose)
        if state is not None:
            state.add_usage(usage)
        self.bus.emit(ev.UsageReport.from_usage(usage))

    def _store_reply(self, state: TurnState, reply: LLMReply, interrupted: bool = False) -> None:
        message, meta = reply_record(reply, state.step, interrupted)
        self.append(message, kind="interrupted" if interrupted else "message", meta=meta)
        self.bus.emit(ev.AssistantMessage(text=reply.text, tool_calls=message.get("tool_calls") or []))

    def _mark_interrupted(self) -> None:
        """End an interrupted turn with an assistant message saying so, whenever it was cut (before the
        first token, during a tool, at a permission question): the model learns of it, and the next
        question never follows a question without a reply."""
        last = self.messages[-1] if self.messages else {}
        if last.get("role") == "assistant" and str(last.get("content") or "").endswith(INTERRUPTED):
            return  # the partial reply is already stored, marked
        self.append({"role": "assistant", "content": INTERRUPTED}, kind="interrupted")

    def _close_open_calls(self, state: TurnState, note: str | None = None) -> None:
        """Give every unanswered tool call a result so the stored history stays valid."""
        for message in missing_results(self.messages):
            if note:
                message["content"] = note
            self.append(message, kind="interrupted")
