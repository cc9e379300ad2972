"""The example plugin of docs/prompt.md ("The assemble waterfall") runs as written: installed as a real
plugin (a dist-info entry point), it shows in `astro prompt show`, reaches every request of the real
`astro` process, keeps the system prompt identical between steps, hides the shell from the referee
agent only, and stays out of the referee's complete prompt."""

from __future__ import annotations

import importlib.util
import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider
from tests.paths import REPO_ROOT
from tests.prompt.test_prompt_switches_e2e import make_plugin_site, with_site

PAGE = REPO_ROOT / "docs" / "prompt.md"
LST = re.compile(r"^local sidereal time: \d\dh\d\dm$", re.M)


def example() -> str:
    part = PAGE.read_text(encoding="utf-8").split("## The assemble waterfall", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", part, flags=re.S)
    assert len(blocks) == 1, "the page's example changed: update this test with it"
    return blocks[0]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return make_plugin_site(tmp_path / "site", "astro_observatory", example(),
                            {"observatory": "astro_observatory:register"})


def system_of(body: dict) -> str:
    return body["messages"][0]["content"]


def tool_names(body: dict) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def test_the_sidereal_time_of_the_example_is_right(site: Path):
    spec = importlib.util.spec_from_file_location("docs_observatory", site / "astro_observatory" / "__init__.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # At J2000.0 GMST is 18h41m50.5s; La Silla is 4h42m56s west of Greenwich.
    assert module.local_sidereal_time(datetime(2000, 1, 1, 12, tzinfo=timezone.utc)) == "13h58m"
    # One sidereal day (23h56m04s) later the sidereal clock shows the same time.
    assert module.local_sidereal_time(datetime(2000, 1, 2, 11, 56, 4, tzinfo=timezone.utc)) == "13h58m"


def test_prompt_show_lists_the_plugins_section_and_source(run_astro, astro_env, site: Path):
    env = with_site(astro_env, site)
    report = json.loads(run_astro(["prompt", "show", "--json"], env=env).stdout)
    names = [s["name"] for s in report["sections"]]
    assert names.index("tools") < names.index("observatory") < names.index("principles")
    [section] = [s for s in report["sections"] if s["name"] == "observatory"]
    assert section["order"] == 150 and section["text"].startswith("Observatory: the group observes")
    assert [e["source"] for e in report["runtime_context"]] == ["session", "observatory"]
    assert LST.search(report["environment"])
    listed = json.loads(run_astro(["hooks", "list", "--json"], env=env).stdout)
    [plugin] = listed["plugins"]
    assert plugin["loaded"] and plugin["prompt"] == [
        "assemble listener add_site", "assemble listener referees_see_no_shell (agent:referee)",
        "runtime context 'observatory'"]


REFEREE = "---\nname: referee\ndescription: Checks a derivation step by step.\n---\nYou are a careful referee.\n"


def test_the_example_reaches_every_request_and_keeps_the_prompt_cached(run_astro, fake: FakeProvider, astro_env,
                                                                       site: Path, workspace: Path):
    agents = workspace / ".astro" / "agents"
    agents.mkdir(parents=True)
    (agents / "referee.md").write_text(REFEREE)
    (workspace / "derivation.md").write_text("H0 = v / d = 7000 km/s / 100 Mpc = 70 km/s/Mpc\n")
    fake.add(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "derivation.md"}}]},
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "Check derivation.md", "agent": "referee"}}]},
        {"text": "The derivation holds."},
        {"text": "The referee agrees: H0 = 70 km/s/Mpc."},
    )
    result = run_astro(["run", "Check my H0 derivation."], env=with_site(astro_env, site))
    assert result.returncode == 0, result.stderr
    first, second, referee, last = fake.bodies()
    mains = (first, second, last)
    assert len({system_of(body) for body in mains}) == 1  # the listener's section is the same every step
    assert "Observatory: the group observes with the MPG/ESO 2.2 m telescope" in system_of(first)
    assert len({json.dumps(body["tools"]) for body in mains}) == 1
    assert "run_bash" in tool_names(first)
    for body in mains:
        environment = body["messages"][-1]["content"]
        assert "\n[observatory]\n" in environment and LST.search(environment)
    # The referee's scope: no shell schema; its prompt is its one complete section, without the site.
    assert "run_bash" not in tool_names(referee) and "read_file" in tool_names(referee)
    assert system_of(referee) == "You are a careful referee."
    assert "[observatory]" in referee["messages"][-1]["content"]
