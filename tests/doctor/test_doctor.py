"""Issue 31 point 11: `astro doctor`, the real command: ✓ lines when all is well (with one tiny
request to the model when asked), ✗ with the fix for what is not, exit 1 then, and nothing created."""

from __future__ import annotations

import json

import yaml


def test_doctor_is_all_ticks_in_a_healthy_folder(run_astro, fake, astro_env, workspace):
    fake.add({"text": "OK"})
    result = run_astro(["doctor", "--model-request"], astro_env)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert all(line.startswith("✓ ") for line in lines[:-1]), lines
    assert lines[-1] == "Everything is in order."
    assert any(line.startswith("✓ model: openai/fake-model (env ASTRO_MODEL): answered a test request") for line in lines)
    assert any(line.startswith("✓ keys: ASTRO_API_KEY") for line in lines)
    assert len(fake.requests) == 1
    assert not (workspace / ".astro").exists()  # a check reads, never writes


def test_doctor_names_each_problem_with_its_fix(run_astro, fake, astro_env, workspace):
    (workspace / ".astro").mkdir()
    (workspace / ".astro" / "astro.db").write_bytes(b"not a database " * 100)
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"catalogue": {"command": "no-such-server-x"}}}))
    (workspace / ".astro" / "config.yaml").write_text(yaml.safe_dump({"permissions": {"allow": ["run_bash"]}}))
    env = {k: v for k, v in astro_env.items() if k not in ("ASTRO_MODEL", "ASTRO_API_KEY", "ASTRO_API_BASE")}
    result = run_astro(["doctor", "--json"], env)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    failed = {c["line"].split(":")[0].split(" ")[0]: c for c in report["checks"] if not c["ok"]}
    assert {"keys", "model", "database", "trust"} <= set(failed), failed
    assert "`astro trust`" in failed["trust"]["fix"]
    assert "astro keys set" in failed["keys"]["fix"]
    text = run_astro(["doctor"], env)
    assert text.returncode == 1 and "✗ database" in text.stdout and "  fix: " in text.stdout
    assert "problem(s) found." in text.stdout and "Traceback" not in text.stderr
    assert (workspace / ".astro" / "astro.db").read_bytes().startswith(b"not a database")  # untouched


def test_a_missing_mcp_command_is_a_problem(run_astro, astro_env, workspace, tmp_path):
    home = tmp_path / "astro-home"
    home.mkdir()
    (home / "config.yaml").write_text(yaml.safe_dump({"mcp": {"servers": {"catalogue": {"command": "no-such-x"}}}}))
    result = run_astro(["doctor"], astro_env)
    assert result.returncode == 1
    assert "✗ MCP servers (catalogue): catalogue: 'no-such-x' was not found" in result.stdout


def test_the_bare_question_rewrite_knows_every_command():
    import typer.main

    from astro_cli.argv import SUBCOMMANDS
    from astro_cli.cli import app

    assert set(typer.main.get_command(app).commands) == SUBCOMMANDS  # type: ignore[attr-defined]


def test_doctor_says_whether_commands_run_in_the_sandbox(run_astro, astro_env, workspace):
    on = run_astro(["doctor"], astro_env)
    assert any(line.startswith("✓ sandbox: ") for line in on.stdout.splitlines()), on.stdout
    off = run_astro(["doctor"], {**astro_env, "ASTRO_SANDBOX_ENABLED": "0"})
    assert off.returncode == 1
    line = next(line for line in off.stdout.splitlines() if line.startswith("✗ sandbox: "))
    assert "bubblewrap" in off.stdout.split(line, 1)[1].splitlines()[1]  # the fix line under it
