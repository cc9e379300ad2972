"""`astro keys`, the model astro really uses (config show, prompt show, {{model}}) and the two
provider errors a new researcher meets first: nothing listening, and a refused key."""

from __future__ import annotations

import json
import os
import re
import stat
import time

import pytest
import yaml

from tests.conftest import CLOSED, base_env
from tests.helpers import trust_workspace

KEY = "sk-proj-stored-key-abcdefghij0123"


def _home(workspace):
    return workspace.parent / "astro-home"


def test_keys_set_list_remove_keep_the_file_0600_and_never_print_a_key(cli, workspace):
    env = base_env(workspace.parent)
    result = cli(["keys", "set", "openai"], env=env, input=KEY + "\n")
    assert result.exit_code == 0, result.stderr
    path = _home(workspace) / "keys.yaml"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert yaml.safe_load(path.read_text()) == {"openai": KEY}
    cli(["keys", "set", "ads"], env=env, input="ads-token-0123456789abcdef\n")
    listed = cli(["keys", "list", "--json"], env=dict(env, ANTHROPIC_API_KEY="sk-ant-from-the-shell-999999"))
    rows = {row["provider"]: row for row in json.loads(listed.stdout)}
    assert rows["openai"]["source"] == "keys.yaml" and rows["openai"]["key"] == "sk-…0123"
    assert rows["anthropic"]["source"] == "env ANTHROPIC_API_KEY"
    assert rows["ads"]["variable"] == "ADS_API_TOKEN"
    text = cli(["keys", "list"], env=env).stdout
    assert KEY not in text and KEY not in listed.stdout and "sk-…0123" in text
    # The environment wins, and list says the stored key is then unused.
    both = json.loads(cli(["keys", "list", "--json"], env=dict(env, OPENAI_API_KEY="sk-shell-0000000000000"))
                      .stdout)
    assert next(r for r in both if r["provider"] == "openai")["source"].startswith("env OPENAI_API_KEY (keys.yaml")
    assert cli(["keys", "remove", "openai"], env=env).exit_code == 0
    assert yaml.safe_load(path.read_text()) == {"ads": "ads-token-0123456789abcdef"}
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again = cli(["keys", "remove", "openai"], env=env)
    assert again.exit_code == 1 and "no openai key" in again.stderr


def test_a_narrower_mode_is_kept_and_a_bad_provider_name_is_one_sentence(cli, workspace):
    env = base_env(workspace.parent)
    cli(["keys", "set", "gemini"], env=env, input="AIza-gemini-key-0123456789\n")
    path = _home(workspace) / "keys.yaml"
    os.chmod(path, 0o400)
    assert cli(["keys", "set", "mistral"], env=env, input="mistral-key-0123456789\n").exit_code == 0
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o400  # never widened
    bad = cli(["keys", "set", "../etc"], env=env, input="x\n")
    assert bad.exit_code == 2 and "not a provider name" in bad.stderr


def test_a_stored_key_picks_the_model_and_reaches_the_provider(cli, fake, workspace):
    env = dict(base_env(workspace.parent), ASTRO_API_BASE=fake.openai_url)
    cli(["keys", "set", "openai"], env=env, input=KEY + "\n")
    shown = json.loads(cli(["config", "show", "--json"], env=env).stdout)
    model = next(row for row in shown if row["key"] == "model")
    assert model["value"] == "openai/gpt-4.1" and model["source"] == "picked from the openai key in keys.yaml"
    fake.add({"text": "Hi."})
    result = cli(["run", "hello"], env=env)
    assert result.exit_code == 0, result.stderr
    headers = {k.lower(): v for k, v in fake.requests[0]["headers"].items()}
    assert headers["authorization"] == f"Bearer {KEY}"
    assert fake.bodies()[0]["model"] == "gpt-4.1"


def test_config_and_prompt_show_report_the_model_that_will_be_used_and_why(cli, workspace):
    env = dict(base_env(workspace.parent), OPENAI_API_KEY="sk-only-this-key-0000000000", COLUMNS="200")
    rows = {row["key"]: row for row in json.loads(cli(["config", "show", "--json"], env=env).stdout)}
    assert rows["model"]["value"] == "openai/gpt-4.1" and rows["model"]["source"] == "picked from OPENAI_API_KEY"
    table = cli(["config", "show"], env=env).stdout
    assert re.search(r"model\s+openai/gpt-4\.1\s+\(picked from OPENAI_API_KEY\)", table)
    assert "tool-using steps per turn before a final answer is asked for" in table  # the help text of max_steps
    assert "seconds before a model request times out" in table
    report = json.loads(cli(["prompt", "show", "--json"], env=env).stdout)
    assert report["model"] == "openai/gpt-4.1" and report["model_origin"] == "picked from OPENAI_API_KEY"
    assert "model: openai/gpt-4.1" in report["environment"]
    printed = cli(["prompt", "show"], env=env).stdout
    assert "model: openai/gpt-4.1 (picked from OPENAI_API_KEY)" in printed
    assert "(not configured)" not in printed


