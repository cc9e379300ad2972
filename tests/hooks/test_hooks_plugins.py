"""Plugins through the real entry-point machinery (a dist-info folder on sys.path), and `astro hooks list`."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import trust_workspace

PLUGIN = '''
from astro_cli.agent import events as ev
from astro_cli.agent.extensions import LoopExtension
from astro_cli.tools.base import Tool, object_schema
from astro_cli.compact.events import Compacted, CompactionStarted

SEEN = []


class TargetFacts(LoopExtension):
    def environment_facts(self, state):
        return {"plugin targets": "M31"}


def register(api):
    api.add_tool(Tool(
        name="shout", description="Repeat a text.", parameters=object_schema({"text": {"type": "string"}}, ["text"]),
        run=lambda ctx, args: "said: " + args["text"],
    ))

    def probe(ctx, args):
        ctx.emit(CompactionStarted(layer="micro", messages_before=12, tokens_before=9000, trigger="auto"))
        ctx.emit(Compacted(layer="micro", messages_before=12, messages_after=7, tokens_before=9000,
                              tokens_after=4000))
        return "compacted"

    api.add_tool(Tool(name="compact_probe", description="Emit compaction events.", parameters=object_schema({}),
                      run=probe))

    def no_bash(payload):
        SEEN.append(payload)
        if payload["tool_name"] == "run_bash":
            return {"decision": "block", "reason": "the plugin forbids shells"}
        return None

    api.on("PreToolUse", no_bash)
    api.on("PostToolUse", lambda p: {"updatedOutput": p["tool_response"]["content"].upper()}, matcher="shout")
    api.on("PreCompact", lambda p: SEEN.append(p))
    api.on("PostCompact", lambda p: SEEN.append(p))
    api.on("StepComplete", lambda p: 1 / 0)
    api.add_extension(TargetFacts)
    api.add_extension(object)  # not a LoopExtension: left out, the session goes on
'''


@pytest.fixture
def plugin_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    package = site / "astro_test_plugin"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(PLUGIN)
    info = site / "astro_test_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: astro-test-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[astro.plugins]\ntestplugin = astro_test_plugin:register\nbroken = astro_test_plugin:missing\n")
    monkeypatch.syspath_prepend(str(site))
    yield site
    sys.modules.pop("astro_test_plugin", None)


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def test_plugin_tools_and_python_hooks(cli, fake, astro_env, workspace, plugin_site):
    fake.add(
        {"tool_calls": [{"name": "shout", "arguments": {"text": "hello"}},
                        {"name": "run_bash", "arguments": {"command": "touch ran.txt"}},
                        {"name": "compact_probe", "arguments": {}}]},
        {"text": "ok"},
    )
    result = cli(["run", "go", "--yes"], astro_env)
    assert result.exit_code == 0, result.stderr
    assert "shout" in [t["function"]["name"] for t in fake.bodies()[0]["tools"]]
    # The plugin's loop extension adds its fact to the environment message of every request.
    assert "plugin targets: M31" in json.dumps(fake.bodies()[0]["messages"][-1])
    shout, bash, probe = tool_results(fake.bodies()[1])
    assert shout == "SAID: HELLO"
    assert bash == "Error: run_bash was blocked: the plugin forbids shells"
    assert not (workspace / "ran.txt").exists()
    assert probe == "compacted"  # the PostToolUse callback matches shout only
    import astro_test_plugin

    compaction = [p for p in astro_test_plugin.SEEN if p["hook_event_name"] in ("PreCompact", "PostCompact")]
    assert [(p["hook_event_name"], p["layer"], p["messages_before"]) for p in compaction] == [
        ("PreCompact", "micro", 12), ("PostCompact", "micro", 12)]
    assert compaction[1]["messages_after"] == 7 and compaction[1]["tokens_after"] == 4000
    # A plugin that fails to load, and a callback that raises, are warnings, not crashes.
    assert "plugin 'broken' (astro_test_plugin:missing) could not be loaded" in result.stderr
    assert "StepComplete hook `plugin testplugin" in result.stderr and "ZeroDivisionError" in result.stderr


def test_hooks_list_shows_hooks_plugins_and_problems(cli, astro_env, workspace, plugin_site):
    (workspace / ".astro").mkdir()
    (workspace / ".astro" / "config.yaml").write_text(yaml.safe_dump({"hooks": {
        "PreToolUse": [{"matcher": "run_bash", "hooks": [{"type": "command", "command": "echo ok", "timeout": 5}]}],
        "SessionStop": [{"hooks": [{"type": "command", "command": "no-such-program-xyz --flag"}]}],
        "Lunch": [{"hooks": [{"command": "true"}]}],
    }}))
    trust_workspace(workspace)
    result = cli(["hooks", "list"], astro_env)
    assert result.exit_code == 0
    out = result.stdout
    assert "PreToolUse" in out and "run_bash" in out and "echo ok" in out and "5 s" in out
    assert "cannot start" in out
    assert "'no-such-program-xyz' was not found on PATH" in out
    assert "unknown event 'Lunch'" in out
    assert "plugin testplugin (astro_test_plugin:register): loaded" in out and "tool shout" in out
    assert "plugin broken" in out and "failed" in out
    data = json.loads(cli(["hooks", "list", "--json"], astro_env).stdout)
    commands = {h["hook"]: h for h in data["hooks"]}
    assert commands["echo ok"]["problem"] is None
    assert commands["no-such-program-xyz --flag"]["problem"]
    assert {h["event"] for h in data["hooks"] if h["type"] == "python"} >= {"PreToolUse", "PostToolUse"}
    assert data["fail_closed"] is False


def test_hooks_list_needs_no_model_library(tmp_path: Path):
    code = textwrap.dedent("""
        import sys
        from typer.testing import CliRunner
        from astro_cli.cli import app
        result = CliRunner().invoke(app, ["hooks", "list"])
        print(result.exit_code, "litellm" in sys.modules)
    """)
    env = {"ASTRO_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=180)
    assert done.stdout.split() == ["0", "False"], done.stderr
