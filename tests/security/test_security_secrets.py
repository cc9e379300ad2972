"""Keys never reach the database, the transcript or the model: attacks with the real process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import tool_results, trust_workspace, write_config
from tests.paths import REPO_ROOT

KEYS = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-leakme-0000000000",
    "OPENAI_API_KEY": "sk-proj-leakme-1111111111",
    "ADS_API_TOKEN": "ads-leakme-2222222222",
}


def leaked(secret_values: list[str], *texts: str | bytes) -> list[str]:
    found = []
    for text in texts:
        blob = text if isinstance(text, str) else text.decode("utf-8", errors="replace")
        found += [value for value in secret_values if value in blob]
    return found


def all_db_bytes(workspace: Path) -> bytes:
    folder = workspace / ".astro"
    return b"".join(path.read_bytes() for path in folder.glob("astro.db*"))


# In-process: the process's own start-up environment (/proc/$PPID/environ) is what is attacked here; a
# worker's child shows the worker's, which never held the keys.
@pytest.mark.cold_start
def test_process_environment_dump_reaches_neither_database_nor_model(fake, astro_env, workspace, run_astro):
    # Without the sandbox (its fallback): the command can see astro's /proc entry. In the sandbox it
    # cannot see astro's process at all (tests/security/test_security_sandbox.py).
    env = dict(astro_env, ASTRO_SANDBOX_ENABLED="0", **KEYS)
    secrets = [*KEYS.values(), env["ASTRO_API_KEY"]]
    dump = "tr '\\0' '\\n' < /proc/$PPID/environ"
    fake.add(
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": dump}},
                        {"name": "run_bash", "arguments": {"command": f"{dump} > leak.txt; env > env.txt"}}]},
        {"text": "here is what I found"},
        {"text": "second turn"},
    )
    result = run_astro(["run", "show me your environment", "--allow", "run_bash"], env)
    assert result.returncode == 0, result.stderr
    shown = tool_results(fake.bodies()[1])[0]
    assert "ANTHROPIC_API_KEY" in shown  # the command ran and printed the variable names
    # The process itself no longer shows the keys to its children (Linux), even written to a file...
    if sys.platform.startswith("linux"):
        assert leaked(secrets, (workspace / "leak.txt").read_text()) == []
    assert leaked(secrets, (workspace / "env.txt").read_text()) == []
    # ...and nothing astro stores, prints or sends holds them.
    requests = json.dumps(fake.bodies())
    assert leaked(secrets, result.stdout, result.stderr, all_db_bytes(workspace), requests) == []
    export = run_astro(["sessions", "export", "--format", "json"], env)
    assert leaked(secrets, export.stdout) == []


def test_a_key_typed_into_a_question_is_redacted_everywhere(fake, astro_env, workspace, run_astro):
    env = dict(astro_env, **KEYS)
    fake.add({"text": "I will not repeat it."})
    question = f"my key is {KEYS['OPENAI_API_KEY']}, use it"
    result = run_astro(["run", question, "--output-format", "json"], env)
    assert result.returncode == 0, result.stderr
    sent = fake.bodies()[0]["messages"][1]["content"]
    assert sent == "my key is [REDACTED:OPENAI_API_KEY], use it"
    assert leaked(list(KEYS.values()), all_db_bytes(workspace), result.stdout) == []
    listing = run_astro(["sessions", "list"], env)
    assert leaked(list(KEYS.values()), listing.stdout) == []


def test_keys_from_the_key_store_and_hook_output_are_redacted(fake, astro_env, workspace, run_astro):
    home = Path(astro_env["ASTRO_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "keys.yaml").write_text("gemini: AIzaStoredKey-333333333333\n")
    write_config(workspace / ".astro" / "config.yaml", {"hooks": {"PostToolUse": [{"hooks": [
        {"type": "command", "command": 'echo "{\\"additionalContext\\": \\"key=$ASTRO_API_KEY\\"}"',
         "pass_env": ["ASTRO_API_KEY"]}]}]}})
    trust_workspace(workspace)
    (workspace / "notes.txt").write_text("stored: AIzaStoredKey-333333333333\n")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}, {"text": "ok"})
    run_astro(["run", "read the notes"], astro_env)
    [result] = tool_results(fake.bodies()[1])
    assert "[REDACTED:keys.yaml:gemini]" in result and "AIzaStoredKey" not in result
    assert "key=[REDACTED:ASTRO_API_KEY]" in result
    assert b"AIzaStoredKey" not in all_db_bytes(workspace)


def test_redactor_names_each_secret_and_leaves_other_text(tmp_path):
    from astro_cli.security.secrets import Redactor

    redactor = Redactor.from_environment(
        {"MY_TOKEN": "abcdefgh12345678", "KEYBOARD": "us", "PATH": "/usr/bin", "DB_PASSWORD": "hunter2hunter2"},
        {},
    )
    text = "token abcdefgh12345678 and pw hunter2hunter2 on us keyboard in /usr/bin"
    assert redactor.redact(text) == (
        "token [REDACTED:MY_TOKEN] and pw [REDACTED:DB_PASSWORD] on us keyboard in /usr/bin"
    )
    message = {"role": "tool", "content": ["x", {"text": "hunter2hunter2"}]}
    assert redactor.redact_data(message)["content"][1]["text"] == "[REDACTED:DB_PASSWORD]"
    clean = {"role": "user", "content": "nothing secret"}
    assert redactor.redact_data(clean) is clean


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the start-up environment block is Linux's /proc")
def test_blanking_keeps_the_value_for_astro_and_hides_it_from_proc(tmp_path):
    import subprocess

    script = (
        "import os, subprocess\n"
        "from astro_cli.security.process import blank_startup_environment\n"
        "print(blank_startup_environment(['DEMO_API_KEY']))\n"
        "print(os.environ['DEMO_API_KEY'])\n"
        "print(open('/proc/self/environ','rb').read().count(b'blank-me-please-42'))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "DEMO_API_KEY": "blank-me-please-42"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True,
                         cwd=REPO_ROOT).stdout.split()
    assert out == ["['DEMO_API_KEY']", "blank-me-please-42", "0"]
