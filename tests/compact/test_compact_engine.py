"""Compaction through the real loop, the real litellm and the fake provider, with small windows.

Window sizes are computed from the real baseline (system prompt + tool schemas, measured with the
same counter) so the tests keep working as features add tools; each test states which layers it
expects and why the sizes make them necessary.
"""

from __future__ import annotations

import math

from astro_cli.compact.engine import find_engine
from astro_cli.compact.records import CompactionStore
from astro_cli.compact.restore import IDENTITY_REMINDER, RESTORE_HEADER
from astro_cli.tools.context import ToolContext
from tests.compact_support import (
    SUMMARY_TEXT,
    ScriptedModel,
    baseline_tokens,
    compaction_events,
    dumps,
    is_summary_request,
    measured,
    open_test_session,
    read,
    text,
    write_files,
)


def result_tokens(app, session, path: str) -> int:
    """Tokens of the tool message read_file will produce for `path` (the real tool, the real counter)."""
    from astro_cli.agent.tokens import TokenCounter

    output = app.tools.get("read_file").run(
        ToolContext(app=app, session_id=session.session_id), {"path": path}
    )
    message = {"role": "tool", "tool_call_id": "call_0001", "name": "read_file", "content": output.content}
    return TokenCounter("openai/fake-model", load=True).message(message)


def probe(monkeypatch, workspace, fake, path: str) -> tuple[int, int]:
    app, session, _ = open_test_session(monkeypatch, workspace, fake)
    try:
        return baseline_tokens(session), result_tokens(app, session, path)
    finally:
        app.close()


def window_for(limit: int, threshold: float = 0.8) -> int:
    return math.ceil((limit + 1) / threshold)


def test_the_four_layers_fire_in_order_each_only_while_still_over(monkeypatch, workspace, fake) -> None:
    # 8 small reads, then one step reading 3 big files at once: past 20 messages (snip applies),
    # more than 5 results (micro applies), but the last exchange alone (3 big results, which the
    # summary must keep whole: the model has not seen them yet) exceeds the limit, so snip, micro
    # and the summary do not suffice; keeping 2 results whole (layer 3) does.
    write_files(workspace, {**{f"s{i}.txt": 15 for i in range(8)}, **{f"b{i}.txt": 900 for i in range(3)}})
    base, big = probe(monkeypatch, workspace, fake, "b0.txt")
    limit = base + 2 * big + big // 2
    parallel = {"tool_calls": [read(f"b{i}.txt")["tool_calls"][0] for i in range(3)]}
    model = ScriptedModel([read(f"s{i}.txt") for i in range(8)] + [parallel]).attach(fake)
    app, session, events = open_test_session(
        monkeypatch,
        workspace,
        fake,
        context_window=window_for(limit),
        compaction_snip_max_messages=20,
        compaction_snip_keep_tail=15,
        max_steps=30,
    )
    state = session.run_turn("Read the files and tell me what they say.")
    assert state.stop_reason == "answered", state.error
    assert compaction_events(events) == [
        ("compaction_started", "snip"),
        ("compacted", "snip"),
        ("compaction_started", "micro"),
        ("compacted", "micro"),
        ("compaction_started", "summary"),
        ("compacted", "summary"),
        ("compaction_started", "aggressive"),
        ("compacted", "aggressive"),
    ]
    done = [e for e in events if e.type == "compacted"]
    tokens = [done[0].tokens_before] + [e.tokens_after for e in done]
    assert tokens == sorted(tokens, reverse=True) and tokens[-1] <= limit < tokens[-2]
    assert done[0].messages_after < done[0].messages_before  # snip dropped messages
    rows = CompactionStore(app.db).list(session.session_id)
    assert [r["layer"] for r in rows] == ["snip", "micro", "summary", "aggressive"]
    assert all(r["trigger"] == "auto" for r in rows) and rows[2]["summary"] == SUMMARY_TEXT

    requests = [b for b in model.seen if not is_summary_request(b)]
    summary_request = next(b for b in model.seen if is_summary_request(b))
    before = requests[model.seen.index(summary_request) - 1]
    # the summarizing request reuses the turn's system prompt and tools, instruction last, no tool use
    assert summary_request["messages"][0] == before["messages"][0]
    assert dumps(summary_request["tools"]) == dumps(before["tools"])
    assert summary_request.get("tool_choice") == "none"
    after = model.seen[model.seen.index(summary_request) + 1]
    assert text(after["messages"][1]).startswith("[Conversation summary]\n## Request")
    assert "[Previous: used read_file]" in dumps(after["messages"])
    assert measured(after) <= limit
    # the stored history is complete: every result is still in SQLite
    stored = [m.message for m in app.sessions.messages(session.session_id) if m.role == "tool"]
    assert len(stored) == 11 and not any("[Previous: used" in m["content"] for m in stored)
    # the kept exchange: one assistant message, three results, two of them whole
    tail = after["messages"][-5:-1]
    assert [m["role"] for m in tail] == ["assistant", "tool", "tool", "tool"]
    assert [m["content"] == "[Previous: used read_file]" for m in tail[1:]] == [True, False, False]
    app.close()


