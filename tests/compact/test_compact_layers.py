"""The compaction layers over random histories: every layer keeps a history a provider accepts.

Hypothesis builds histories the way the loop stores them (user messages, nudges, answers, assistant
messages with parallel tool calls followed by their results, interrupted results), then each layer
and every cut point is checked against the invariant: no call is ever separated from its results.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from astro_cli.compact import layers as L

TOOLS = ["read_file", "search_ads", "get_paper_content", "load_skill", "todo_write"]


@st.composite
def histories(draw: st.DrawFn) -> list[dict]:
    messages: list[dict] = []
    counter = 0
    if draw(st.booleans()):
        messages.append(L.summary_message("an earlier summary"))
    for _ in range(draw(st.integers(1, 8))):
        messages.append({"role": "user", "content": draw(st.sampled_from(["question", "nudge", "x" * 300]))})
        for _ in range(draw(st.integers(0, 5))):
            calls = draw(st.integers(0, 4))
            if calls == 0:
                messages.append({"role": "assistant", "content": "thinking aloud"})
                continue
            ids = []
            tool_calls = []
            for _ in range(calls):
                counter += 1
                ids.append(f"call_{counter}")
                name = draw(st.sampled_from(TOOLS))
                tool_calls.append(
                    {
                        "id": ids[-1],
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps({"q": counter})},
                    }
                )
            messages.append(
                {
                    "role": "assistant",
                    "content": draw(st.sampled_from([None, "let me look"])),
                    "tool_calls": tool_calls,
                }
            )
            order = draw(st.permutations(range(calls)))
            for k in order:
                content = draw(
                    st.sampled_from(["short", "y" * 2000, "[interrupted: the tool did not finish]"])
                )
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": ids[k],
                        "name": tool_calls[k]["function"]["name"],
                        "content": content,
                    }
                )
        if draw(st.booleans()):
            messages.append({"role": "assistant", "content": "the answer"})
    return messages


def assert_valid(messages: list[dict]) -> None:
    assert L.history_problems(messages) == [], L.history_problems(messages)


@given(histories())
@settings(max_examples=120, deadline=None)
def test_generated_histories_are_valid_to_begin_with(messages: list[dict]) -> None:
    assert_valid(messages)


@given(histories(), st.data())
@settings(max_examples=120, deadline=None)
def test_every_safe_cut_point_splits_into_two_valid_histories(
    messages: list[dict], data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, len(messages)))
    for cut in (L.find_safe_cut_point(messages, index), L.find_safe_cut_after(messages, index)):
        assert_valid(messages[:cut])
        assert_valid(messages[cut:])
        assert cut == len(messages) or messages[cut]["role"] != "tool"
    assert L.find_safe_cut_point(messages, index) <= index <= L.find_safe_cut_after(messages, index)


@given(histories(), st.integers(4, 60), st.integers(1, 10), st.integers(1, 50))
@settings(max_examples=120, deadline=None)
def test_snip_keeps_head_and_tail_and_a_valid_history(messages, max_messages, head, tail) -> None:
    out = L.snip(messages, max_messages, head, tail)
    if len(messages) <= max_messages:
        assert out is None
        return
    if out is None:
        return
    assert_valid(out)
    assert len(out) < len(messages)
    head_end, tail_start = L.snip_plan(messages, max_messages, head, tail)
    assert head_end >= min(head, len(messages)) and len(messages) - tail_start >= tail
    assert out == messages[:head_end] + messages[tail_start:]


@given(histories(), st.integers(0, 8))
@settings(max_examples=120, deadline=None)
def test_micro_leaves_only_the_latest_results_whole(messages, keep) -> None:
    out = L.micro(messages, keep) or messages
    assert_valid(out)
    assert len(out) == len(messages)
    whole = [m for m in out if m["role"] == "tool" and not L.is_placeholder(m)]
    assert len(whole) <= keep
    results_before = [m for m in messages if m["role"] == "tool"]
    results_after = [m for m in out if m["role"] == "tool"]
    # the latest `keep` results are untouched, the others name their tool
    for before, after in zip(results_before[::-1][:keep], results_after[::-1][:keep]):
        assert before == after
    for before, after in zip(results_before, results_after):
        if after is not before and after != before:
            assert after["content"] == f"[Previous: used {before['name']}]"
            assert after["tool_call_id"] == before["tool_call_id"]


@given(histories())
@settings(max_examples=120, deadline=None)
def test_aggressive_keeps_two_results(messages) -> None:
    out = L.aggressive(messages, 2) or messages
    assert_valid(out)
    assert len([m for m in out if m["role"] == "tool" and not L.is_placeholder(m)]) <= 2


@given(histories(), st.integers(0, 12))
@settings(max_examples=120, deadline=None)
def test_summary_replaces_a_prefix_at_a_safe_cut(messages, keep) -> None:
    cut = L.summary_cut(messages, keep)
    if cut is None:
        assert len(messages) < 2  # otherwise there is always something worth summarizing
        return
    out = L.apply_summary(messages, cut, "the summary")
    assert_valid(out)
    assert L.is_summary(out[0]) and out[1:] == messages[cut:]
    assert cut >= 2


@given(histories(), st.integers(0, 12), st.integers(0, 5000))
@settings(max_examples=120, deadline=None)
def test_a_tightened_summary_cut_is_safe_and_keeps_the_last_exchange(messages, keep, budget) -> None:
    cut = L.summary_cut(messages, keep)
    if cut is None:
        return
    tight = L.tighten_cut(messages, cut, lambda tail: len(json.dumps(tail)) <= budget)
    assert cut <= tight <= max(cut, L.find_safe_cut_point(messages, len(messages) - 1))
    assert_valid(L.apply_summary(messages, tight, "summary"))


@given(histories(), st.integers(10, 3000))
@settings(max_examples=100, deadline=None)
def test_truncation_keeps_a_valid_history_and_says_so(messages, size) -> None:
    out = L.truncate_results(messages, size) or messages
    assert_valid(out)
    for before, after in zip(messages, out):
        if after is not before:
            assert (
                after["content"].startswith(before["content"][:size])
                and "cut by compaction" in after["content"]
            )


@given(histories(), st.lists(st.sampled_from(["snip", "micro", "summary", "aggressive", "grow"]), max_size=8))
@settings(max_examples=120, deadline=None)
def test_any_sequence_of_layers_and_new_steps_stays_valid(messages, steps) -> None:
    """The engine's life: layers run on the view while new exchanges keep arriving."""
    view = list(messages)
    n = 0
    for step in steps:
        if step == "snip":
            view = L.snip(view, 10, 3, 6) or view
        elif step == "micro":
            view = L.micro(view, 3) or view
        elif step == "aggressive":
            view = L.aggressive(view, 2) or view
        elif step == "summary":
            cut = L.summary_cut(view, 4)
            if cut is not None:
                view = L.apply_summary(view, cut, "summary")
        else:
            n += 1
            view = view + [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"new_{n}",
                            "type": "function",
                            "function": {"name": "read_file", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": f"new_{n}", "name": "read_file", "content": "z" * 500},
            ]
        assert_valid(view)


def test_history_problems_names_a_separated_call() -> None:
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
        ],
    }
    result = {"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "text"}
    assert L.history_problems([{"role": "user", "content": "q"}, call, result]) == []
    assert L.history_problems([{"role": "user", "content": "q"}, result])
    assert L.history_problems([call])
    assert L.history_problems([call, {"role": "user", "content": "between"}, result])


def test_placeholder_names_the_tool_from_the_call_when_the_result_has_no_name() -> None:
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "search_ads", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{}"}},
        ],
    }
    messages = [
        {"role": "user", "content": "q"},
        call,
        {"role": "tool", "tool_call_id": "c1", "content": "many papers"},
        {"role": "tool", "tool_call_id": "c2", "content": "file"},
    ]
    out = L.micro(messages, keep=1)
    assert out[2]["content"] == "[Previous: used search_ads]"
    assert out[3]["content"] == "file"
