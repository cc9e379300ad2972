"""`astro run` end to end: the real command, the real litellm, the fake provider on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from tests.fakeprovider import FakeProvider
from tests.helpers import last_json


def test_multi_step_tool_using_answer(cli, fake: FakeProvider, astro_env, workspace):
    (workspace / "targets.txt").write_text("M31\nM51\nNGC 1275\n")
    fake.add(
        {"text": "Let me look.", "tool_calls": [{"name": "glob_files", "arguments": {"pattern": "*.txt"}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "targets.txt"}}]},
        {"text": "Your list has **three** targets: M31, M51 and NGC 1275."},
    )
    result = cli(["run", "--output-format", "json", "How many targets are in my list?"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    obj = last_json(result.stdout)
    assert obj["type"] == "result" and obj["is_error"] is False
    assert obj["answer"].startswith("Your list has **three** targets")
    assert obj["num_steps"] == 3
    assert obj["tool_calls"] == [{"name": "glob_files", "ok": True}, {"name": "read_file", "ok": True}]
    assert obj["usage"]["input_tokens"] == 300 and obj["usage"]["output_tokens"] == 60
    assert obj["cost_usd"] is None  # litellm has no price for the fake model: null, not a crash
    # The model saw the file's content as a tool result.
    third = fake.bodies()[2]["messages"]
    assert any(m["role"] == "tool" and "NGC 1275" in m["content"] for m in third)


def test_text_output_goes_to_stdout_and_tool_lines_to_stderr(cli, fake, astro_env, workspace):
    (workspace / "a.txt").write_text("alpha\n")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}, {"text": "It says alpha."})
    result = cli(["run", "What does a.txt say?"], env=astro_env)
    assert result.exit_code == 0
    assert result.stdout.strip() == "It says alpha."
    assert "read_file" in result.stderr and "a.txt" in result.stderr


def test_malformed_arguments_and_unknown_tool_become_error_results(cli, fake, astro_env, workspace):
    fake.add(
        {"tool_calls": [{"name": "read_file", "arguments": '{"path": "a.txt"'}]},
        {"tool_calls": [{"name": "launch_rocket", "arguments": {}}]},
        {"text": "I could not read it."},
    )
    result = cli(["run", "--output-format", "json", "Read a.txt"], env=astro_env)
    assert result.exit_code == 0
    obj = last_json(result.stdout)
    assert obj["tool_calls"] == [{"name": "read_file", "ok": False}, {"name": "launch_rocket", "ok": False}]
    second = fake.bodies()[1]["messages"]
    bad = [m for m in second if m["role"] == "tool"][-1]["content"]
    assert "not valid JSON" in bad
    third = fake.bodies()[2]["messages"]
    unknown = [m for m in third if m["role"] == "tool"][-1]["content"]
    assert "no tool named 'launch_rocket'" in unknown and "read_file" in unknown


def test_provider_500_then_success_is_retried(cli, fake, astro_env):
    fake.add({"status": 500, "error": "overloaded"}, {"text": "Answer after a retry."})
    result = cli(["run", "Hello?"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "Answer after a retry."
    assert "retry 1/3" in result.stderr
    assert len(fake.requests) == 2


def test_provider_that_keeps_failing_exits_3(cli, fake, astro_env):
    fake.add(*[{"status": 503, "error": "down for maintenance"}] * 4)
    result = cli(["run", "--output-format", "json", "Hello?"], env=astro_env)
    assert result.exit_code == 3
    obj = last_json(result.stdout)
    assert obj["is_error"] is True and obj["stop_reason"] == "provider_error"
    assert "down for maintenance" in obj["error"]
    assert len(fake.requests) == 4  # 1 + num_retries (3)
    assert "Traceback" not in result.stderr


def test_non_retryable_error_fails_at_once(cli, fake, astro_env):
    fake.add({"status": 401, "error": "invalid x-api-key"})
    result = cli(["run", "Hello?"], env=astro_env)
    assert result.exit_code == 3
    assert len(fake.requests) == 1
    assert "invalid x-api-key" in result.stderr
    assert "Traceback" not in result.stderr


def test_step_budget_exhaustion_exits_4(cli, fake, astro_env, workspace):
    (workspace / "a.txt").write_text("a\n")
    loop = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    fake.add(loop, loop, loop, {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]})
    result = cli(["run", "--max-steps", "3", "--output-format", "json", "Loop forever"], env=astro_env)
    assert result.exit_code == 4
    obj = last_json(result.stdout)
    assert obj["stop_reason"] == "max_steps" and obj["num_steps"] == 4
    final = fake.bodies()[3]
    assert final["tool_choice"] == "none"
    assert any("budget is 3" in (m.get("content") or "") for m in final["messages"] if m["role"] == "user")


def test_budget_reached_but_final_answer_given_exits_0(cli, fake, astro_env, workspace):
    (workspace / "a.txt").write_text("a\n")
    loop = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    fake.add(loop, loop, {"text": "From what I gathered: the file contains 'a'."})
    result = cli(["run", "--max-steps", "2", "What is in a.txt?"], env=astro_env)
    assert result.exit_code == 0
    assert "contains 'a'" in result.stdout


def test_continue_appends_to_the_latest_session(cli, fake, astro_env):
    fake.add({"text": "The Hubble constant is about 70 km/s/Mpc."}, {"text": "Planck 2018 gives 67.4."})
    first = last_json(cli(["run", "--output-format", "json", "What is H0?"], env=astro_env).stdout)
    second = last_json(cli(["run", "--continue", "--output-format", "json", "And Planck?"], env=astro_env).stdout)
    assert first["session_id"] == second["session_id"]
    messages = fake.bodies()[1]["messages"]
    contents = [m.get("content") for m in messages]
    assert "What is H0?" in contents and "The Hubble constant is about 70 km/s/Mpc." in contents
    assert contents[-2] == "And Planck?"


def test_resume_unknown_session_is_a_usage_error(cli, fake, astro_env):
    result = cli(["run", "--resume", "nosuchid", "Hi"], env=astro_env)
    assert result.exit_code == 2
    assert "No session 'nosuchid'" in result.stderr
    assert fake.requests == []


def test_astro_events_prints_events_then_result(cli, fake, astro_env):
    fake.add({"text": "Streaming works."})
    result = cli(["run", "--output-format", "astro-events", "Test"], env=astro_env)
    lines = [json.loads(line) for line in result.stdout.strip().splitlines()]
    types = [line["type"] for line in lines]
    assert types[0] == "turn_started"
    assert "text_delta" in types and "usage" in types
    assert types[-1] == "result" and lines[-1]["answer"] == "Streaming works."


def test_write_tools_are_refused_without_permission(cli, fake, astro_env, workspace):
    call = {"tool_calls": [{"name": "file_write", "arguments": {"path": "out.md", "content": "# notes"}}]}
    fake.add(call, {"text": "I was not allowed."})
    result = cli(["run", "--output-format", "json", "Write notes"], env=astro_env)
    assert result.exit_code == 0
    assert not (workspace / "out.md").exists()
    refusal = [m for m in fake.bodies()[1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "needs permission" in refusal and "--allow file_write" in refusal


def test_allow_flag_permits_and_config_deny_wins(cli, fake, astro_env, workspace):
    call = {"tool_calls": [{"name": "file_write", "arguments": {"path": "out.md", "content": "# notes"}}]}
    fake.add(call, {"text": "Written."})
    assert cli(["run", "--allow", "file_write", "Write notes"], env=astro_env).exit_code == 0
    assert (workspace / "out.md").read_text() == "# notes"

    (workspace / ".astro" / "config.yaml").write_text("permissions:\n  deny: [run_bash]\n")
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": {"command": "touch pwned"}}]}, {"text": "Denied."})
    assert cli(["run", "--yes", "Run it"], env=astro_env).exit_code == 0
    assert not (workspace / "pwned").exists()
    refusal = [m for m in fake.bodies()[-1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "denied by config" in refusal


def test_paths_outside_the_workspace_are_refused(cli, fake, astro_env, workspace, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    (workspace / "link.txt").symlink_to(secret)
    fake.add(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "../secret.txt"}},
                        {"name": "read_file", "arguments": {"path": "link.txt"}},
                        {"name": "read_file", "arguments": {"path": str(secret)}}]},
        {"text": "Refused."},
    )
    cli(["run", "Read the secret"], env=astro_env)
    results = [m["content"] for m in fake.bodies()[1]["messages"] if m["role"] == "tool"]
    assert len(results) == 3
    assert all("outside the workspace" in r for r in results)
    assert not any("top secret" in r for r in results)


def test_run_bash_output_is_cut_and_reports_exit_code(cli, fake, astro_env, workspace):
    (workspace / ".astro").mkdir(exist_ok=True)
    (workspace / ".astro" / "config.yaml").write_text("bash:\n  max_output_chars: 200\n")
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": {"command": "seq 1 5000; exit 3"}}]}, {"text": "Done."})
    cli(["run", "--allow", "run_bash", "Count"], env=astro_env)
    output = [m["content"] for m in fake.bodies()[1]["messages"] if m["role"] == "tool"][-1]
    assert "characters cut" in output and "[exit code 3]" in output
    assert len(output) < 400


def test_secrets_never_reach_the_database(cli, fake, astro_env, workspace):
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": {"command": "env"}}]}, {"text": "ok"})
    cli(["run", "--allow", "run_bash", "Show the environment"], env=astro_env)
    data = b"".join(p.read_bytes() for p in (workspace / ".astro").glob("astro.db*"))
    assert astro_env["ASTRO_API_KEY"].encode() not in data
    tool_output = [m["content"] for m in fake.bodies()[1]["messages"] if m["role"] == "tool"][-1]
    assert astro_env["ASTRO_API_KEY"] not in tool_output  # commands run without API keys in their environment


@pytest.mark.waits  # waits out a 1 s request timeout on purpose: not in test-fast
def test_request_timeout_is_retried(cli, fake, astro_env):
    # The fake provider is on 127.0.0.1, a local server, whose first token may otherwise take 600 s.
    env = dict(astro_env, ASTRO_TIMEOUT="1", ASTRO_FIRST_TOKEN_TIMEOUT="1")
    fake.add({"text": "too late", "delay": 2.5}, {"text": "On time."})
    result = cli(["run", "Hello?"], env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "On time."
    assert "retry 1/3" in result.stderr


def test_cost_is_computed_for_a_priced_model(cli, fake, anthropic_env):
    fake.add({"text": "Priced.", "usage": {"input_tokens": 1000, "output_tokens": 100,
                                           "cache_read_input_tokens": 400, "cache_creation_input_tokens": 200}})
    result = cli(["run", "--output-format", "json", "Hi"], env=anthropic_env)
    obj = last_json(result.stdout)
    assert obj["usage"]["cache_read_input_tokens"] == 400
    assert obj["usage"]["cache_creation_input_tokens"] == 200
    assert isinstance(obj["cost_usd"], float) and obj["cost_usd"] > 0


def test_a_session_left_without_a_question_leaves_no_row(workspace, astro_env, fake):
    import os

    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.bootstrap import build_app
    old = dict(os.environ)
    os.environ.update(astro_env)
    try:
        app = build_app(workspace=workspace)
        session = open_session(app, EventBus(), permission_policy(app))
        session.stop("exit")
        assert app.sessions.list() == []
        app.close()
    finally:
        os.environ.clear()
        os.environ.update(old)


def test_subagent_tokens_count_in_the_callers_turn(cli, fake, astro_env):
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "Find the redshift of NGC 1275."}}]},
        {"text": "z = 0.0176", "usage": {"input_tokens": 500, "output_tokens": 50}},
        {"text": "NGC 1275 is at z = 0.0176."},
    )
    result = cli(["run", "--output-format", "json", "Redshift of NGC 1275?"], env=astro_env)
    obj = last_json(result.stdout)
    assert obj["answer"] == "NGC 1275 is at z = 0.0176."
    # 2 requests of the caller (100 in, 20 out each) plus the subagent's 500 in, 50 out.
    assert obj["usage"]["input_tokens"] == 700 and obj["usage"]["output_tokens"] == 90
    listing = cli(["sessions", "list", "--json"], env=astro_env)
    row = json.loads(listing.stdout)[0]
    assert row["tokens"] == 790


def test_missing_provider_key_is_a_configuration_error(cli, fake, workspace):
    from tests.conftest import base_env

    env = dict(base_env(workspace.parent), ASTRO_MODEL="anthropic/claude-sonnet-4-5")
    result = cli(["run", "Hi"], env=env)
    assert result.exit_code == 2
    assert "needs ANTHROPIC_API_KEY" in result.stderr and "Traceback" not in result.stderr
    assert fake.requests == []
    # The question is kept (--resume continues it once the key is set), out of the plain list.
    assert json.loads(cli(["sessions", "list", "--json"], env=env).stdout) == []
    listing = json.loads(cli(["sessions", "list", "--all", "--json"], env=env).stdout)
    assert listing and listing[0]["messages"] == 1