def test_micro_alone_when_it_is_enough_and_no_summary_is_paid(monkeypatch, workspace, fake) -> None:
    write_files(workspace, {f"m{i}.txt": 300 for i in range(7)})
    base, medium = probe(monkeypatch, workspace, fake, "m0.txt")
    limit = base + 6 * medium + medium // 2
    model = ScriptedModel([read(f"m{i}.txt") for i in range(7)]).attach(fake)
    app, session, events = open_test_session(monkeypatch, workspace, fake, context_window=window_for(limit))
    state = session.run_turn("Read the seven files.")
    assert state.stop_reason == "answered"
    assert compaction_events(events) == [("compaction_started", "micro"), ("compacted", "micro")]
    assert model.summaries == 0
    last = model.seen[-1]["messages"]
    placeholders = [
        m for m in last if m.get("role") == "tool" and m["content"] == "[Previous: used read_file]"
    ]
    assert len(placeholders) == 2 and measured(model.seen[-1]) <= limit
    app.close()


def test_summary_request_is_the_previous_request_plus_the_instruction(monkeypatch, workspace, fake) -> None:
    # threshold 0.5 leaves room in the window, so the summarizing request can send the history
    # exactly as the previous request did: the provider's cache serves all of it.
    write_files(workspace, {f"b{i}.txt": 600 for i in range(4)})
    base, big = probe(monkeypatch, workspace, fake, "b0.txt")
    limit = base + 3 * big + big // 2
    model = ScriptedModel([read(f"b{i}.txt") for i in range(4)]).attach(fake)
    app, session, events = open_test_session(
        monkeypatch,
        workspace,
        fake,
        context_window=window_for(limit, 0.5),
        compaction_threshold=0.5,
    )
    assert session.run_turn("Read four files.").stop_reason == "answered"
    index = next(i for i, b in enumerate(model.seen) if is_summary_request(b))
    summary, before = model.seen[index], model.seen[index - 1]
    prefix = before["messages"][:-1]  # without the environment message, which is never cached
    assert summary["messages"][: len(prefix)] == prefix
    assert [m["role"] for m in summary["messages"][len(prefix) :]] == ["assistant", "tool", "user"]
    assert dumps(summary["tools"]) == dumps(before["tools"])
    assert ("compacted", "summary") in compaction_events(events)
    # the summary's usage is stored apart from the steps
    purposes = [
        r["purpose"]
        for r in app.db.query("SELECT purpose FROM usage WHERE session_id = ?", (session.session_id,))
    ]
    assert purposes.count("summary") == 1 and purposes.count("step") == len(model.seen) - 1
    app.close()


