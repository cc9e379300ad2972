"""The first run with no model, in a real terminal (pexpect): a local Ollama found and chosen, a
provider's key typed with hidden input, and `astro run`, which never asks."""

from __future__ import annotations

import os
import sqlite3
import stat
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import base_env
from tests.fakeollama import FakeOllama
from tests.paths import FIXTURES_DIR

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.slow

PROMPT = "\n> "


def spawn(env: dict[str, str], workspace: Path):
    env = dict(env, TERM="dumb", COLUMNS="100", LINES="40")
    return pexpect.spawn(sys.executable, ["-m", "astro_cli"], env=env, cwd=str(workspace), encoding="utf-8",
                         timeout=120, dimensions=(40, 100))


def quit_with_ctrl_d(child) -> None:
    assert child.waitnoecho(timeout=60)  # prompt-toolkit's raw mode: the key reaches astro, not the tty
    child.sendcontrol("d")
    child.expect(pexpect.EOF)


@pytest.fixture
def ollama():
    server = FakeOllama(
        [("llama3.1:8b", ["completion", "tools"]), ("gemma3:4b", ["completion", "vision"]), ("mistral:7b", None)],
        replies=["Hello from the local model."],
    )
    yield server
    server.close()


def test_a_local_ollama_is_found_offered_and_written_to_the_user_config(ollama, workspace, tmp_path):
    env = dict(base_env(tmp_path), ASTRO_OLLAMA_URL=ollama.url)
    child = spawn(env, workspace)
    child.expect("Welcome to astro")
    child.expect(f"Ollama at {ollama.url} has 2 model\\(s\\) that can call tools")
    child.expect(r"1\. llama3\.1:8b \(8\.0B, Q4_K_M\)")
    child.expect(r"2\. mistral:7b \(8\.0B, Q4_K_M\) · tool support unknown")
    child.expect(r"3\. Qwen2\.5-Coder-1\.5B-Instruct Q4_K_M \(1\.1 GB, Apache-2\.0\)")  # astro can download it
    child.expect(r"4\. Anthropic")
    child.expect_exact("choose 1-9 (q to quit): ")
    before = child.before
    assert "gemma3" not in before  # the server says it cannot call tools
    child.sendline("1")
    child.expect("Saved model: ollama_chat/llama3.1:8b")
    child.expect(r"astro \S+ · ollama_chat/llama3\.1:8b")
    child.expect(PROMPT)
    child.sendline("hello?")
    child.expect("Hello from the local model.")
    child.expect(PROMPT)
    quit_with_ctrl_d(child)
    child.close()
    assert child.exitstatus == 0
    config = yaml.safe_load((tmp_path / "astro-home" / "config.yaml").read_text())
    assert config == {"model": "ollama_chat/llama3.1:8b", "api_base": ollama.url}
    chat = ollama.chat_bodies()
    assert len(chat) == 1 and chat[0]["model"] == "llama3.1:8b" and chat[0]["tools"]  # astro's tools went along


