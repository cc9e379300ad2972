"""Issue 47, the seeds' last rows, through the real `astro` process: `{{model}}` without a model,
per-agent entries reaching that agent's runs, the abort signal through assembly, selective
inheritance of sections by subagents, configurable compaction prompts."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import base_env


def test_model_variable_renders_none_when_no_model_is_configured(run_astro, workspace: Path):
    env = {**base_env(workspace.parent), "ASTRO_IDENTITY": "You are astro, running on {{model}}."}
    shown = run_astro(["prompt", "show", "--json"], env)
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert report["sections"][0]["text"] == "You are astro, running on (none)."
    assert report["variables"]["model"] == "(none)"


SCOPED = '''
def register(api):
    api.add_variable("band", lambda: "Ks", scope="agent:scout")
    api.add_section("scout_band", 150, text="Scout works in the {{band}} band.", scope="agent:scout")
    api.add_context("dome", 50, lambda data: {"dome": "open"}, scope="agent:scout")
'''

SCOUT = """---
name: scout
description: Finds one number in the notes.
tools: [read_file]
---
You are Scout. Quote the key number exactly.
"""


def test_a_source_section_and_variable_for_an_agent_reach_each_of_its_runs_only(run_astro, fake, astro_env,
                                                                                 workspace: Path, tmp_path: Path):
    from tests.prompt.test_prompt_switches_e2e import make_plugin_site, with_site

    site = make_plugin_site(tmp_path / "site", "astro_scoped", SCOPED, {"scoped": "astro_scoped:register"})
    agents = workspace / ".astro" / "agents"
    agents.mkdir(parents=True)
    (agents / "scout.md").write_text(SCOUT)
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "Find H0", "agent": "scout"}}]},
        {"text": "73.0"},
        {"text": "H0 is 73.0"},
    )
    result = run_astro(["run", "go"], with_site(astro_env, site))
    assert result.returncode == 0, result.stderr
    main_first, sub, main_last = fake.bodies()
    system = sub["messages"][0]["content"]
    assert system == "You are Scout. Quote the key number exactly.\n\nScout works in the Ks band."
    assert "[dome]\ndome: open" in sub["messages"][-1]["content"]
    for body in (main_first, main_last):  # the agent's entries stay out of the caller's requests
        assert "Ks band" not in body["messages"][0]["content"]
        assert "[dome]" not in json.dumps(body["messages"])


BLOCKING = '''
import os
import time
from pathlib import Path


def dome(data):
    """A runtime-context source that hangs (it never looks at data.signal) until the test releases it."""
    folder = Path(os.environ["PROBE_DIR"])
    (folder / "blocked").write_text("")
    while not (folder / "release").exists():
        time.sleep(0.05)
    return {"dome": "open"}


def register(api):
    api.add_context("dome", 50, dome, scope="agent:scout")
'''


def test_an_interrupt_reaches_a_subagents_prompt_assembly_past_a_hanging_source(fake, astro_env, workspace: Path,
                                                                                tmp_path: Path):
    import sqlite3
    import sys

    import pytest

    from tests.helpers import wait_for
    from tests.prompt.test_prompt_switches_e2e import make_plugin_site, with_site

    pexpect = pytest.importorskip("pexpect")
    site = make_plugin_site(tmp_path / "site", "astro_dome", BLOCKING, {"dome": "astro_dome:register"})
    probe = tmp_path / "probe"
    probe.mkdir()
    agents = workspace / ".astro" / "agents"
    agents.mkdir(parents=True)
    (agents / "scout.md").write_text(SCOUT)
    fake.add({"tool_calls": [{"name": "subagent", "arguments": {"task": "Find H0", "agent": "scout"}}]},
             {"text": "never asked for"})
    env = dict(with_site(astro_env, site, PROBE_DIR=str(probe)), TERM="dumb", COLUMNS="100", LINES="40")
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli"], env=env, cwd=str(workspace), encoding="utf-8",
                          timeout=120, dimensions=(40, 100))
    try:
        child.expect("\n> ")
        child.sendline("go")
        assert wait_for((probe / "blocked").exists, 120), "the subagent's assembly never reached the source"
        assert wait_for(child.getecho, 60)  # the turn has the terminal in line mode: Ctrl-C is a signal
        child.sendintr()
        child.expect("interrupted")
        child.expect("\n> ")

        def subagent_kinds() -> list[str]:
            with sqlite3.connect(workspace / ".astro" / "astro.db") as db:
                return [k for (k,) in db.execute("SELECT m.kind FROM agent_messages m JOIN sessions s ON "
                                                 "s.id = m.session_id WHERE s.parent_id IS NOT NULL ORDER BY m.seq")]

        # The source still hangs, yet the subagent's turn has ended, marked interrupted, in its own session.
        assert wait_for(lambda: subagent_kinds()[-1:] == ["interrupted"], 30), subagent_kinds()
        assert len(fake.requests) == 1  # the subagent never sent a request
    finally:
        (probe / "release").write_text("")
        # On a dumb terminal prompt-toolkit writes "> " before it takes the terminal into raw mode: a Ctrl-D
        # sent in between reaches the tty as end-of-file, not astro (seen once in the full suite: 120 s, no exit).
        child.waitnoecho(timeout=60)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        child.close()


READER = """---
name: reader
description: Reads with the project's skills and memory in view.
tools: [read_file]
inherit: [skills, memory, skils]
---
You are Reader. Quote exactly.
"""


def test_an_agent_inherits_the_main_prompts_sections_it_names_and_no_others(run_astro, fake, astro_env,
                                                                          workspace: Path):
    agents = workspace / ".astro" / "agents"
    agents.mkdir(parents=True)
    (agents / "reader.md").write_text(READER)
    shown = json.loads(run_astro(["prompt", "show", "--json"], astro_env).stdout)
    main = {s["name"]: s["text"] for s in shown["sections"]}
    assert main["skills"] and main["memory"]
    fake.add({"tool_calls": [{"name": "subagent", "arguments": {"task": "Quote a.txt", "agent": "reader"}}]},
             {"text": "alpha"}, {"text": "It says alpha."})
    result = run_astro(["run", "go"], astro_env)
    assert result.returncode == 0, result.stderr
    _main_first, sub, main_last = fake.bodies()
    assert sub["messages"][0]["content"] == "\n\n".join(["You are Reader. Quote exactly.", main["skills"],
                                                         main["memory"]])
    # The misspelt name is reported in the activity log the caller gets, with the names there are.
    log = [m["content"] for m in main_last["messages"] if m["role"] == "tool"][-1]
    assert "notes: inherit: the main prompt has no section 'skils' (its sections: identity, memory, principles, " in log


PROJECT_SUMMARY = "PROJECT SUMMARY RULES: one line per file read, with its name."
USER_IDENTITY = "USER IDENTITY: you are the Heidelberg group's research assistant; go on from the summary."


def test_compaction_prompts_come_from_config_and_a_projects_only_once_it_is_trusted(run_astro, fake, astro_env,
                                                                                    workspace: Path):
    import yaml

    for i in range(4):
        (workspace / f"s{i}.txt").write_text(f"file {i}\n")
    (workspace / ".astro").mkdir(exist_ok=True)
    (workspace / ".astro" / "config.yaml").write_text(yaml.safe_dump({"compaction": {"summary_prompt": PROJECT_SUMMARY}}))
    home = Path(astro_env["ASTRO_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(yaml.safe_dump({"compaction": {"identity_prompt": USER_IDENTITY,
                                                                     "summary_keep_messages": 0}}))
    seen: list[dict] = []

    def model(body: dict) -> dict:
        """Read four files, then ask for compaction; a summarizing request gets a summary."""
        seen.append(body)
        last = body["messages"][-1]["content"]
        last = last if isinstance(last, str) else json.dumps(last)
        if "[Compaction request]" in last or PROJECT_SUMMARY in last:
            return {"text": "## Request\nRead four files.\n## Key findings\ns0-s3 read."}
        if "[Conversation summary]" in json.dumps(body["messages"]):
            return {"text": "Four files read."}  # after the compaction
        done = sum(1 for m in body["messages"] if m["role"] == "tool")
        if done < 4:
            return {"tool_calls": [{"name": "read_file", "arguments": {"path": f"s{done}.txt"}}]}
        return {"tool_calls": [{"name": "compress_context", "arguments": {}}]}

    def summaries() -> list[str]:
        asks = [b["messages"][-1]["content"] for b in seen]
        return [a for a in asks if isinstance(a, str) and ("[Compaction request]" in a or PROJECT_SUMMARY in a)]

    fake.add(*[model] * 40)
    result = run_astro(["run", "Read the four files."], astro_env)
    assert result.returncode == 0, result.stderr
    [asked] = summaries()
    assert asked.startswith("[Compaction request]")  # the untrusted project's text is not used
    restored = next(json.dumps(b["messages"]) for b in seen if "[Context restored after compaction]" in
                    json.dumps(b["messages"]))
    assert USER_IDENTITY in restored and "professional astrophysics research assistant" not in restored

    assert run_astro(["trust"], astro_env).returncode == 0
    seen.clear()
    result = run_astro(["run", "Read the four files again."], astro_env)
    assert result.returncode == 0, result.stderr
    [asked] = summaries()
    assert asked == PROJECT_SUMMARY  # trusted now: the project's instruction, verbatim
