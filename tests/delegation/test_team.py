"""Teammates end to end: concurrent threads against the fake provider, answers through the file inbox,
a teammate that times out, the lead's own prompts, limits, and no database persistence.

Teammates ask the model at the same time, so every scripted turn is a callable that answers by
looking at the request (whose system prompt it carries), which keeps the run deterministic.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

MEMBERS = [
    {"name": "alice", "system_prompt": "You are alice, a photometry expert.", "task": "Give the V magnitude of Vega."},
    {"name": "bob", "system_prompt": "You are bob, a spectroscopist.", "task": "Give the spectral type of Vega."},
    {"name": "carol", "system_prompt": "You are carol, who is slow.", "task": "Give Vega's distance."},
]


def system_of(body: dict[str, Any]) -> str:
    return body["messages"][0]["content"]


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


ARRIVALS: dict[str, float] = {}
CAROL_DELAY = 30  # far past the lead's 1.5 s wait; the run does not wait for her at its end


def router(body: dict[str, Any]) -> dict[str, Any]:
    """One reply for whoever asks: a teammate by its system prompt, the lead by where its turn stands."""
    system = system_of(body)
    ARRIVALS[system.split(",")[0]] = time.monotonic()
    if system.startswith("You are alice"):
        return {"text": "V = 0.03"}
    if system.startswith("You are bob"):
        return {"text": "A0 V"}
    if system.startswith("You are carol"):
        return {"text": "7.7 pc", "delay": CAROL_DELAY}
    results = [m for m in body["messages"] if m["role"] == "tool"]
    if not results:
        return {"tool_calls": [{"name": "team_start", "arguments": {"members": MEMBERS}}]}
    if results[-1]["name"] == "team_start":
        return {"tool_calls": [{"name": "team_wait", "arguments": {}}]}
    return {"text": "Vega: V = 0.03, A0 V; distance still open."}


def team_env(astro_env: dict[str, str]) -> dict[str, str]:
    return {**astro_env, "ASTRO_TEAM_WAIT_TIMEOUT": "1.5"}


@pytest.mark.waits  # a teammate waited out to its timeout: not in test-fast
def test_two_teammates_answer_through_the_inbox_and_one_times_out(cli, fake, astro_env, workspace):
    fake.add(*[router] * 6)
    ARRIVALS.clear()
    result = cli(["run", "Tell me about Vega", "--output-format", "json"], team_env(astro_env))
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["answer"] == "Vega: V = 0.03, A0 V; distance still open."
    # The order of events: the lead's last request came before carol's reply could leave the server,
    # so the lead stopped waiting (after 1.5 s) instead of waiting for her.
    assert ARRIVALS["You are astro"] < ARRIVALS["You are carol"] + CAROL_DELAY

    prompts = {m["system_prompt"]: m["name"] for m in MEMBERS}
    lead = [b for b in fake.bodies() if system_of(b) not in prompts]
    mates = {prompts[system_of(b)]: b for b in fake.bodies() if system_of(b) in prompts}
    assert set(mates) == {"alice", "bob", "carol"}
    # Each teammate gets exactly the lead's system prompt and task, without delegation tools.
    for member in MEMBERS:
        body = mates[member["name"]]
        assert system_of(body) == member["system_prompt"]
        assert body["messages"][1] == {"role": "user", "content": member["task"]}
        names = {t["function"]["name"] for t in body["tools"]}
        assert "read_file" in names and not names & {"subagent", "team_start", "team_wait"}
        assert not names & {"todo_write", "bg_task_run", "compress_context"}  # they need a stored session
        assert "steps: 1 of 5 used" in body["messages"][-1]["content"]

    started_text, waited = tool_results(lead[-1])
    assert "Started 3 teammate(s): alice, bob, carol" in started_text
    assert waited.startswith("Teammate results (2 of 3 answered):")
    assert "## alice: answered" in waited and "V = 0.03" in waited
    assert "## bob: answered" in waited and "A0 V" in waited
    assert "## carol: no answer within 1.5 s" in waited

    # The answers came through files in the inbox.
    [team] = list((workspace / ".astro" / "team").iterdir())
    inbox = team / "inbox"
    alice = json.loads((inbox / "alice.json").read_text())
    assert (alice["from"], alice["status"], alice["answer"], alice["steps"]) == ("alice", "answered", "V = 0.03", 1)
    assert json.loads((team / "tasks" / "carol.json").read_text())["task"] == "Give Vega's distance."
    # Teammates are not persisted in the database: only the lead's session is there.
    conn = sqlite3.connect(workspace / ".astro" / "astro.db")
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
    assert team.name == conn.execute("SELECT id FROM sessions").fetchone()[0]
    conn.close()


def test_teammates_use_tools_within_their_step_limit(cli, fake, astro_env, workspace):
    (workspace / "vega.txt").write_text("Vega parallax: 130.23 mas\n")

    def turn(body: dict[str, Any]) -> dict[str, Any]:
        system = system_of(body)
        if system.startswith("You read"):
            if not any(m["role"] == "tool" for m in body["messages"]):
                return {"tool_calls": [{"name": "read_file", "arguments": {"path": "vega.txt"}}]}
            return {"text": "parallax 130.23 mas"}
        results = [m for m in body["messages"] if m["role"] == "tool"]
        if not results:
            return {"tool_calls": [{"name": "team_start", "arguments": {"max_steps": 9, "members": [
                {"name": "reader", "system_prompt": "You read files.", "task": "Read vega.txt"}]}}]}
        if results[-1]["name"] == "team_start":
            return {"tool_calls": [{"name": "team_wait", "arguments": {"names": ["reader"]}}]}
        return {"text": "done"}

    fake.add(*[turn] * 5)
    cli(["run", "go"], team_env(astro_env))
    reader = [b for b in fake.bodies() if system_of(b) == "You read files."]
    assert len(reader) == 2
    assert "steps: 1 of 5 used" in reader[0]["messages"][-1]["content"]  # min(9, 5)
    assert "130.23" in tool_results(reader[1])[0]
    waited = tool_results(fake.bodies()[-1])[-1]
    assert "## reader: answered (2 step(s); tools: read_file ×1" in waited


def test_bad_team_requests_are_error_results(cli, fake, astro_env):
    fake.add(
        {"tool_calls": [{"name": "team_wait", "arguments": {}}]},
        {"tool_calls": [{"name": "team_start", "arguments": {"members": [
            {"name": "x", "system_prompt": "p", "task": "t"}, {"name": "x", "system_prompt": "p", "task": "t"}]}}]},
        {"tool_calls": [{"name": "team_start", "arguments": {"members": [{"name": "../etc", "system_prompt": "p",
                                                                            "task": "t"}]}}]},
        {"text": "ok"},
    )
    cli(["run", "go"], team_env(astro_env))
    results = tool_results(fake.bodies()[-1])
    assert results[0] == "Error: no teammates were started in this session; start them with team_start."
    assert "teammate names must differ; repeated: x" in results[1]
    assert "name '../etc' should be letters" in results[2]
    assert len(fake.requests) == 4  # nothing was started


def test_teammate_failure_reaches_the_inbox(cli, fake, astro_env, workspace: Path):
    def turn(body: dict[str, Any]) -> dict[str, Any]:
        if system_of(body) == "You fail.":
            return {"status": 400, "error": "model not found"}
        results = [m for m in body["messages"] if m["role"] == "tool"]
        if not results:
            return {"tool_calls": [{"name": "team_start", "arguments": {"members": [
                {"name": "dud", "system_prompt": "You fail.", "task": "anything"}]}}]}
        if results[-1]["name"] == "team_start":
            return {"tool_calls": [{"name": "team_wait", "arguments": {}}]}
        return {"text": "done"}

    fake.add(*[turn] * 4)
    cli(["run", "go"], team_env(astro_env))
    waited = tool_results(fake.bodies()[-1])[-1]
    assert "## dud: provider_error" in waited and "model not found" in waited
