"""The provider's signals are obeyed (issue 13): retry-after, and answers cut at the token limit."""

from __future__ import annotations

import json
import time
from email.utils import formatdate

import pytest

from tests.conftest import CLOSED, CTRL_D, base_env
from tests.fakeprovider import FakeProvider
from tests.helpers import last_json


def _gap(fake: FakeProvider) -> float:
    return fake.requests[1]["at"] - fake.requests[0]["at"]


@pytest.mark.parametrize("headers, wait, shown", [
    ({"retry-after": "2"}, 2.0, "rate limited, retrying in 2 s (1/3)"),
    ({"retry-after-ms": "1500", "retry-after": "30"}, 1.5, "rate limited, retrying in 1.5 s (1/3)"),
])
def test_retry_after_is_honoured_and_shown(run_astro, fake: FakeProvider, astro_env, headers, wait, shown):
    # The configured backoff is 0.01 s (tests/conftest.py): any longer wait is the provider's.
    fake.add({"status": 429, "error": "rate limit reached", "headers": headers}, {"text": "After the wait."})
    proc = run_astro(["run", "Hello?"], astro_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "After the wait."
    assert shown in proc.stderr
    # Not the 0.01 s backoff, and not the 30 s of retry-after when retry-after-ms is given; the margin
    # between them leaves room for a busy machine.
    assert wait - 0.05 <= _gap(fake) < wait + 20


@pytest.mark.waits  # waits out the Retry-After date on purpose: seconds idle, not in test-fast
def test_retry_after_as_an_http_date(cli, fake: FakeProvider, astro_env):
    # The date is written when the request arrives (the first one waits for litellm's import).
    fake.add(lambda body: {"status": 429, "error": "busy",
                           "headers": {"retry-after": formatdate(time.time() + 3, usegmt=True)}},
             {"text": "ok"})
    result = cli(["run", "Hello?"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    assert "rate limited, retrying in" in result.stderr
    assert _gap(fake) >= 1.5  # the date has a resolution of one second


def test_a_wait_longer_than_the_cap_fails_at_once_with_the_reason(cli, fake: FakeProvider, astro_env):
    fake.add({"status": 429, "error": "daily quota used up", "headers": {"retry-after": "3600"}}, {"text": "never"})
    result = cli(["run", "--output-format", "json", "Hello?"], env=astro_env)
    assert result.exit_code == 3
    assert len(fake.requests) == 1  # no retry, no wait: it failed at once
    error = last_json(result.stdout)["error"]
    assert "daily quota used up" in error
    assert "asks to wait 60 min, longer than retry_max_wait (60 s)" in error


@pytest.mark.parametrize("env_name", ["astro_env", "anthropic_env"])
def test_an_answer_cut_at_the_token_limit_is_continued_and_joined(cli, fake: FakeProvider, request, env_name):
    env = request.getfixturevalue(env_name)
    fake.add({"text": "The Hubble tension is a 5 sigma disagree", "finish": "length"},
             {"text": "ment between early- and late-universe measurements of H0."})
    result = cli(["run", "--output-format", "json", "What is the Hubble tension?"], env=env)
    assert result.exit_code == 0, result.stderr
    obj = last_json(result.stdout)
    assert obj["answer"] == ("The Hubble tension is a 5 sigma disagreement between early- and late-universe "
                             "measurements of H0.")
    assert obj["stop_reason"] == "end_turn" and obj["is_error"] is False
    assert obj["usage"]["output_tokens"] == 40  # both requests are counted
    second = fake.bodies()[1]["messages"]
    said = [m for m in second if m["role"] in ("assistant", "user")][-2:]
    assert "disagree" in json.dumps(said[0]) and "Continue exactly where it stopped" in json.dumps(said[1])


def test_an_answer_still_cut_after_the_continuations_is_marked(cli, fake: FakeProvider, astro_env, workspace):
    fake.add({"text": "Part one, ", "finish": "length"}, {"text": "part two, ", "finish": "length"})
    result = cli(["run", "--output-format", "json", "Explain everything"],
                 env={**astro_env, "ASTRO_MAX_CONTINUATIONS": "1"})
    assert result.exit_code == 0
    obj = last_json(result.stdout)
    assert obj["answer"] == "Part one, part two, "
    assert obj["stop_reason"] == "max_tokens" and obj["is_error"] is False
    assert "output token limit (after 1 continuation)" in result.stderr
    assert len(fake.requests) == 2
    # What is stored is the one joined answer, marked as cut.
    export = cli(["sessions", "export", obj["session_id"], "--format", "json"], env=astro_env)
    last = json.loads(export.stdout)["messages"][-1]
    assert last["content"].startswith("Part one, part two,")


def test_the_repl_shows_the_wait(repl, fake: FakeProvider):
    fake.add({"status": 429, "error": "slow down", "headers": {"retry-after": "1"}}, {"text": "Answer."})
    shown = repl.type_and_run(f"Hello?\r{CTRL_D}")
    assert "rate limited, retrying in 1 s (1/3)" in shown
    assert "Answer." in shown


@pytest.mark.parametrize("env_name", ["astro_env", "anthropic_env"])
def test_a_long_file_write_streamed_in_small_pieces_arrives_whole(cli, fake: FakeProvider, request, env_name,
                                                                    workspace):
    env = request.getfixturevalue(env_name)
    content = "".join(f"{n:06d} flux {n * 0.37:.3f} mJy\n" for n in range(4000))  # ~100 KB, ~2,000 chunks
    fake.add({"tool_calls": [{"name": "file_write", "arguments": {"path": "table.txt", "content": content}}],
              "arg_chunk": 50, "usage": {"input_tokens": 1234, "output_tokens": 567}},
             {"text": "Written."})
    env = {**env, "ASTRO_CONTEXT_WINDOW": "1000000"}  # 100 KB of arguments: no compaction here
    result = cli(["run", "--allow", "file_write", "--output-format", "json", "Write the table"], env=env)
    assert result.exit_code == 0, result.stderr
    assert (workspace / "table.txt").read_text() == content
    usage = last_json(result.stdout)["usage"]
    # litellm's copy of the chunks is trimmed as they stream; the usage it reports at the end is whole.
    assert usage["input_tokens"] == 1234 + 100 and usage["output_tokens"] == 567 + 20


def test_a_local_server_without_a_key_is_reached_and_a_down_one_is_named(cli, fake: FakeProvider, tmp_path):
    """An OpenAI-compatible server at --api-base (llama.cpp, vLLM) often needs no key: astro reaches it
    without one, and when it is down says so at once, instead of retrying a client-side
    'Missing credentials' three times."""
    env = base_env(tmp_path)
    env.update(ASTRO_MODEL="openai/local-model", ASTRO_API_BASE=fake.openai_url)
    fake.add({"text": "Hello from the local server."})
    result = cli(["run", "hi"], env)
    assert result.exit_code == 0, result.stderr
    assert "Hello from the local server." in result.stdout

    env["ASTRO_API_BASE"] = CLOSED
    down = cli(["run", "hi"], env)
    assert down.exit_code != 0
    assert f"could not connect to {CLOSED} (connection refused)" in down.stderr
    assert "Missing credentials" not in down.stderr and "retry 2/3" not in down.stderr