def test_the_model_prompt_variable_is_the_chosen_model(cli, workspace):
    (workspace / ".astro").mkdir()
    (workspace / ".astro" / "config.yaml").write_text("persona: You run on {{model}}.\n")
    trust_workspace(workspace)  # a project's persona enters the prompt only in a trusted folder
    env = dict(base_env(workspace.parent), GEMINI_API_KEY="AIza-only-gemini-000000000")
    report = json.loads(cli(["prompt", "show", "--json"], env=env).stdout)
    persona = next(s for s in report["sections"] if s["name"] == "persona")
    assert persona["text"] == "You run on gemini/gemini-2.5-pro."


@pytest.mark.waits  # waits out the retry back-off on purpose: not in test-fast
def test_nothing_listening_is_one_sentence_naming_the_address_after_one_retry(cli, workspace):
    backoff = 1.0
    env = dict(base_env(workspace.parent), ASTRO_MODEL="openai/gpt-4.1", ASTRO_API_BASE=CLOSED + "/v1",
               ASTRO_API_KEY="sk-test-0000000000", ASTRO_RETRY_BACKOFF="0")
    # The same run without a backoff first: the baseline (and any first import) on this machine, now.
    started = time.monotonic()
    assert cli(["run", "--output-format", "json", "hello"], env=env).exit_code == 3
    baseline = time.monotonic() - started
    started = time.monotonic()
    result = cli(["run", "--output-format", "json", "hello"], env=dict(env, ASTRO_RETRY_BACKOFF=str(backoff)))
    waited = time.monotonic() - started - baseline
    assert result.exit_code == 3
    error = json.loads(result.stdout.strip().splitlines()[-1])["error"]
    assert error.startswith(f"could not connect to {CLOSED}/v1 (connection refused)")
    assert "InternalServerError" not in error and "OpenAIException" not in error
    retries = [line for line in result.stderr.splitlines() if "retry" in line]
    assert len(retries) == 1 and "retry 1/1" in retries[0]  # num_retries is 3; a refused connection gets one
    # One backoff over the baseline, not 1 + 2 + 4 s of three (two would already be 3 s).
    assert waited < 2.5 * backoff, f"{waited:.1f} s of backoff"


def test_ollama_not_running_says_so(cli, workspace):
    env = dict(base_env(workspace.parent), ASTRO_MODEL="ollama_chat/llama3.1:8b", ASTRO_API_BASE=CLOSED)
    result = cli(["run", "hello"], env=env)
    assert result.exit_code == 3
    assert f"could not connect to {CLOSED} (connection refused); is Ollama running (`ollama serve`)?" in result.stderr


def test_a_refused_key_names_where_the_key_came_from(cli, fake, workspace):
    base = dict(base_env(workspace.parent), ASTRO_API_BASE=fake.openai_url)
    fake.add({"status": 401, "error": "Incorrect API key provided"})
    from_env = cli(["run", "hello"], env=dict(base, OPENAI_API_KEY="sk-wrong-0000000000"))
    assert "refused the key for openai/gpt-4.1 (HTTP 401: Incorrect API key provided); check OPENAI_API_KEY." \
        in from_env.stderr
    cli(["keys", "set", "openai"], env=base, input=KEY + "\n")
    fake.add({"status": 401, "error": "Incorrect API key provided"})
    from_store = cli(["run", "hello"], env=base)
    assert "check the openai key in keys.yaml (`astro keys set openai` replaces it)." in from_store.stderr
    assert KEY not in from_store.stderr + from_store.stdout
    assert from_env.exit_code == from_store.exit_code == 3


def test_the_repl_config_command_names_the_picked_model_too(repl, monkeypatch):
    monkeypatch.delenv("ASTRO_MODEL")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-only-this-key-0000000000")
    repl.app.settings.values.pop("model", None)
    output = repl.type_and_run("/config model\r/clear\r/config model\r\x04")
    # The session owns its model: the one it started with, until a new session picks again.
    assert re.search(r"model\s+openai/fake-model\s+this session", output)
    assert re.search(r"model\s+openai/gpt-4\.1\s+picked from OPENAI_API_KEY", output)