def test_loaded_skills_tasks_and_identity_survive_a_summary(monkeypatch, workspace, fake) -> None:
    write_files(workspace, {f"b{i}.txt": 600 for i in range(4)})
    base, big = probe(monkeypatch, workspace, fake, "b0.txt")
    limit = base + 3 * big + big // 2 + 600  # room for the skill and the plan, which stay
    todos = {
        "todos": [
            {"id": "t1", "content": "Collect SN 2011fe distances", "status": "in_progress"},
            {"id": "t2", "content": "Compare Cepheid and TRGB scales", "status": "pending"},
        ]
    }
    plan = [
        {"tool_calls": [{"name": "load_skill", "arguments": {"name": "literature-review"}}]},
        {"tool_calls": [{"name": "todo_write", "arguments": todos}]},
    ] + [read(f"b{i}.txt") for i in range(4)]
    model = ScriptedModel(plan).attach(fake)
    app, session, events = open_test_session(
        monkeypatch,
        workspace,
        fake,
        context_window=window_for(limit),
        compaction_summary_keep_messages=2,
    )
    assert session.run_turn("Review the distance literature for SN 2011fe.").stop_reason == "answered"
    index = next(i for i, b in enumerate(model.seen) if is_summary_request(b))
    after = model.seen[index + 1]["messages"]
    sent = dumps(after)
    assert "<command-name>literature-review</command-name>" not in sent  # the load_skill result is gone...
    restore = next(m for m in after if text(m).startswith(RESTORE_HEADER))
    body = text(restore)
    assert "### Skill: literature-review" in body and "A review is only as good as its search." in body
    assert "[Current task state]" in body and "Collect SN 2011fe distances" in body
    assert IDENTITY_REMINDER in body  # [summary] + 2 kept messages: four or fewer remain
    assert len(body) < 2000 + 1500  # the skill is cut to its budget
    assert ("compacted", "summary") in compaction_events(events)
    app.close()


def test_breaker_opens_after_three_useless_compactions_and_compact_still_works(
    monkeypatch, workspace, fake
) -> None:
    # The provider reports a context near the window on every request while the history is tiny:
    # no layer can bring it under the threshold, so each automatic compaction is useless.
    write_files(workspace, {f"s{i}.txt": 10 for i in range(8)})
    window = 60000
    model = ScriptedModel([read(f"s{i}.txt") for i in range(8)], usage={"input_tokens": 59000}).attach(fake)
    app, session, events = open_test_session(
        monkeypatch, workspace, fake, context_window=window, max_steps=20
    )
    state = session.run_turn("Read eight small files.")
    assert state.stop_reason == "answered"
    assert model.summaries == 3
    notices = [e.text for e in events if e.type == "notice" and "Automatic compaction is off" in e.text]
    assert len(notices) == 1
    engine = find_engine(session)
    assert engine.breaker.open
    # requests after the breaker opened were sent without further compaction
    assert not any(is_summary_request(b) for b in model.seen[-4:])
    outcome = engine.compact_now(session, "keep the file names")
    assert outcome.changed and outcome.layers[0] == "summary" and model.summaries == 4
    assert "keep the file names" in text(model.seen[-1]["messages"][-1])
    rows = CompactionStore(app.db).list(session.session_id)
    manual = [r for r in rows if r["trigger"] == "manual"]
    assert manual[0]["layer"] == "summary" and manual[0]["instructions"] == "keep the file names"
    app.close()


