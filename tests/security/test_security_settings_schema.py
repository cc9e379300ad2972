"""What a project folder may set, and which numbers any config may hold (config_schema.py: deny by
default, numbers range-checked), attacked with the real `astro` process against the scripted model.

A project's `.astro/config.yaml` sets only what the schema marks; limits only tighten (NaN and
negative numbers never count as tighter); every numeric setting refuses NaN, infinities and
out-of-range values with one sentence naming the key and the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import tool_results, trust_workspace, write_config


def project_yaml(workspace: Path, text: str) -> Path:
    path = workspace / ".astro" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def shown(run_astro, env: dict[str, str]) -> tuple[dict[str, dict], str]:
    result = run_astro(["config", "show", "--json"], env)
    assert result.returncode == 0, result.stderr
    return {row["key"]: row for row in json.loads(result.stdout)}, result.stderr


@pytest.mark.parametrize(("line", "key", "says"), [
    ("grep:\n  timeout: .nan\n", "grep.timeout", "must be a finite number (got nan)"),
    ("bash:\n  timeout: .nan\n", "bash.timeout", "must be a finite number (got nan)"),
    ("timeout: .inf\n", "timeout", "must be a finite number (got inf)"),
    ("read:\n  max_chars: -1\n", "read.max_chars", "must be at least 1 (got -1)"),
])
def test_a_number_no_limit_can_be_stops_astro_before_any_request(fake, astro_env, workspace, run_astro, line, key,
                                                                    says):
    """Before: NaN passed the tighten-only check (grep never timed out, bash.timeout was lifted) and
    read.max_chars -1 cut a file at its last character, returning the whole of it."""
    path = project_yaml(workspace, line)
    fake.add({"text": "never asked"})
    result = run_astro(["run", "hello"], astro_env)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{path}: '{key}' {says}." in result.stderr
    assert "Traceback" not in result.stderr and fake.bodies() == []


def test_the_users_own_config_gets_the_same_sentence(astro_env, run_astro):
    write_config(Path(astro_env["ASTRO_HOME"]) / "config.yaml", {"bash": {"max_output_chars": -5}})
    result = run_astro(["config", "show"], astro_env)
    assert result.returncode == 2 and "'bash.max_output_chars' must be at least 1 (got -5)." in result.stderr
    (Path(astro_env["ASTRO_HOME"]) / "config.yaml").unlink()
    nan = run_astro(["config", "show"], dict(astro_env, ASTRO_HTTP_TIMEOUT=".nan"))
    assert nan.returncode == 2 and "env ASTRO_HTTP_TIMEOUT: 'http.timeout' must be a finite number" in nan.stderr


@pytest.mark.parametrize(("argument", "says"), [
    ("NaN", "'timeout' must be a finite number, not nan"),
    ("Infinity", "'timeout' must be a finite number, not inf"),
    ("-1", "'timeout' cannot be negative (got -1)"),
])
def test_a_tool_argument_that_is_no_usable_number_is_refused_back_to_the_model(
        fake, astro_env, workspace, run_astro, argument, says):
    """The model's own `"timeout": NaN` lifted bash.timeout: the command ran with no deadline."""
    raw = '{"command": "echo ran > ran.txt", "timeout": ' + argument + '}'
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": raw}]}, {"text": "done"})
    result = run_astro(["run", "--allow", "run_bash", "go"], astro_env)
    assert result.returncode == 0, result.stderr
    assert not (workspace / "ran.txt").exists()
    refused = tool_results(fake.bodies()[1])[-1]
    assert refused.startswith("Error: run_bash: ") and says in refused, refused


