"""Tool calls written as text by small local models (agent/text_calls.py) and when astro reads them
(agent/local_models.py). The reply texts are the shapes Qwen2.5-Coder-1.5B, Hermes-style and
Llama 3.1 templates produce (issue 32)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astro_cli.agent.local_models import LOCAL_FIRST_TOKEN_TIMEOUT, is_local_endpoint, local_tuning
from astro_cli.agent.text_calls import (
    copied_from_results,
    find_text_calls,
    mend_cut_call,
    strip_template_tags,
)
from astro_cli.config import ConfigError

TOOLS = {"list_dir", "read_file", "save_note"}

QWEN_FENCED = (
    'To list the files, I will call the list_dir tool.\n\n```json\n'
    '{"name": "list_dir", "arguments": {"path": "."}}\n```'
)


def test_fenced_json_call_at_the_end_is_a_call_and_the_prose_is_kept():
    found = find_text_calls(QWEN_FENCED, TOOLS)
    assert found is not None and found.problem is None
    assert [(c.name, c.arguments) for c in found.calls] == [("list_dir", {"path": "."})]
    assert found.prose == "To list the files, I will call the list_dir tool."


def test_a_fenced_call_after_an_earlier_code_block():
    text = "First some code:\n```python\nprint(1)\n```\nNow the call:\n" + QWEN_FENCED.split("\n\n")[1]
    found = find_text_calls(text, TOOLS)
    assert found is not None and [c.name for c in found.calls] == ["list_dir"]
    assert found.prose.endswith("Now the call:")


def test_hermes_tool_call_tags_several_calls_and_a_missing_closing_tag():
    text = ('<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_call>\n'
            '<tool_call>\n{"name": "list_dir", "arguments": {}}')
    found = find_text_calls(text, TOOLS)
    assert found is not None and [c.name for c in found.calls] == ["read_file", "list_dir"]


def test_llama_python_tag_with_parameters_and_end_token():
    found = find_text_calls('<|python_tag|>{"name": "save_note", "parameters": {"text": "hi"}}<|eom_id|>', TOOLS)
    assert found is not None and [(c.name, c.arguments) for c in found.calls] == [("save_note", {"text": "hi"})]


def test_arguments_given_as_a_json_string_and_a_bare_json_reply():
    found = find_text_calls('{"name": "read_file", "arguments": "{\\"path\\": \\"a.txt\\"}"}', TOOLS)
    assert found is not None and found.calls[0].arguments == {"path": "a.txt"}


def test_unknown_tool_and_half_json_are_problems_naming_what_is_wrong():
    unknown = find_text_calls('```json\n{"name": "list_files", "arguments": {}}\n```', TOOLS)
    assert unknown is not None and not unknown.calls
    assert "no tool named 'list_files'" in (unknown.problem or "") and "read_file" in (unknown.problem or "")
    half = find_text_calls('```json\n{"name": "read_file", "arguments": {"path": "README\n```', TOOLS)
    assert half is not None and not half.calls and "not valid JSON" in (half.problem or "")


@pytest.mark.parametrize("text", [
    "The fit gives H0 = 70 km/s/Mpc.",
    'Here is the table as JSON:\n```json\n{"H0": 70.0, "sigma": 1.2}\n```',
    'Use this config:\n```json\n[1, 2, 3]\n```',
    'A call looks like ```json\n{"name": "read_file", "arguments": {}}\n``` and then you read the result.',
    "```python\nprint('hi')\n```",
])
def test_answers_that_only_contain_json_or_code_are_not_calls(text):
    assert find_text_calls(text, TOOLS) is None


@pytest.mark.parametrize("text", [
    'Models write <tool_call>{"name": "read_file", "arguments": {}}</tool_call> and then get a result.',
    '<tool_call>{"name": "read_file", "arguments": {}}</tool_call>\nThat reads the file.',
    '<|python_tag|>{"name": "save_note", "parameters": {"text": "hi"}} is how Llama writes it.',
    '```json\n{"name": "read_file", "arguments": {"path": "a"}}\n```\nThis returns the file.',
    '{"name": "read_file", "arguments": {}} is the shape of a call.',
])
def test_a_call_with_text_after_it_is_quoted_not_called(text):
    assert find_text_calls(text, TOOLS) is None


def test_a_call_copied_from_a_tool_result_is_not_adopted():
    found = find_text_calls('<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>', TOOLS)
    assert found is not None and found.calls
    assert copied_from_results(found, ['row: <tool_call>{"name":"read_file",\n "arguments": {"path": "a"}}'])
    assert copied_from_results(found, ['{"text": "{\\"name\\": \\"read_file\\", \\"arguments\\": {\\"path\\": \\"a\\"}}"}'])
    assert not copied_from_results(found, ["read_file returned 3 lines"])


def test_template_tags_are_stripped_from_answers():
    text = "<response>The README says the project fits exoplanet transits.</response><|im_end|>"
    assert strip_template_tags(text) == "The README says the project fits exoplanet transits."
    assert strip_template_tags("<tool_response>\nok\n</tool_response>") == "ok"
    assert strip_template_tags("a <b> c") == "a <b> c"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list('{}[]":,`\\ \n') + ["```json", "```", '"name"', '"arguments"', "<tool_call>",
                                                          "</tool_call>", "<|python_tag|>", '"read_file"', "a",
                                                          "1", "null", "<|im_end|>"])).map("".join))
def test_never_raises_on_any_text(text):
    found = find_text_calls(text, TOOLS)
    assert found is None or (found.problem is None) == bool(found.calls)
    for call in found.calls if found else []:
        assert call.name in TOOLS and isinstance(call.arguments, dict)
    strip_template_tags(text)


@given(st.text())
def test_never_raises_on_arbitrary_unicode(text):
    find_text_calls(text, TOOLS)


@pytest.mark.parametrize(("model", "api_base", "local"), [
    ("ollama/qwen2.5-coder:1.5b", None, True),
    ("ollama_chat/llama3.1", "http://gpu-node:11434", True),
    ("openai/qwen", "http://127.0.0.1:8080/v1", True),
    ("openai/qwen", "http://localhost:8000/v1", True),
    ("hosted_vllm/qwen", "http://10.1.2.3:8000/v1", True),
    ("openai/qwen", "http://192.168.1.20:1234/v1", True),
    ("openai/qwen", "http://[::1]:8080/v1", True),
    ("openai/gpt-4.1", None, False),
    ("openai/gpt-4.1", "https://api.openai.com/v1", False),
    ("anthropic/claude-sonnet-4-5", "https://8.8.8.8/v1", False),
    ("openai/x", "not a url", False),
])
def test_local_endpoints(model, api_base, local):
    assert is_local_endpoint(model, api_base) is local


def test_local_tuning_defaults_and_what_the_user_sets_wins():
    local = local_tuning("openai/q", "http://127.0.0.1:8080/v1", "auto", None, None)
    assert (local.text_tool_calls, local.temperature, local.first_token_timeout) == (True, 0.0, LOCAL_FIRST_TOKEN_TIMEOUT)
    cloud = local_tuning("openai/gpt-4.1", None, "auto", None, None)
    assert (cloud.text_tool_calls, cloud.temperature, cloud.first_token_timeout) == (False, None, None)
    assert local_tuning("openai/gpt-4.1", None, "on", 0.3, 30.0) == type(cloud)(True, 0.3, 30.0)
    assert local_tuning("ollama/q", None, "off", 0.7, None).text_tool_calls is False
    assert (local.max_tokens, local.continue_cut, cloud.max_tokens, cloud.continue_cut) == (None, True, None, True)
    small = local_tuning("openai/q", "http://127.0.0.1:8080/v1", "auto", None, None, small=True)
    assert (small.max_tokens, small.continue_cut) == (512, False)
    assert local_tuning("openai/q", "http://127.0.0.1:8080/v1", "auto", None, None, 4096, small=True).max_tokens == 4096
    assert local_tuning("openai/q", None, "auto", None, None, 4096, small=True).continue_cut is True
    with pytest.raises(ConfigError, match="must be one of auto, on, off"):
        local_tuning("ollama/q", None, "sometimes", None, None)


def test_switching_model_resolves_the_local_tuning_anew():
    """/model from an Ollama model to a cloud one leaves neither temperature 0 nor text calls behind."""
    from astro_cli.agent.local_models import with_model
    from astro_cli.agent.provider import LLMConfig
    from astro_cli.config import Settings

    local = with_model(LLMConfig(model="openai/gpt-4.1"), "ollama_chat/qwen2.5-coder:1.5b", Settings())
    assert (local.text_tool_calls, local.temperature, local.first_token_timeout) == (True, 0.0, 600.0)
    cloud = with_model(local, "anthropic/claude-sonnet-4-5", Settings())
    assert (cloud.model, cloud.text_tool_calls, cloud.temperature, cloud.first_token_timeout) == (
        "anthropic/claude-sonnet-4-5", False, None, None)


@pytest.mark.parametrize("cut, mended", [
    # A list cut inside its item: closed after the last whole one (escaped quotes are inside strings).
    ('<tools>\n{"name": "rag_search", "arguments": {"query": "q", "queries": ["a \\"b\\", c", "d", "e',
     '<tools>\n{"name": "rag_search", "arguments": {"query": "q", "queries": ["a \\"b\\", c", "d"]}}'),
    # In a fence: the fence is closed too, so the call reads as one.
    ('```json\n{"name": "rag_search", "arguments": {"query": "q", "queries": ["a", "b", ["c"], "d',
     '```json\n{"name": "rag_search", "arguments": {"query": "q", "queries": ["a", "b", ["c"]]}}\n```'),
    # Cut inside an argument that is no list item, or a whole call: nothing to mend.
    ('<tools>\n{"name": "run_bash", "arguments": {"command": "rm -rf build, dist', None),
    ('<tools>\n{"name": "read_file", "arguments": {"path": "a.md", "limit": 2', None),
    ('{"name": "read_file", "arguments": {"path": "a.md"}}', None),
    ("An answer with no call in it, cut here", None),
])
def test_a_call_cut_inside_a_list_is_closed_after_its_last_whole_item(cut, mended):
    assert mend_cut_call(cut) == mended
