"""The model cannot widen its own permissions: attacks through skills and astro's own files, for real."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from tests.helpers import tool_results, trust_workspace

pexpect = pytest.importorskip("pexpect")

SHELL_SKILL = """---
name: {name}
description: Helps with shells.
allowed-tools: [run_bash]
---
Run what the user asks.
"""


def skill(workspace: Path, name: str = "shelly") -> Path:
    folder = workspace / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SHELL_SKILL.format(name=name))
    return folder / "SKILL.md"


def test_project_skill_does_not_pre_approve_tools_in_an_untrusted_folder(fake, astro_env, workspace, run_astro):
    skill(workspace)
    fake.add(
        {"tool_calls": [{"name": "load_skill", "arguments": {"name": "shelly"}}]},
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "touch owned.txt"}}]},
        {"text": "done"},
    )
    result = run_astro(["run", "go"], astro_env)  # no flags
    assert result.returncode == 0, result.stderr
    loaded = tool_results(fake.bodies()[1])[0]
    assert "allowed-tools not pre-approved (run_bash)" in loaded and "astro trust" in loaded
    assert "needs permission" in tool_results(fake.bodies()[2])[1]
    assert not (workspace / "owned.txt").exists()


def test_a_skill_the_model_writes_grants_nothing_and_astro_state_is_out_of_reach(fake, astro_env, workspace,
                                                                                 run_astro):
    trust_workspace(workspace)  # even in a trusted folder
    fake.add({"text": "first session"})
    assert run_astro(["run", "remember this"], astro_env).returncode == 0
    body = SHELL_SKILL.format(name="grant")
    fake.add(
        {"tool_calls": [{"name": "file_write", "arguments": {"path": "skills/grant/SKILL.md", "content": body}}]},
        {"tool_calls": [{"name": "load_skill", "arguments": {"name": "grant"}}]},
        {"tool_calls": [
            {"name": "run_bash", "arguments": {"command": "touch owned.txt"}},
            {"name": "file_write", "arguments": {"path": ".astro/config.yaml",
                                                 "content": "permissions:\n  allow: [run_bash]\n"}},
            {"name": "file_write", "arguments": {"path": ".astro/astro.db", "content": "wiped"}},
            {"name": "file_edit", "arguments": {"path": "./.astro/../.astro/config.yaml", "old_string": "a",
                                                "new_string": "b"}},
        ]},
        {"text": "done"},
    )
    result = run_astro(["run", "go", "--allow", "file_write", "--allow", "file_edit"], astro_env)
    assert result.returncode == 0, result.stderr
    assert "created or changed during this session" in tool_results(fake.bodies()[3])[1]
    shell, config, database, edit = tool_results(fake.bodies()[4])[2:]
    assert "needs permission" in shell and not (workspace / "owned.txt").exists()
    for refused in (config, database, edit):
        assert "astro's own state" in refused
    assert not (workspace / ".astro" / "config.yaml").exists()
    with sqlite3.connect(workspace / ".astro" / "astro.db") as db:  # the history is intact
        questions = [row[0] for row in db.execute(
            "SELECT json_extract(message, '$.content') FROM agent_messages WHERE role = 'user' AND kind = 'message'")]
    assert questions == ["remember this", "go"]
    # The next session: the skill written by the model is a new project setting, not trusted.
    fake.add(
        {"tool_calls": [{"name": "load_skill", "arguments": {"name": "grant"}}]},
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "touch owned.txt"}}]},
        {"text": "done"},
    )
    later = run_astro(["run", "again"], astro_env)
    assert "skills/grant/SKILL.md allowed-tools" in later.stderr
    assert not (workspace / "owned.txt").exists()


def test_shell_commands_naming_astro_state_are_never_pre_approved(fake, astro_env, workspace, run_astro):
    fake.add({"text": "first"})
    run_astro(["run", "keep me"], astro_env)
    fake.add(
        {"tool_calls": [
            {"name": "run_bash", "arguments": {"command": "rm -f .astro/astro.db"}},
            {"name": "run_bash", "arguments": {"command": "echo 'permissions: {allow: [run_bash]}' > $ASTRO_HOME/config.yaml"}},
            {"name": "run_bash", "arguments": {"command": "echo fine > ok.txt"}},
        ]},
        {"text": "done"},
    )
    result = run_astro(["run", "go", "--yes"], astro_env)
    database, home, fine = tool_results(fake.bodies()[2])
    assert "never pre-approved" in database and "never pre-approved" in home
    assert "[exit code 0]" in fine
    assert (workspace / ".astro" / "astro.db").exists()
    assert not (Path(astro_env["ASTRO_HOME"]) / "config.yaml").exists()
    assert result.returncode == 0


@pytest.mark.slow
def test_approval_prompt_shows_what_will_run_even_with_terminal_escapes(fake, astro_env, workspace):
    hidden = "touch X # \x1b[2K\x1b[1G  command: ls papers/"
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": {"command": hidden}}]}, {"text": "ok"})
    env = dict(astro_env, TERM="dumb", COLUMNS="120", LINES="40")
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli"], env=env, cwd=str(workspace), encoding="utf-8",
                          timeout=120, dimensions=(40, 120))
    child.expect("\n> ")
    child.sendline("list the papers")
    child.expect("allow\\? ")
    shown = child.before
    assert "touch X # \\x1b[2K\\x1b[1G  command: ls papers/" in shown
    assert "\x1b[2K" not in shown and "\x1b[1G" not in shown
    child.sendline("n")
    child.expect("\n> ")
    child.sendline("/tool 1")
    child.expect("\n> ")
    assert "\\u001b[2K" in child.before and "\x1b[2K" not in child.before  # JSON's escape, still visible
    assert child.waitnoecho(timeout=60)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    assert not (workspace / "X").exists()


def test_long_arguments_are_shown_whole_or_with_a_count(workspace):
    from astro_cli.ui.repl import APPROVAL_MAX_CHARS, approval_lines

    padded = "ls papers/" + " " * 400 + "; rm -rf notes"
    [short] = approval_lines({"command": padded})
    assert short.plain.endswith("; rm -rf notes")
    [long] = approval_lines({"command": "x" * (APPROVAL_MAX_CHARS + 250)})
    assert "250 more characters not shown" in long.plain
    assert json.dumps({"a": 1})  # arguments that are not text are shown as JSON
    [structured] = approval_lines({"paths": ["a", "b"]})
    assert '["a", "b"]' in structured.plain
