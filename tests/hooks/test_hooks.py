"""Lifecycle hooks end to end: real hook commands (shell) run by the real `astro run` against the fake
provider; the payloads they receive, blocking, rewriting, replacing, failures and fail_closed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import trust_workspace


def configure(workspace: Path, hooks: dict[str, Any], **settings: Any) -> None:
    folder = workspace / ".astro"
    folder.mkdir(exist_ok=True)
    (folder / "config.yaml").write_text(yaml.safe_dump({"hooks": hooks, **settings}))
    trust_workspace(workspace)  # project hooks run only in a folder the researcher trusts


def logger(log: Path) -> str:
    """A hook command that appends the event JSON it reads on stdin as one line of `log`."""
    return f"cat >> '{log}'; echo >> '{log}'"


def entry(command: str, matcher: str | None = None, timeout: float | None = None) -> list[dict[str, Any]]:
    hook: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    group: dict[str, Any] = {"hooks": [hook]}
    if matcher is not None:
        group["matcher"] = matcher
    return [group]


def read_log(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def run(cli, env: dict[str, str], question: str, *extra: str):
    result = cli(["run", question, "--output-format", "json", *extra], env)
    return result, json.loads(result.stdout.strip().splitlines()[-1])


ALL_EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "StepComplete", "PreCompact",
              "PostCompact", "SubagentStart", "SubagentStop", "SessionStop"]


def test_every_event_fires_with_its_payload(cli, fake, astro_env, workspace):
    pytest.importorskip("astro_cli.compact.feature")
    log = workspace.parent / "logs" / "events.jsonl"  # outside the workspace: the sandbox needs it allowed
    log.parent.mkdir()
    configure(workspace, {event: entry(logger(log)) for event in ALL_EVENTS}, allowed_paths=[str(log.parent)])
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    fake.add(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "Read b.txt", "tools": ["read_file"]}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "b.txt"}}]},  # the subagent
        {"text": "beta"},  # the subagent's answer
        {"tool_calls": [{"name": "compress_context", "arguments": {}}]},
        {"text": "Summary: a.txt says alpha, b.txt says beta."},  # the compaction's summary request
        {"text": "alpha and beta"},
    )
    # compaction.* is the user's to set (a project's value is ignored since issue 41): an ASTRO_ variable
    result, out = run(cli, {**astro_env, "ASTRO_COMPACTION_SUMMARY_KEEP_MESSAGES": "1"}, "What do a.txt and b.txt say?")
    assert out["answer"] == "alpha and beta", result.stderr
    events = read_log(log)
    conn = sqlite3.connect(workspace / ".astro" / "astro.db")
    main_id, child_id = [row[0] for row in conn.execute("SELECT id FROM sessions ORDER BY rowid")]
    conn.close()
    names = [(e["hook_event_name"], e["session_id"] == child_id) for e in events]
    assert names == [
        ("SessionStart", False), ("UserPromptSubmit", False),
        ("PreToolUse", False), ("PostToolUse", False), ("StepComplete", False),
        ("PreToolUse", False), ("SubagentStart", False),
        ("PreToolUse", True), ("PostToolUse", True), ("StepComplete", True),
        ("SubagentStop", False), ("PostToolUse", False), ("StepComplete", False),
        ("PreToolUse", False), ("PostToolUse", False), ("StepComplete", False),
        ("PreCompact", False), ("PostCompact", False),
        ("SessionStop", False),
    ]
    assert set(ALL_EVENTS) == {e["hook_event_name"] for e in events}
    for event in events:
        assert event["cwd"] == str(workspace)
        assert event["session_id"] in (main_id, child_id)
    by = {}
    for event in events:
        by.setdefault(event["hook_event_name"], []).append(event)
    assert by["SessionStart"][0]["source"] == "startup"
    assert by["UserPromptSubmit"][0]["prompt"] == "What do a.txt and b.txt say?"
    pre = by["PreToolUse"][0]
    assert (pre["tool_name"], pre["tool_input"], pre["agent"]) == ("read_file", {"path": "a.txt"}, "main")
    post = by["PostToolUse"][0]
    assert "alpha" in post["tool_response"]["content"] and post["tool_response"]["is_error"] is False
    assert by["StepComplete"][0]["step"] == 1 and by["StepComplete"][0]["tool_calls"] == ["read_file"]
    start = by["SubagentStart"][0]
    assert (start["agent_name"], start["prompt"], start["tools"]) == ("subagent", "Read b.txt", ["read_file"])
    stop = by["SubagentStop"][0]
    assert (stop["result"], stop["subagent_session_id"], stop["steps"]) == ("beta", child_id, 2)
    inner = by["PreToolUse"][2]
    assert (inner["agent"], inner["parent_session_id"], inner["tool_input"]) == ("subagent", main_id, {"path": "b.txt"})
    precompact, postcompact = by["PreCompact"][0], by["PostCompact"][0]
    assert precompact["layer"] == postcompact["layer"] == "summary"
    assert precompact["messages_before"] == postcompact["messages_before"] > postcompact["messages_after"]
    assert postcompact["tokens_after"] < postcompact["tokens_before"]
    assert by["SessionStop"][0]["reason"]


def test_blocking_pre_tool_use_hook(cli, fake, astro_env, workspace):
    configure(workspace, {"PreToolUse": entry("echo 'no shell in this project' >&2; exit 2", matcher="run_bash")})
    (workspace / "a.txt").write_text("alpha\n")
    fake.add(
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "touch ran.txt"}},
                        {"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "blocked"},
    )
    run(cli, astro_env, "go", "--yes")
    blocked, read = tool_results(fake.bodies()[1])
    assert blocked == "Error: run_bash was blocked: no shell in this project"
    assert not (workspace / "ran.txt").exists()
    assert "alpha" in read  # the matcher left read_file alone


def test_rewriting_and_replacing_hooks(cli, fake, astro_env, workspace):
    rewrite = 'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"path": "b.txt"}, ' \
              '"additionalContext": "rewritten to b.txt"}}\''
    configure(workspace, {
        "PreToolUse": entry(rewrite, matcher="read_file"),
        "PostToolUse": entry('echo \'{"updatedOutput": "[redacted by policy]"}\'', matcher="grep_files|file_.*"),
    })
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    fake.add(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}},
                        {"name": "grep_files", "arguments": {"pattern": "alpha"}}]},
        {"text": "ok"},
    )
    run(cli, astro_env, "go")
    read, grep = tool_results(fake.bodies()[1])
    assert "beta" in read and "alpha" not in read
    assert read.endswith("[additional context] rewritten to b.txt")
    assert grep == "[redacted by policy]"
    conn = sqlite3.connect(workspace / ".astro" / "astro.db")
    stored = [json.loads(row[0]) for row in conn.execute("SELECT message FROM agent_messages WHERE role='tool'")]
    conn.close()
    assert stored[1]["content"] == "[redacted by policy]"  # what the model saw is what is stored


@pytest.mark.parametrize("fail_closed", [False, True])
def test_crashing_hook_warns_or_blocks_with_fail_closed(cli, fake, astro_env, workspace, fail_closed):
    configure(workspace, {"PreToolUse": entry("echo 'policy server down' >&2; exit 1", matcher="run_bash")},
              fail_closed=fail_closed)
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": {"command": "touch ran.txt"}}]}, {"text": "ok"})
    result, _ = run(cli, astro_env, "go", "--yes")
    [output] = tool_results(fake.bodies()[1])
    warning = "the PreToolUse hook `echo 'policy server down' >&2; exit 1` failed (exit 1): policy server down"
    if fail_closed:
        assert output.startswith(f"Error: run_bash was blocked: {warning}")
        assert "fail_closed" in output
        assert not (workspace / "ran.txt").exists()
    else:
        assert "[exit code 0]" in output
        assert (workspace / "ran.txt").exists()
    assert warning in result.stderr


def test_hook_that_cannot_start_is_reported_once(cli, fake, astro_env, workspace):
    configure(workspace, {"PreToolUse": entry("/nonexistent/policy-check --strict")})
    (workspace / "a.txt").write_text("alpha\n")
    fake.add(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "ok"},
    )
    result, out = run(cli, astro_env, "go")
    assert out["answer"] == "ok"
    assert result.stderr.count("could not be started") == 1
    assert "/nonexistent/policy-check --strict" in result.stderr
    assert all("alpha" in r for r in tool_results(fake.bodies()[2]))


def test_hook_timeout_is_a_warning(cli, fake, astro_env, workspace):
    finished = workspace / "hook-finished"
    configure(workspace, {"PostToolUse": entry(f"sleep 5; touch {finished}", timeout=0.3)})
    (workspace / "a.txt").write_text("alpha\n")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}, {"text": "ok"})
    result, out = run(cli, astro_env, "go")
    # The order of events, not a clock: the run ended before the hook could finish its sleep.
    assert not finished.exists(), "the run waited for the hook past its timeout"
    assert "did not finish within 0.3 s" in result.stderr
    assert "alpha" in tool_results(fake.bodies()[1])[0]


def test_prompt_and_session_start_hooks_add_context(cli, fake, astro_env, workspace):
    configure(workspace, {
        "SessionStart": entry('echo \'{"additionalContext": "Project: Cepheid distances."}\''),
        "UserPromptSubmit": entry("echo 'The user works on M31.'"),
    })
    fake.add({"text": "ok"})
    run(cli, astro_env, "What distance?")
    messages = fake.bodies()[0]["messages"]
    user = [m["content"] for m in messages if m["role"] == "user"]
    assert user[:3] == ["What distance?", "Project: Cepheid distances.", "The user works on M31."]
    assert "M31" not in messages[0]["content"]  # context is a message, never a system prompt edit


def test_bad_hook_config_is_reported_not_fatal(cli, fake, astro_env, workspace):
    configure(workspace, {"PreToolUse": [{"matcher": "([", "hooks": [{"command": "true"}]}],
                          "OnLunch": entry("true")})
    fake.add({"text": "ok"})
    result, out = run(cli, astro_env, "go")
    assert out["answer"] == "ok"
    assert "not a valid regular expression" in result.stderr
    assert "unknown event 'OnLunch'" in result.stderr


def test_subagent_start_hook_can_refuse_a_subagent_and_others_cannot_block(cli, fake, astro_env, workspace):
    configure(workspace, {
        "SubagentStart": entry("echo 'no delegation during the observing run' >&2; exit 2", matcher="sub.*"),
        "StepComplete": entry("echo 'too many steps' >&2; exit 2"),
    })
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "survey five papers"}}]},
        {"text": "I will do it myself."},
    )
    result, out = run(cli, astro_env, "go")
    assert out["answer"] == "I will do it myself."
    [refusal] = tool_results(fake.bodies()[1])
    assert refusal == "Error: the subagent was not started: no delegation during the observing run"
    conn = sqlite3.connect(workspace / ".astro" / "astro.db")
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
    conn.close()
    assert "a StepComplete hook asked to block, which this event cannot do: too many steps" in result.stderr
