"""One model request of a step: what is sent (system prompt, history as extensions shape it, the
trailing environment message), and what comes back (retry notes, usage)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from astro_cli.agent import events as ev
from astro_cli.agent.call_schema import offers_answer
from astro_cli.agent.first_step import REQUIRED, answer_step_tools, first_call_tools, first_step_choice
from astro_cli.agent.named_files import Named, what_is_named
from astro_cli.agent.profiles import SMALL
from astro_cli.agent.request_parts import answer_note, part_step_tools
from astro_cli.prompt.environment import environment_message

if TYPE_CHECKING:
    from astro_cli.agent.extensions import SessionView
    from astro_cli.agent.model import LLMReply
    from astro_cli.agent.turn_state import TurnState
    from astro_cli.security.secrets import Redactor


def request(session: SessionView, state: TurnState, redactor: Redactor, workspace: Path) -> LLMReply:
    """Send this step's request and account for its tokens; the reply as the model gave it. `workspace`:
    where the files a question names are looked up (agent/named_files.py)."""
    bus, llm = session.bus, session.llm
    constrained = llm.config.text_tool_calls or session.profile == SMALL
    assembled = session.assemble(question=state.prompt, turn=state)
    state.assembled = assembled  # extensions that rewrite what is sent measure the same prompt
    # A request of two parts: the next part's tools until each part had its call; at the answer, the
    # parts named (agent/request_parts.py).
    parts = (part_step_tools(state.prompt, state.step, state.tool_log, assembled.tools) if constrained
             and state.step >= 2 and not state.force_final and llm.config.server_kind == "llama.cpp" else None)
    note = answer_note(state.prompt) if parts is not None and offers_answer(parts) else None
    if note is not None and not any(message.get("content") == note for message in session.messages):
        state.inject(note)
    history = list(session.messages)
    for ext in session.each_extension():
        history = ext.transform_messages(state, history)
    environment = environment_message(assembled.context)  # None: runtime context off for this scope
    sent = [{"role": "system", "content": assembled.system}, *history, *([environment] if environment else [])]
    state.sent_texts = [assembled.system, environment["content"] if environment else "",
                        json.dumps(assembled.tools, ensure_ascii=False)]
    first = constrained and state.step == 1 and not state.force_final
    # The step after: only where the server enforces the schema (llama.cpp), since its answer branch is no tool.
    second = (constrained and state.step == 2 and not state.force_final and llm.config.server_kind == "llama.cpp"
              and len(state.tool_log) == 1)
    found = what_is_named(state.prompt, workspace) if first or second else Named([], False)
    named = found.files
    after = parts or (answer_step_tools(state.prompt, state.step, state.tool_log, named, assembled.tools, {
        tool.name for tool in session.visible_tools() if not tool.read_only}) if second else None)
    bus.emit(ev.Thinking(step=state.step))

    def on_retry(attempt: int, total: int, delay: float, error: str, rate_limited: bool) -> None:
        error = redactor.redact(error)
        state.retry_notes.append(f"attempt {attempt} failed: {error}")
        bus.emit(ev.Retry(attempt=attempt, max_attempts=total, delay=delay, error=error, rate_limited=rate_limited))

    reply = llm.complete(
        sent,
        tools=assembled.tools,
        on_text=lambda text: bus.emit(ev.TextDelta(text=text)),
        on_retry=on_retry,
        cancel=session.cancel,
        cache_index=len(sent) - (2 if environment else 1),  # the last stored message
        tool_choice="none" if state.force_final else REQUIRED if after else first_step_choice(
            state.prompt, state.step, constrained, named=bool(named), place=found.place),
        on_progress=lambda total, cached, processed: bus.emit(
            ev.PromptProgress(total=total, cached=cached, processed=processed)),
        call_tools=after or (first_call_tools(state.prompt, assembled.tools, named, found.place) if first else None),
    )
    if reply.usage:
        session.record_usage(state, reply.usage)
        state.last_context_tokens = reply.usage.context_tokens
    return reply
