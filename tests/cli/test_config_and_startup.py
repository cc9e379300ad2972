"""Settings layers and the commands that must stay fast and model-free."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import base_env


def test_no_model_and_no_key_exits_2_with_one_sentence(cli, workspace):
    env = base_env(workspace.parent)
    result = cli(["run", "Hello"], env=env)
    assert result.exit_code == 2
    assert "No model is configured" in result.stderr and "ANTHROPIC_API_KEY" in result.stderr
    assert "Traceback" not in result.stderr


def test_default_model_comes_from_the_provider_key_present(cli, workspace):
    from astro_cli.agent.factory import resolve_model
    from astro_cli.bootstrap import build_app

    cli(["config", "show"], env=base_env(workspace.parent))  # sets cwd and environment
    app = build_app()
    assert resolve_model(app, env={"OPENAI_API_KEY": "x"}).model == "openai/gpt-4.1"
    assert resolve_model(app, env={"ANTHROPIC_API_KEY": "x", "OPENAI_API_KEY": "y"}).model.startswith("anthropic/")


def test_bad_config_value_names_file_key_and_expectation(cli, workspace):
    (workspace / ".astro").mkdir()
    config = workspace / ".astro" / "config.yaml"
    config.write_text("max_steps: lots\n")
    result = cli(["config", "show"], env=base_env(workspace.parent))
    assert result.exit_code == 2
    assert str(config) in result.stderr and "'max_steps'" in result.stderr and "whole number" in result.stderr


def test_broken_yaml_is_one_sentence(cli, workspace):
    (workspace / ".astro").mkdir()
    (workspace / ".astro" / "config.yaml").write_text("model: [unclosed\n")
    result = cli(["config", "show"], env=base_env(workspace.parent))
    assert result.exit_code == 2
    assert "not valid YAML" in result.stderr and "Traceback" not in result.stderr


def test_layers_win_in_order_and_sources_are_reported(cli, workspace):
    env = base_env(workspace.parent)
    home = workspace.parent / "astro-home"
    home.mkdir()
    (home / "config.yaml").write_text("model: openai/from-user\nmax_steps: 12\ntimeout: 30\n")
    (workspace / ".astro").mkdir()
    (workspace / ".astro" / "config.yaml").write_text("max_steps: 9\nfrobnicate: true\n")  # tighter than 12: applies
    env["ASTRO_TIMEOUT"] = "45"
    result = cli(["config", "show", "--json"], env=env)
    assert result.exit_code == 0
    rows = {row["key"]: row for row in json.loads(result.stdout)}
    assert rows["model"]["value"] == "openai/from-user" and rows["model"]["source"].endswith("astro-home/config.yaml")
    assert rows["max_steps"]["value"] == 9 and rows["max_steps"]["source"].endswith(".astro/config.yaml")
    assert rows["timeout"]["value"] == 45.0 and rows["timeout"]["source"] == "env ASTRO_TIMEOUT"
    assert "unknown setting 'frobnicate'" in result.stderr


def test_help_and_version_do_not_import_litellm(workspace):
    code = (
        "import sys\n"
        "from astro_cli.main import main\n"
        "sys.argv = ['astro', sys.argv[1]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LITELLM' if 'litellm' in sys.modules else 'CLEAN')\n"
    )
    for flag in ("--version", "--help"):
        out = subprocess.run([sys.executable, "-c", code, flag], capture_output=True, text=True, cwd=workspace)
        assert out.stdout.strip().endswith("CLEAN"), out.stdout + out.stderr


def test_model_free_commands_do_not_import_litellm(workspace):
    code = (
        "import sys\n"
        "from astro_cli.main import main\n"
        "sys.argv = ['astro'] + sys.argv[1:]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LITELLM' if 'litellm' in sys.modules else 'CLEAN')\n"
    )
    for args in (["config", "show"], ["sessions", "list"], ["prompt", "show"]):
        out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=workspace,
                             env=base_env(workspace.parent))
        assert out.stdout.strip().endswith("CLEAN"), (args, out.stdout[-500:], out.stderr[-500:])


def test_version_output(run_astro, workspace):
    out = run_astro(["--version"], env=base_env(workspace.parent))
    assert out.returncode == 0 and out.stdout.startswith("astro ")


def test_init_lays_out_the_workspace_once(cli, workspace):
    env = base_env(workspace.parent)
    first = cli(["init"], env=env)
    assert first.exit_code == 0 and "created" in first.stdout
    for name in ("skills", "memory", "papers", "notes", ".astro/config.yaml", ".astro/astro.db"):
        assert (workspace / name).exists(), name
    (workspace / ".astro" / "config.yaml").write_text("max_steps: 9\n")
    second = cli(["init"], env=env)
    assert "nothing changed" in second.stdout
    assert (workspace / ".astro" / "config.yaml").read_text() == "max_steps: 9\n"
