"""A plugin adds an `astro` command group, a command, a slash command and a transcript section through the
same points astro's own use (astro_cli/extensions.py), and gets no app for any of them (issue 45).

Every test drives the real `astro` process, the plugin installed as a dist-info folder on PYTHONPATH."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

PLUGIN = '''
import typer

obs = typer.Typer(help="Observing plans.")


@obs.command("plan")
def plan(target: str) -> None:
    """Plan a night on TARGET."""
    typer.echo(f"plan for {target}: 3 h on source")


def hello() -> None:
    typer.echo("hello from the plugin")


def register_commands(cli):
    cli.add_group("obs", "Observing plans (a plugin).", lambda: obs)
    cli.add_command("hello", "Say hello (a plugin).", lambda: hello)


def register(api):
    def targets(view, args):
        assert not hasattr(view, "app")
        view.console.print(f"targets {args}: session {view.session_id} on {view.settings.typed['model']}")

    api.add_slash_command("targets", "List the plugin's targets.", targets)
    api.add_transcript_section("Targets", lambda row: f"M31 observed in session {row['id']}" if "app" not in row else None)
'''


@pytest.fixture
def plugin_env(tmp_path: Path, astro_env: dict[str, str]) -> dict[str, str]:
    site = tmp_path / "site"
    (site / "astro_obs_plugin").mkdir(parents=True)
    (site / "astro_obs_plugin" / "__init__.py").write_text(PLUGIN)
    info = site / "astro_obs_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: astro-obs-plugin\nVersion: 0.1\n")
    # The module is named (not a function in it), so both register(api) and register_commands(cli) are found.
    (info / "entry_points.txt").write_text("[astro.plugins]\nobs = astro_obs_plugin\n")
    return dict(astro_env, PYTHONPATH=os.pathsep.join(filter(None, [str(site), astro_env.get("PYTHONPATH")])))


def test_a_plugin_adds_a_command_group_and_a_command(run_astro, plugin_env):
    done = run_astro(["obs", "plan", "M31"], plugin_env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "plan for M31: 3 h on source"
    assert run_astro(["hello"], plugin_env).stdout.strip() == "hello from the plugin"
    listing = run_astro(["--help"], plugin_env).stdout
    assert re.search(r"^\s+obs\s+Observing plans \(a plugin\)\.", listing, re.MULTILINE)
    assert re.search(r"^\s+library\s+Your paper library", listing, re.MULTILINE)  # astro's own, same list
    assert "Mistyped" not in run_astro(["obs", "plan", "M31"], plugin_env).stderr


def test_a_plugin_cannot_take_a_builtin_commands_name(run_astro, plugin_env, tmp_path):
    module = Path(plugin_env["PYTHONPATH"].split(os.pathsep)[0]) / "astro_obs_plugin" / "__init__.py"
    module.write_text(module.read_text().replace('cli.add_group("obs"', 'cli.add_group("library"'))
    done = run_astro(["--help"], plugin_env)
    assert done.returncode == 0
    assert "the command 'library' of the plugin obs is taken already (by astro)" in done.stderr
    assert "Traceback" not in done.stderr
    assert re.search(r"^\s+library\s+Your paper library", done.stdout, re.MULTILINE)


def test_a_plugins_slash_command_and_transcript_section(fake, plugin_env, workspace, run_astro):
    pexpect = pytest.importorskip("pexpect")
    fake.add({"text": "Andromeda is up all night."})
    env = dict(plugin_env, TERM="dumb", COLUMNS="100", LINES="40")
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli"], env=env, cwd=str(workspace), encoding="utf-8",
                          timeout=60, dimensions=(40, 100))
    child.expect("\n> ")
    child.sendline("/targets tonight")
    child.expect(r"targets tonight: session (\S+) on openai/fake-model")
    session_id = child.match.group(1)
    child.expect("\n> ")
    child.sendline("Is M31 up tonight?")
    child.expect("Andromeda is up all night")
    child.expect("\n> ")
    assert child.waitnoecho(timeout=30)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    shown = run_astro(["sessions", "show", session_id], plugin_env)
    assert shown.returncode == 0, shown.stderr
    assert "Targets" in shown.stdout
    assert f"M31 observed in session {session_id}" in shown.stdout


def test_astros_own_commands_never_ask_the_plugins(run_astro, plugin_env):
    module = Path(plugin_env["PYTHONPATH"].split(os.pathsep)[0]) / "astro_obs_plugin" / "__init__.py"
    module.write_text(module.read_text().replace("def register_commands(cli):\n",
                                                 "def register_commands(cli):\n    raise RuntimeError('no commands today')\n"))
    shown = run_astro(["config", "show"], plugin_env)
    assert shown.returncode == 0, shown.stderr
    assert "plugin" not in shown.stderr
    listing = run_astro(["--help"], plugin_env)
    assert listing.returncode == 0
    assert listing.stderr.strip() == ("warning: the commands of plugin obs were skipped: RuntimeError: no commands "
                                      "today")