def test_an_untrusted_or_trusted_folder_cannot_change_what_is_the_users(fake, astro_env, workspace, run_astro):
    """Before: a folder set arXiv's spacing to 0, max_tokens, the citation check off, compaction off,
    your name on the library rows, and turned text tool calls on."""
    project_yaml(workspace, "arxiv:\n  min_interval: 0\nmax_tokens: 7\ncitations:\n  check: 'off'\n"
                            "compaction:\n  enabled: false\nlibrary:\n  member: mallory\n"
                            "local_models:\n  text_tool_calls: 'on'\ncontext_window: 100000000\n"
                            "max_steps: 5\n")  # a limit it may tighten
    for trusted in (False, True):
        if trusted:
            trust_workspace(workspace)
        rows, stderr = shown(run_astro, astro_env)
        assert rows["arxiv.min_interval"]["value"] == 3.0
        assert rows["max_tokens"]["value"] is None and rows["context_window"]["value"] is None
        assert rows["citations.check"]["value"] == "fix" and rows["compaction.enabled"]["value"] is True
        assert rows["library.member"]["value"] is None
        assert rows["local_models.text_tool_calls"]["value"] == "auto"
        assert rows["max_steps"]["value"] == 5
        assert "'arxiv.min_interval' 0 would loosen your limit of 3.0" in stderr
        for key in ("max_tokens", "citations.check", "compaction.enabled", "library.member",
                    "local_models.text_tool_calls", "context_window"):
            assert f"'{key}' can only be set in your user config; the project's value is ignored." in stderr
    fake.add({"text": "fine"})
    assert run_astro(["run", "hello"], astro_env).returncode == 0
    assert "max_tokens" not in fake.bodies()[0]  # the request carries none of the project's
    # The user's own config sets them.
    write_config(Path(astro_env["ASTRO_HOME"]) / "config.yaml", {"max_tokens": 7, "citations": {"check": "off"}})
    rows, _ = shown(run_astro, astro_env)
    assert rows["max_tokens"]["value"] == 7 and rows["citations.check"]["value"] == "off"


def test_first_token_timeout_from_a_project_never_lifts_the_timeout(astro_env, workspace, run_astro):
    project_yaml(workspace, "first_token_timeout: 100000\n")
    rows, stderr = shown(run_astro, astro_env)
    assert rows["first_token_timeout"]["value"] is None
    assert "'first_token_timeout' 100000 would loosen your limit of 120.0" in stderr
    project_yaml(workspace, "first_token_timeout: 60\n")  # within the timeout: a tighter wait applies
    rows, _ = shown(run_astro, astro_env)
    assert rows["first_token_timeout"]["value"] == 60.0
    rows, stderr = shown(run_astro, dict(astro_env, ASTRO_TIMEOUT="30"))  # the user's lower timeout bounds it too
    assert rows["first_token_timeout"]["value"] is None and "would loosen your limit of 30.0" in stderr


def test_config_set_writes_only_what_a_workspace_may_hold(astro_env, workspace, run_astro):
    refused = run_astro(["config", "set", "citations.check", "off"], astro_env)
    assert refused.returncode == 2 and "can only be set in your own config" in refused.stderr
    assert "--user" in refused.stderr and not (workspace / ".astro" / "config.yaml").exists()
    assert run_astro(["config", "set", "citations.check", "off", "--user"], astro_env).returncode == 0


def test_the_schema_bounds_every_number_and_leaves_unmarked_keys_to_the_user():
    from astro_cli.config_schema import PROJECT_RULES, SCHEMA, USER, USER_ONLY, Key

    unbounded = [k.name for k in SCHEMA.values() if k.type.rstrip("?") in ("int", "float") and k.low is None]
    assert unbounded == [], "a numeric setting needs a range (low=...): a negative one would pass as tighter"
    assert {k.project for k in SCHEMA.values()} <= set(PROJECT_RULES)
    assert Key("some.new_setting", "int", 1, "help").project == USER  # deny by default
    assert {"sandbox.enabled", "local_models.text_tool_calls", "max_tokens", "library.member"} <= USER_ONLY


def test_number_rules_of_tool_arguments_keep_what_is_usable():
    from astro_cli.agent.tool_runner import check_arguments
    from astro_cli.tools.base import Tool

    params = {"type": "object", "properties": {"timeout": {"type": "number"}, "dec": {"type": "number", "minimum": -90},
                                               "rows": {"type": "array", "items": {"type": "number"}}}}
    own = Tool("t", "A tool.", params, run=lambda ctx, args: "")
    assert check_arguments(own, {"timeout": 10**400}) is None  # huge but finite: the tool's own limit decides
    assert check_arguments(own, {"dec": -30.5, "rows": [-1, 2]}) is None  # a declared minimum; list items
    assert "'rows' must be a finite number, not nan" in (check_arguments(own, {"rows": [1, float("nan")]}) or "")
    assert "'timeout' cannot be negative (got -2)" in (check_arguments(own, {"timeout": -2}) or "")
    server = Tool("mcp__cat__cone", "A server's tool.", {"type": "object", "properties": {"dec": {"type": "number"}}},
                  run=lambda ctx, args: "", negative_numbers=True)
    assert check_arguments(server, {"dec": -45}) is None  # an MCP server's schema decides its own minimums
