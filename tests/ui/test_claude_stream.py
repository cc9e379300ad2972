"""`astro run --output-format stream-json` speaks Claude Code's messages (system, assistant, user,
result), and every JSON result carries Claude Code's result fields: the real `astro` process, the
real litellm, the fake provider on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any

from tests.helpers import last_json


def lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_a_tool_call_streams_system_assistant_user_assistant_result(run_astro, fake, astro_env, workspace):
    (workspace / "notes.txt").write_text("the flux is 3 mJy\n")
    fake.add(
        {"tool_calls": [{"id": "call_r", "name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"text": "The flux is 3 mJy."},
    )
    done = run_astro(["run", "--output-format", "stream-json", "What is the flux?"], astro_env)
    assert done.returncode == 0, done.stderr
    messages = lines(done.stdout)
    assert [m["type"] for m in messages] == ["system", "assistant", "user", "assistant", "result"]
    init, call, result_msg, answer, result = messages
    assert init["subtype"] == "init" and init["model"] == "openai/fake-model"
    assert "read_file" in init["tools"] and init["cwd"] == str(workspace)
    assert init["session_id"] == result["session_id"] == call["session_id"] == result_msg["session_id"]
    assert call["message"]["role"] == "assistant" and call["parent_tool_use_id"] is None
    assert call["message"]["content"] == [
        {"type": "tool_use", "id": "call_r", "name": "read_file", "input": {"path": "notes.txt"}}]
    [block] = result_msg["message"]["content"]
    assert block["type"] == "tool_result" and block["tool_use_id"] == "call_r" and block["is_error"] is False
    assert "the flux is 3 mJy" in block["content"]
    assert answer["message"]["content"] == [{"type": "text", "text": "The flux is 3 mJy."}]
    assert answer["message"]["stop_reason"] == "end_turn"
    assert result["subtype"] == "success" and result["is_error"] is False and result["result"] == "The flux is 3 mJy."
    assert result["stop_reason"] == "end_turn" and result["num_turns"] == 2 and result["permission_denials"] == []
    assert isinstance(result["duration_ms"], int) and result["usage"]["input_tokens"] == 200


def test_a_refused_call_is_a_permission_denial(run_astro, fake, astro_env, workspace):
    call = {"id": "call_w", "name": "file_write", "arguments": {"path": "out.md", "content": "# notes"}}
    fake.add({"tool_calls": [call]}, {"text": "I was not allowed."})
    done = run_astro(["run", "--output-format", "stream-json", "Write notes"], astro_env)
    assert done.returncode == 0, done.stderr
    messages = lines(done.stdout)
    refusal = next(m for m in messages if m["type"] == "user")["message"]["content"][0]
    assert refusal["is_error"] is True and "--allow file_write" in refusal["content"]
    assert messages[-1]["permission_denials"] == [
        {"tool_name": "file_write", "tool_use_id": "call_w", "tool_input": {"path": "out.md", "content": "# notes"}}]
    # The json result lists them too; an allowed call is no denial.
    fake.add({"tool_calls": [call]}, {"text": "Written."})
    obj = last_json(run_astro(["run", "--allow", "file_write", "--output-format", "json", "Write notes"],
                              astro_env).stdout)
    assert obj["permission_denials"] == [] and obj["stop_reason"] == "end_turn" and obj["errors"] == []


def test_astro_events_keep_astro_s_own_stream_with_a_rounded_cost(run_astro, fake, astro_env):
    fake.add({"text": "Streaming works.", "usage": {"input_tokens": 1000, "output_tokens": 100}})
    done = run_astro(["run", "--output-format", "astro-events", "Test"], dict(astro_env, ASTRO_MODEL="openai/gpt-4o-mini"))
    events = lines(done.stdout)
    types = [m["type"] for m in events]
    assert types[0] == "turn_started" and "text_delta" in types and "usage" in types
    assert types[-1] == "result" and last_json(done.stdout)["result"] == "Streaming works."
    assert "system" not in types
    [usage] = [m for m in events if m["type"] == "usage"]
    assert usage["cost_usd"] == events[-1]["total_cost_usd"] and len(repr(usage["cost_usd"])) <= 12, usage


def test_the_step_budget_is_error_max_turns(run_astro, fake, astro_env):
    glob = {"tool_calls": [{"name": "glob_files", "arguments": {"pattern": "*"}}]}
    fake.add(glob, glob)
    done = run_astro(["run", "--max-steps", "1", "--output-format", "stream-json", "loop"],
                     dict(astro_env, ASTRO_NUM_RETRIES="0"))
    result = last_json(done.stdout)
    assert done.returncode == 4
    assert result["subtype"] == "error_max_turns" and result["is_error"] is True
    assert result["errors"] and "step budget" in result["errors"][0]


def test_a_retry_is_said_on_stderr_and_stdout_stays_claude_s_messages(run_astro, fake, astro_env):
    fake.add({"status": 500, "error": "overloaded"}, {"text": "Answered after all."})
    done = run_astro(["run", "--output-format", "stream-json", "hi"], astro_env)
    assert done.returncode == 0, done.stderr
    assert [m["type"] for m in lines(done.stdout)] == ["system", "assistant", "result"]
    assert "provider error, retry 1/3" in done.stderr and "overloaded" in done.stderr


def test_a_subagent_s_calls_name_the_call_that_started_it(run_astro, fake, astro_env, workspace):
    (workspace / "a.txt").write_text("alpha\n")
    fake.add(
        {"tool_calls": [{"id": "call_sub", "name": "subagent", "arguments": {"task": "read a.txt"}}]},
        {"tool_calls": [{"id": "call_read", "name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "alpha"},
        {"text": "done"},
    )
    done = run_astro(["run", "--output-format", "stream-json", "go"], astro_env)
    assert done.returncode == 0, done.stderr
    shape = []
    for m in lines(done.stdout):
        if m["type"] in ("assistant", "user"):
            block = m["message"]["content"][0]
            shape.append((m["type"], block["type"], block.get("name") or block.get("tool_use_id"),
                          m["parent_tool_use_id"]))
    assert shape == [
        ("assistant", "tool_use", "subagent", None),
        ("assistant", "tool_use", "read_file", "call_sub"),
        ("user", "tool_result", "call_read", "call_sub"),
        ("user", "tool_result", "call_sub", None),
        ("assistant", "text", None, None),
    ]
