"""Skills with `context: fork` run through a subagent whose instructions are the skill's body."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from astro_cli.delegation.subagent import SUBAGENT_PROMPT
from tests.helpers import trust_workspace

SKILL = """---
name: claim-check
description: Check a claim against the project's notes.
context: fork
allowed-tools: run_bash
---
Check the claim: $ARGUMENTS. Read notes.txt with run_bash (cat) and say whether it supports the claim.
"""


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def test_fork_skill_runs_in_a_subagent(cli, fake, astro_env, workspace):
    (workspace / "skills" / "claim-check").mkdir(parents=True)
    (workspace / "skills" / "claim-check" / "SKILL.md").write_text(SKILL)
    (workspace / "notes.txt").write_text("H0 = 73.0 km/s/Mpc from Cepheids.\n")
    trust_workspace(workspace)  # a project skill's allowed-tools pre-approve only in a trusted folder
    fake.add(
        {"tool_calls": [{"name": "load_skill", "arguments": {"name": "claim-check", "arguments": "H0 is near 73"}}]},
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "cat notes.txt"}}]},
        {"text": "Supported: notes.txt gives 73.0 km/s/Mpc."},
        {"text": "Your notes support H0 near 73."},
    )
    result = cli(["run", "Is H0 near 73?", "--output-format", "json"], astro_env)  # no --yes, no --allow
    assert json.loads(result.stdout.strip().splitlines()[-1])["answer"] == "Your notes support H0 near 73."
    main, sub1, sub2, main2 = fake.bodies()
    system = sub1["messages"][0]["content"]
    assert system.startswith(SUBAGENT_PROMPT)
    assert "Check the claim: H0 is near 73. Read notes.txt" in system  # the body, $ARGUMENTS filled
    assert "The request: H0 is near 73" in sub1["messages"][1]["content"]
    assert "subagent" not in {t["function"]["name"] for t in sub1["tools"]}
    # allowed-tools pre-approves run_bash for the forked run, as it would inline.
    assert "H0 = 73.0" in tool_results(sub2)[0] and "[exit code 0]" in tool_results(sub2)[0]
    [returned] = tool_results(main2)
    assert returned.startswith("Supported: notes.txt gives 73.0 km/s/Mpc.")
    assert "agent: skill:claim-check" in returned and "tool calls: run_bash ×1" in returned
    conn = sqlite3.connect(workspace / ".astro" / "astro.db")
    agents = [row[0] for row in conn.execute("SELECT agent FROM sessions ORDER BY rowid")]
    conn.close()
    assert agents == [None, "skill:claim-check"]


def test_fork_skill_inside_a_subagent_loads_inline(cli, fake, astro_env, workspace):
    (workspace / "skills" / "claim-check").mkdir(parents=True)
    (workspace / "skills" / "claim-check" / "SKILL.md").write_text(SKILL)
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "check the claim"}}]},
        {"tool_calls": [{"name": "load_skill", "arguments": {"name": "claim-check", "arguments": "x"}}]},
        {"text": "checked"},
        {"text": "done"},
    )
    cli(["run", "go"], astro_env)
    bodies = fake.bodies()
    assert len(bodies) == 4  # no third agent was started
    [inline] = tool_results(bodies[2])
    assert inline.startswith("<command-name>claim-check</command-name>") and "Check the claim: x." in inline
