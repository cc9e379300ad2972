"""Local models end to end (issue 32): the real `astro run`, the real litellm, the scripted fake
provider on 127.0.0.1 replying as small local models do (tool calls written in the text, template
tags in answers, a slow first token). The fake provider's api_base is a loopback address, so astro
treats it as a local server unless a setting says otherwise."""

from __future__ import annotations

import pytest

from tests.fakeprovider import FakeProvider
from tests.helpers import last_json
from tests.paths import REPO_ROOT

# What Qwen2.5-Coder-1.5B-Instruct Q4_K_M wrote through llama.cpp's server (issue 32's probe).
FENCED_CALL = ('To read the file, I will call the read_file tool.\n\n```json\n'
               '{"name": "read_file", "arguments": {"path": "README.md"}}\n```')
HALF_CALL = '```json\n{"name": "read_file", "arguments": {"path": "README.md"\n```'
CORRECTION = "looks like a tool call written as text"


def _corrections(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user" and CORRECTION in str(m["content"])]


def test_a_fenced_json_call_in_the_text_runs_the_tool_and_answers_in_two_steps(cli, fake: FakeProvider,
                                                                             astro_env, workspace):
    (workspace / "README.md").write_text("# transit-fits\nFits exoplanet transit light curves with batman.\n")
    fake.add({"text": FENCED_CALL}, {"text": "The README says the project fits exoplanet transit light curves."})
    result = cli(["run", "--output-format", "json", "What does the README say?"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    obj = last_json(result.stdout)
    assert obj["num_steps"] == 2 and obj["stop_reason"] == "end_turn"
    assert obj["tool_calls"] == [{"name": "read_file", "ok": True}]
    assert obj["answer"].startswith("The README says")
    second = fake.bodies()[1]["messages"]
    call_message = next(m for m in second if m["role"] == "assistant")
    assert call_message["tool_calls"][0]["function"]["name"] == "read_file"
    assert call_message["content"] == "To read the file, I will call the read_file tool."
    assert any(m["role"] == "tool" and "batman" in m["content"] for m in second)
    assert not _corrections(fake.bodies()[1])


def test_a_half_json_call_gets_exactly_one_corrective_message(cli, fake: FakeProvider, astro_env, workspace):
    (workspace / "README.md").write_text("# notes\nH0 = 67.4\n")
    fake.add({"text": HALF_CALL},
             {"text": '```json\n{"name": "read_file", "arguments": {"path": "README.md"}}\n```'},
             {"text": "The README gives H0 = 67.4."})
    result = cli(["run", "--output-format", "json", "What H0 does the README give?"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    obj = last_json(result.stdout)
    assert obj["answer"] == "The README gives H0 = 67.4." and obj["tool_calls"] == [{"name": "read_file", "ok": True}]
    bodies = fake.bodies()
    assert len(bodies) == 3
    assert len(_corrections(bodies[1])) == 1 and "not valid JSON" in _corrections(bodies[1])[0]
    assert len(_corrections(bodies[2])) == 1  # no second correction once the call worked


def test_an_unusable_call_twice_in_a_row_pauses_the_turn_with_a_clear_status(cli, fake: FakeProvider, astro_env):
    fake.add({"text": '```json\n{"name": "list_files", "arguments": {}}\n```'}, {"text": HALF_CALL},
             {"text": "never asked for"})
    result = cli(["run", "--output-format", "json", "List the files"], env=astro_env)
    obj = last_json(result.stdout)
    assert result.exit_code == 1 and obj["is_error"] is True and obj["stop_reason"] == "paused"
    assert "unusable tool call twice in a row" in obj["error"]
    assert len(fake.bodies()) == 2  # bounded: one correction, then a final status
    assert "no tool named 'list_files'" in _corrections(fake.bodies()[1])[0]
    assert "Traceback" not in result.stderr


def test_template_tags_are_stripped_from_a_local_models_answer(cli, fake: FakeProvider, astro_env):
    fake.add({"text": "<response>The answer is 42.</response><|im_end|>"})
    result = cli(["run", "What is it?"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "The answer is 42."


def test_with_the_setting_off_a_json_block_in_the_reply_stays_the_answer(cli, fake: FakeProvider, astro_env):
    env = {**astro_env, "ASTRO_LOCAL_MODELS_TEXT_TOOL_CALLS": "off"}
    fake.add({"text": FENCED_CALL})
    result = cli(["run", "--output-format", "json", "How do I call read_file?"], env=env)
    assert result.exit_code == 0, result.stderr
    obj = last_json(result.stdout)
    assert obj["num_steps"] == 1 and obj["tool_calls"] == [] and obj["answer"] == FENCED_CALL
    assert len(fake.bodies()) == 1


def test_a_reply_with_a_json_code_block_that_is_no_call_is_the_answer(cli, fake: FakeProvider, astro_env):
    answer = 'The fit, as JSON:\n```json\n{"H0": 67.4, "sigma": 0.5}\n```'
    fake.add({"text": answer})
    result = cli(["run", "--output-format", "json", "Give me the fit as JSON"], env=astro_env)
    assert last_json(result.stdout)["answer"] == answer and len(fake.bodies()) == 1


def test_a_local_model_gets_temperature_0_unless_the_user_sets_one(cli, fake: FakeProvider, astro_env):
    fake.add({"text": "one"}, {"text": "two"})
    assert cli(["run", "Hi"], env=astro_env).exit_code == 0
    assert cli(["run", "Hi"], env={**astro_env, "ASTRO_TEMPERATURE": "0.7"}).exit_code == 0
    first, second = fake.bodies()
    assert first["temperature"] == 0 and second["temperature"] == 0.7


@pytest.mark.waits  # waits out a real timeout on purpose: seconds idle, not in test-fast
def test_the_first_token_may_take_longer_than_the_timeout(cli, fake: FakeProvider, astro_env):
    """A cold prefill: the server sends nothing for a while, then answers quickly."""
    env = {**astro_env, "ASTRO_TIMEOUT": "2", "ASTRO_NUM_RETRIES": "0"}
    fake.add({"text": "too slow", "delay": 4})
    failed = cli(["run", "--output-format", "json", "Hi"], env={**env, "ASTRO_FIRST_TOKEN_TIMEOUT": "2"})
    assert failed.exit_code == 3 and last_json(failed.stdout)["stop_reason"] == "provider_error"
    fake.add({"text": "Worth the wait.", "delay": 4})
    waited = cli(["run", "Hi"], env={**env, "ASTRO_FIRST_TOKEN_TIMEOUT": "120"})
    assert waited.exit_code == 0, waited.stderr
    assert waited.stdout.strip() == "Worth the wait."


@pytest.mark.waits  # waits out a real timeout on purpose: seconds idle, not in test-fast
def test_after_the_first_token_the_reply_has_timeout_seconds_more(cli, fake: FakeProvider, astro_env):
    """A first-token wait of its own does not let a reply stream forever: `timeout` bounds the rest
    of a reply no max_tokens bounds."""
    env = {**astro_env, "ASTRO_TIMEOUT": "1", "ASTRO_NUM_RETRIES": "0", "ASTRO_FIRST_TOKEN_TIMEOUT": "120"}
    fake.add({"text": "a long answer that stalls half way", "hang": True, "hang_seconds": 3})
    result = cli(["run", "--output-format", "json", "Hi"], env=env)
    obj = last_json(result.stdout)
    assert result.exit_code == 3 and obj["stop_reason"] == "provider_error"
    assert "still writing 1 s after its first token" in obj["error"]


@pytest.mark.waits  # waits out a real timeout on purpose: seconds idle, not in test-fast
def test_after_the_first_token_a_local_reply_has_the_first_token_wait_more(cli, fake: FakeProvider, astro_env):
    """A small-profile reply is bounded by max_tokens, and a busy CPU writes a token or two a second
    (the task set at load 10: both notes tasks were cut at `timeout` mid-reply, the answer lost), so
    the rest of the reply may take as long as the first token may; a stall beyond that still ends it."""
    env = {**astro_env, "ASTRO_TIMEOUT": "1", "ASTRO_NUM_RETRIES": "0", "ASTRO_FIRST_TOKEN_TIMEOUT": "30",
           "ASTRO_PROFILE": "small"}  # the small profile's max_tokens bounds the reply
    fake.add({"text": "a slow answer, written at last", "hang": True, "hang_seconds": 2.5})
    result = cli(["run", "--output-format", "json", "Hi"], env=env)
    obj = last_json(result.stdout)
    assert result.exit_code == 0 and obj["result"] == "a slow answer, written at last", result.stdout
    fake.add({"text": "a reply that stalls for good", "hang": True, "hang_seconds": 4})
    stalled = cli(["run", "--output-format", "json", "Hi"], env={**env, "ASTRO_FIRST_TOKEN_TIMEOUT": "2"})
    assert stalled.exit_code == 3 and last_json(stalled.stdout)["stop_reason"] == "provider_error"


def test_the_writing_limit_of_a_reply_no_max_tokens_bounds_is_timeout():
    from astro_cli.agent.provider import LLMConfig

    assert LLMConfig(model="m", timeout=120, first_token_timeout=600).writing_timeout == 120
    assert LLMConfig(model="m", timeout=120, first_token_timeout=600, max_tokens=512).writing_timeout == 600
    assert LLMConfig(model="m", timeout=120, max_tokens=512).writing_timeout == 120


@pytest.mark.waits  # waits out a real timeout on purpose: seconds idle, not in test-fast
def test_a_role_chunk_sent_before_a_long_prefill_is_not_the_first_token(cli, fake: FakeProvider, astro_env):
    """llama.cpp's server sends the assistant role at once, then processes the prompt (minutes on a
    CPU): the `timeout` for the rest of the reply starts at the first token, not at that chunk."""
    env = {**astro_env, "ASTRO_TIMEOUT": "1", "ASTRO_NUM_RETRIES": "0", "ASTRO_FIRST_TOKEN_TIMEOUT": "120"}
    fake.add({"text": "Worth the wait.", "prefill": 2.5})
    result = cli(["run", "--output-format", "json", "Hi"], env=env)
    assert result.exit_code == 0, result.stdout
    assert last_json(result.stdout)["result"] == "Worth the wait."


def test_the_local_models_docs_name_real_settings_with_their_defaults():
    """docs/models.md's settings table for local models matches the schema astro reads."""
    import re

    from astro_cli.config_schema import SCHEMA

    doc = REPO_ROOT.joinpath("docs", "models.md").read_text()
    section = doc.split("## Local models", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([\w.]+)` \| `(ASTRO_\w+)` \| `?([\w]+)`? \|", section, re.MULTILINE)
    assert {name for name, _env, _default in rows} == {"local_models.text_tool_calls", "temperature",
                                                      "first_token_timeout", "max_tokens"}
    for name, env, default in rows:
        key = SCHEMA[name]
        assert key.env_var == env
        assert (default == "unset" and key.default is None) or default == key.default