def test_a_providers_key_is_read_hidden_kept_0600_and_used(fake, workspace, tmp_path):
    key = "sk-ant-first-run-secret-0123456789"
    fake.add({"text": "Claude here."})
    env = dict(base_env(tmp_path), ASTRO_API_BASE=fake.url)  # no model, no key: only where requests go
    child = spawn(env, workspace)
    child.expect(f"No Ollama server answers at {env['ASTRO_OLLAMA_URL']}")
    child.expect(r"2\. Anthropic \(Claude\)")
    child.expect_exact("choose 1-7 (q to quit): ")
    child.sendline("9")
    child.expect("type a number from 1 to 7, or q")
    child.expect_exact("choose 1-7 (q to quit): ")
    child.sendline("2")
    child.expect("Paste your Anthropic \\(Claude\\) API key")
    child.expect_exact("key: ")
    child.sendline(key)
    child.expect("Saved the anthropic key in")
    child.expect(r"astro \S+ · anthropic/claude-sonnet-4-5")
    child.expect(PROMPT)
    child.sendline("who are you?")
    child.expect("Claude here.")
    child.expect(PROMPT)
    quit_with_ctrl_d(child)
    transcript = child.before
    child.close()
    assert child.exitstatus == 0
    keys = tmp_path / "astro-home" / "keys.yaml"
    assert stat.S_IMODE(os.stat(keys).st_mode) == 0o600
    assert yaml.safe_load(keys.read_text()) == {"anthropic": key}
    assert fake.requests[0]["headers"].get("x-api-key") == key  # the stored key is the one sent
    # Hidden input: the key never appeared on the screen, in the history file or in the database.
    assert key not in transcript
    assert key not in (tmp_path / "astro-home" / "history").read_text()
    with sqlite3.connect(workspace / ".astro" / "astro.db") as db:
        assert not any(key in str(row) for row in db.execute("SELECT * FROM agent_messages"))


def test_enter_without_a_key_says_which_variable_to_set_and_exits_2(workspace, tmp_path):
    child = spawn(base_env(tmp_path), workspace)
    child.expect_exact("choose 1-7 (q to quit): ")
    child.sendline("3")
    child.expect_exact("key: ")
    child.sendline("")
    child.expect(r"export OPENAI_API_KEY=\.\.\.\) or run `astro keys set openai`")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert not (tmp_path / "astro-home" / "keys.yaml").exists()


@pytest.mark.cold_start  # the first run of a new user: no worker yet
def test_astro_run_never_asks(run_astro, workspace, tmp_path):
    out = run_astro(["run", "hello"], env=base_env(tmp_path), input="")
    assert out.returncode == 2
    assert "No model is configured" in out.stderr and "astro keys set" in out.stderr
    assert "choose 1-" not in out.stdout + out.stderr and "Welcome" not in out.stdout


def test_a_llama_cpp_server_is_found_offered_and_chosen_with_the_small_profile(fake, workspace, tmp_path):
    """Issue 32: an OpenAI-compatible local server (llama.cpp's real /v1/models listing) is offered
    next to the providers; choosing it writes model and api_base, and its 16k context window
    gives the small profile (the chat request offers only the core tools)."""
    import json

    from astro_cli.config_schema import SCHEMA

    fake.models_listing = json.loads((FIXTURES_DIR / "local_model" /
                                      "llamacpp_v1_models.json").read_text())
    fake.add({"text": "Hello from llama.cpp."})
    env = dict(base_env(tmp_path), ASTRO_LOCAL_SERVERS=f"{fake.url},{base_env(tmp_path)['ASTRO_OLLAMA_URL']}")
    child = spawn(env, workspace)
    child.expect(f"llama.cpp at {fake.url} serves:")
    child.expect(r"1\. qwen2\.5-coder-1\.5b-instruct-q4_k_m\.gguf \(context 16,384 tokens\)")
    child.expect(r"3\. Anthropic")
    child.expect_exact("choose 1-8 (q to quit): ")
    child.sendline("1")
    child.expect(r"Saved model: openai/qwen2\.5-coder-1\.5b-instruct-q4_k_m\.gguf and api_base:")
    child.expect(r"context\s+window\s+is\s+16,384\s+tokens,\s+so\s+astro\s+offers\s+it\s+the\s+small\s+profile")
    child.expect(PROMPT)
    child.sendline("hello?")
    child.expect("Hello from llama.cpp.")
    child.expect(PROMPT)
    quit_with_ctrl_d(child)
    child.close()
    assert child.exitstatus == 0
    config = yaml.safe_load((tmp_path / "astro-home" / "config.yaml").read_text())
    assert config == {"model": "openai/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "api_base": fake.openai_url}
    tools = {t["function"]["name"] for t in fake.bodies()[0]["tools"]}
    assert "read_file" in tools and tools <= set(SCHEMA["small_profile.tools"].default)
