"""Issue 34 through the real `astro` process and the fake provider: the runtime-context switch (no
environment message, no fact computed), its source labels, the identity switch, a subagent's
suppressor, and a bad `tool_order` or a reserved tool name failing before any model request."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider

PROBE = '''
import os
from pathlib import Path

from astro_cli.agent.extensions import LoopExtension
from astro_cli.tools.base import Tool


def mark(what):
    with Path(os.environ["PROBE_MARKS"]).open("a") as marks:
        marks.write(what + "\\n")


class Dome(LoopExtension):
    context_source = "dome"

    def environment_facts(self, state):
        mark("dome")
        return {"dome": "open"}


def observatory(data):
    mark("observatory")
    return {"site": "La Silla"}


def register(api):
    api.add_extension(Dome)
    api.add_context("observatory", 50, observatory)


def register_nan(api):
    api.add_section("late", float("nan"), text="Never placed.")


def register_reserved(api):
    api.add_tool(Tool(name="<unlisted-tools>", description="Sneaks in.", parameters={"type": "object"},
                      run=lambda ctx, args: ""))
'''


def make_plugin_site(root: Path, package: str, code: str, entry_points: dict[str, str]) -> Path:
    """A folder holding `package` and a dist-info that declares it under `astro.plugins`, as pip leaves it."""
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text(textwrap.dedent(code))
    info = root / f"{package}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package.replace('_', '-')}\nVersion: 0.1\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[astro.plugins]\n{lines}")
    return root


def with_site(env: dict[str, str], site: Path, **extra: str) -> dict[str, str]:
    paths = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**env, "PYTHONPATH": os.pathsep.join(paths), **extra}


@pytest.fixture
def probe_env(tmp_path: Path, astro_env: dict[str, str]) -> dict[str, str]:
    site = make_plugin_site(tmp_path / "site", "astro_probe", PROBE, {"probe": "astro_probe:register"})
    return with_site(astro_env, site, PROBE_MARKS=str(tmp_path / "marks.txt"))


def marks(env: dict[str, str]) -> list[str]:
    path = Path(env["PROBE_MARKS"])
    return path.read_text().split() if path.exists() else []


def contents(body: dict[str, Any]) -> list[str]:
    return [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"]) for m in body["messages"]]


def test_runtime_context_off_sends_no_environment_message_and_computes_none_of_it(run_astro, fake: FakeProvider,
                                                                                  probe_env):
    fake.add({"text": "Seeing is fine."})
    on = run_astro(["run", "How is the seeing?"], env=probe_env)
    assert on.returncode == 0, on.stderr
    last = fake.bodies()[0]["messages"][-1]["content"]
    # Every contribution under the name of what contributed it, the session's own first.
    assert last.startswith("<environment>\n[session]\ndate: ")
    assert "\n[dome]\ndome: open\n" in last and "\n[observatory]\nsite: La Silla\n" in last
    assert last.index("[session]") < last.index("[observatory]") < last.index("[dome]")
    assert sorted(marks(probe_env)) == ["dome", "observatory"]

    Path(probe_env["PROBE_MARKS"]).unlink()
    fake.add({"text": "Seeing is fine."})
    off = run_astro(["run", "How is the seeing?"], env={**probe_env, "ASTRO_PROMPT_INCLUDE_RUNTIME_CONTEXT": "false"})
    assert off.returncode == 0, off.stderr
    body = fake.bodies()[1]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][-1]["content"] == "How is the seeing?"
    assert not any("<environment>" in text or "La Silla" in text for text in contents(body))
    assert marks(probe_env) == []  # neither the extension's facts nor the registered source were computed


def test_runtime_context_off_keeps_the_cache_breakpoint_on_the_last_stored_message(cli, fake: FakeProvider,
                                                                                   anthropic_env, workspace):
    (workspace / "seeing.txt").write_text("seeing 0.7 arcsec\n")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "seeing.txt"}}]}, {"text": "0.7 arcsec."})
    result = cli(["run", "What was the seeing?"], env={**anthropic_env, "ASTRO_PROMPT_INCLUDE_RUNTIME_CONTEXT": "false"})
    assert result.exit_code == 0, result.stderr
    first, second = fake.bodies("anthropic")
    assert json.dumps(first["system"]) == json.dumps(second["system"])
    for body in (first, second):
        assert "<environment>" not in json.dumps(body["messages"])
        last = body["messages"][-1]["content"]
        assert last[-1]["cache_control"] == {"type": "ephemeral"}  # the newest stored message is the breakpoint


def test_prompt_show_names_each_source_and_honours_both_switches(run_astro, probe_env):
    shown = run_astro(["prompt", "show"], env=probe_env)
    assert shown.returncode == 0, shown.stderr
    assert "environment message (last, not stored) · from session, observatory ·" in shown.stdout
    assert "[observatory]\nsite: La Silla" in shown.stdout
    report = json.loads(run_astro(["prompt", "show", "--json"], env=probe_env).stdout)
    assert [entry["source"] for entry in report["runtime_context"]] == ["session", "observatory"]
    assert report["sections"][0]["name"] == "identity"

    env = {**probe_env, "ASTRO_PROMPT_INCLUDE_RUNTIME_CONTEXT": "false", "ASTRO_PROMPT_INCLUDE_IDENTITY": "false"}
    report = json.loads(run_astro(["prompt", "show", "--json"], env=env).stdout)
    assert report["environment"] is None and report["runtime_context"] == [] and report["environment_tokens"] == 0
    assert [s["name"] for s in report["sections"]][0] == "tools"
    assert "You are astro" not in "".join(s["text"] for s in report["sections"])
    shown = run_astro(["prompt", "show"], env=env)
    assert "no environment message: the runtime context is off" in shown.stdout


def test_include_identity_off_the_request_starts_with_what_the_deployment_supplies(cli, fake: FakeProvider,
                                                                                 astro_env):
    fake.add({"text": "Ready."})
    env = {**astro_env, "ASTRO_PROMPT_INCLUDE_IDENTITY": "false",
           "ASTRO_PERSONA": "You are PipelineBot, the data-reduction assistant of the ESO 2.2 m group."}
    result = cli(["run", "Ready?"], env=env)
    assert result.exit_code == 0, result.stderr
    system = fake.bodies()[0]["messages"][0]["content"]
    assert system.startswith("You are PipelineBot, the data-reduction assistant")
    assert "You are astro" not in system
    assert "You can use these tools:" in system and "Principles:" in system  # only the identity is left out


def test_a_tool_order_naming_no_tool_fails_in_one_sentence_before_any_model_request(run_astro, fake: FakeProvider,
                                                                                  astro_env):
    env = {**astro_env, "ASTRO_TOOL_ORDER": "read_file,no_such_tool,<unlisted-tools>"}
    fake.add({"text": "never sent"})
    for args in (["run", "Summarise my notes."], ["prompt", "show"]):
        result = run_astro(args, env=env)
        assert result.returncode != 0
        assert "Traceback" not in result.stderr
        errors = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(errors) == 1 and "'tool_order' names no_such_tool" in errors[0], result.stderr
    assert fake.bodies() == []


def test_a_plugin_tool_named_like_the_marker_or_a_nan_order_is_refused_and_astro_goes_on(
        run_astro, fake: FakeProvider, tmp_path, astro_env):
    site = make_plugin_site(tmp_path / "site", "astro_probe", PROBE,
                            {"reserved": "astro_probe:register_reserved", "nan": "astro_probe:register_nan"})
    env = with_site(astro_env, site, PROBE_MARKS=str(tmp_path / "marks.txt"))
    listed = run_astro(["hooks", "list", "--json"], env=env)
    nan, reserved = json.loads(listed.stdout)["plugins"]
    assert not reserved["loaded"] and "cannot be named '<unlisted-tools>'" in reserved["error"]
    # A registration check of the prompt registry, through a plugin: refused at once, in one sentence.
    assert not nan["loaded"] and "the prompt section 'late' needs a finite number as its order" in nan["error"]
    fake.add({"text": "Still here."})
    result = run_astro(["run", "Hello?"], env=env)
    assert result.returncode == 0, result.stderr
    assert "Still here." in result.stdout
    names = [tool["function"]["name"] for tool in fake.bodies()[0]["tools"]]
    assert "<unlisted-tools>" not in names and "read_file" in names


SCOUT = """\
---
name: scout
description: Finds the key number in a local file.
tools: [read_file]
runtime_context: false
---
You are Scout. Quote the key number exactly.
"""


def test_an_agent_definition_can_suppress_the_runtime_context_of_its_runs(cli, fake: FakeProvider, astro_env,
                                                                          workspace):
    agents = workspace / ".astro" / "agents"
    agents.mkdir(parents=True)
    (agents / "scout.md").write_text(SCOUT)
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "Find H0 in notes.txt", "agent": "scout"}}]},
        {"text": "73.0"},
        {"text": "H0 is 73.0"},
    )
    result = cli(["run", "go"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    main_first, sub, main_last = fake.bodies()
    assert sub["messages"][-1] == {"role": "user", "content": "Find H0 in notes.txt"}
    assert not any("<environment>" in text for text in contents(sub))
    # The suppressor covered the run's scope only: the caller keeps its environment message, before and after.
    for body in (main_first, main_last):
        assert body["messages"][-1]["content"].startswith("<environment>\n[session]")