def test_compress_context_tool_compacts_before_the_next_request(monkeypatch, workspace, fake) -> None:
    write_files(workspace, {f"s{i}.txt": 50 for i in range(6)})
    focus = "the Cepheid distance 2011Natur.480..344N"
    plan = [read(f"s{i}.txt") for i in range(6)]
    plan.append({"tool_calls": [{"name": "compress_context", "arguments": {"focus": focus}}]})
    model = ScriptedModel(plan).attach(fake)
    app, session, events = open_test_session(monkeypatch, workspace, fake, context_window=200000)
    assert session.run_turn("Read, then compress.").stop_reason == "answered"
    index = next(i for i, b in enumerate(model.seen) if is_summary_request(b))
    assert focus in text(model.seen[index]["messages"][-1])
    after = model.seen[index + 1]["messages"]
    assert text(after[1]).startswith("[Conversation summary]")
    names = [m.get("name") for m in after if m.get("role") == "tool"]
    assert names[-1] == "compress_context"  # the call and its result stay whole in the kept tail
    assert len(after) < len(model.seen[index - 1]["messages"])
    started = [e for e in events if e.type == "compaction_started"]
    assert [(e.layer, e.trigger) for e in started] == [("summary", "tool")]


def test_compress_context_on_a_short_conversation_says_so(monkeypatch, workspace, fake) -> None:
    model = ScriptedModel([{"tool_calls": [{"name": "compress_context", "arguments": {}}]}]).attach(fake)
    app, session, events = open_test_session(monkeypatch, workspace, fake)
    assert session.run_turn("hi").stop_reason == "answered"
    results = [m for m in session.messages if m.get("role") == "tool"]
    assert results[0]["content"].startswith("Nothing to compact yet")
    assert model.summaries == 0
    app.close()


def test_a_failed_summary_is_one_warning_and_the_turn_goes_on(monkeypatch, workspace, fake) -> None:
    write_files(workspace, {f"b{i}.txt": 600 for i in range(4)})
    base, big = probe(monkeypatch, workspace, fake, "b0.txt")
    limit = base + 3 * big + big // 2

    class Failing(ScriptedModel):
        def __call__(self, body):
            if is_summary_request(body):
                self.summaries += 1
                return {"status": 400, "error": "summary refused"}
            return super().__call__(body)

    model = Failing([read(f"b{i}.txt") for i in range(4)]).attach(fake)
    app, session, events = open_test_session(
        monkeypatch, workspace, fake, context_window=window_for(limit), num_retries=0
    )
    state = session.run_turn("Read four files.")
    assert state.stop_reason == "answered"
    warnings = [e.text for e in events if e.type == "notice" and "summary request failed" in e.text]
    assert len(warnings) == 1 and "\n" not in warnings[0] and "Traceback" not in warnings[0]
    assert ("compacted", "aggressive") in compaction_events(events)  # layer 3 took over
    assert all(measured(b) <= window_for(limit) for b in model.seen if not is_summary_request(b))
    app.close()


def test_compaction_speaks_the_anthropic_format_with_cache_marks(monkeypatch, workspace, fake) -> None:
    """Anthropic wants a user message first and alternating roles; the summary request carries the
    same cache marks as a step: the system prompt, the last tool, the last history message."""
    write_files(workspace, {f"s{i}.txt": 50 for i in range(6)})
    plan = [read(f"s{i}.txt") for i in range(6)]
    plan.append({"tool_calls": [{"name": "compress_context", "arguments": {}}]})
    model = ScriptedModel(plan).attach(fake)
    app, session, events = open_test_session(monkeypatch, workspace, fake, anthropic=True)
    state = session.run_turn("Read, then compress.")
    assert state.stop_reason == "answered", state.error
    index = next(i for i, b in enumerate(model.seen) if is_summary_request(b))
    summary = model.seen[index]
    assert summary["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert summary["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert summary.get("tool_choice") == {"type": "none"}
    # the last stored message (a tool result, merged with the instruction into one user turn) is marked
    last = summary["messages"][-1]["content"]
    assert [b["type"] for b in last if "cache_control" in b] == ["tool_result"]
    assert last[-1]["type"] == "text" and last[-1]["text"].startswith("[Compaction request]")
    after = model.seen[index + 1]["messages"]
    assert after[0]["role"] == "user" and "[Conversation summary]" in text(after[0])
    roles = [m["role"] for m in after]
    assert all(a != b for a, b in zip(roles, roles[1:]))  # litellm merged consecutive user messages
    app.close()
