"""Subagents end to end through the fake provider: own context and prompt, limits, no recursion,
tool restriction, agent definitions, stored child sessions and the events the REPL nests."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from astro_cli.delegation.subagent import SUBAGENT_PROMPT
from astro_cli.slash import slash_commands


def system_of(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    assert body["messages"][0]["role"] == "system"
    return content if isinstance(content, str) else "".join(part["text"] for part in content)


def tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def environment(body: dict[str, Any]) -> str:
    return body["messages"][-1]["content"]


def run_json(cli, env: dict[str, str], question: str, *extra: str) -> dict[str, Any]:
    result = cli(["run", question, "--output-format", "json", *extra], env)
    return json.loads(result.stdout.strip().splitlines()[-1])


def sessions(workspace: Path) -> list[dict[str, Any]]:
    conn = sqlite3.connect(workspace / ".astro" / "astro.db")
    conn.row_factory = sqlite3.Row
    rows = [dict(r) for r in conn.execute("SELECT * FROM sessions ORDER BY rowid")]
    conn.close()
    return rows


def test_subagent_runs_with_its_own_prompt_tools_and_limits(cli, fake, astro_env, workspace):
    (workspace / "notes.txt").write_text("The measured H0 is 73.0 km/s/Mpc.\n")
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {
            "task": "Read notes.txt and report the H0 value.", "tools": ["read_file"], "max_steps": 2}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"text": "H0 = 73.0 km/s/Mpc (notes.txt)."},
        {"text": "The notes give H0 = 73.0 km/s/Mpc."},
    )
    out = run_json(cli, astro_env, "What H0 do my notes give?")
    assert out["answer"] == "The notes give H0 = 73.0 km/s/Mpc."
    main, sub1, sub2, main2 = fake.bodies()

    # The subagent's own short prompt, none of the main prompt's sections, only its allowed tool.
    assert system_of(sub1) == SUBAGENT_PROMPT
    assert "Principles:" in system_of(main) and "Principles:" not in system_of(sub1)
    assert tool_names(sub1) == ["read_file"]
    assert "subagent" in tool_names(main)
    # Its own context: the task is its first user message; the user's question never reaches it.
    assert sub1["messages"][1] == {"role": "user", "content": "Read notes.txt and report the H0 value."}
    assert not any("What H0 do my notes give?" in json.dumps(m) for m in sub1["messages"])
    assert "steps: 1 of 2 used" in environment(sub1)
    assert "73.0" in tool_results(sub2)[0]

    # The parent gets the answer and the activity log.
    [result] = tool_results(main2)
    assert result.startswith("H0 = 73.0 km/s/Mpc (notes.txt).")
    assert "tool calls: read_file ×1" in result
    assert "steps: 2 of 2" in result
    assert "tokens: 200 in, 40 out" in result  # two requests at the fake's 100 in / 20 out

    # Stored as a child session of the main one, viewable with `astro sessions show`.
    parent, child = sessions(workspace)
    assert child["parent_id"] == parent["id"] and child["agent"] == "subagent"
    shown = cli(["sessions", "show", child["id"]], astro_env)
    assert shown.exit_code == 0
    assert "Read notes.txt and report the H0 value." in shown.stdout and "73.0" in shown.stdout
    exported = json.loads(cli(["sessions", "export", parent["id"], "--format", "json"], astro_env).stdout)
    assert [c["id"] for c in exported["children"]] == [child["id"]]


def test_step_limit_defaults_to_five_and_is_capped_at_ten(cli, fake, astro_env):
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "first"}}]},
        {"text": "one"},
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "second", "max_steps": 50}}]},
        {"text": "two"},
        {"text": "done"},
    )
    run_json(cli, astro_env, "go")
    bodies = fake.bodies()
    assert "steps: 1 of 5 used" in environment(bodies[1])
    assert "steps: 1 of 10 used" in environment(bodies[3])
    assert "lowered to the limit 10" in tool_results(bodies[4])[1]


def test_step_limit_reached_asks_for_the_final_answer(cli, fake, astro_env, workspace):
    (workspace / "a.txt").write_text("alpha\n")
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "loop", "max_steps": 1}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "alpha is all I found"},
        {"text": "ok"},
    )
    run_json(cli, astro_env, "go")
    bodies = fake.bodies()
    assert bodies[2]["tool_choice"] == "none"  # the budget is spent: answer without tools
    assert "alpha is all I found" in tool_results(bodies[3])[0]


def test_recursion_is_refused(cli, fake, astro_env):
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "delegate again"}}]},
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "deeper"}}]},
        {"text": "I could not delegate."},
        {"text": "fine"},
    )
    run_json(cli, astro_env, "go")
    main, sub1, sub2, _ = fake.bodies()
    for name in ("subagent", "team_start", "team_wait"):
        assert name in tool_names(main)
        assert name not in tool_names(sub1)
    [refusal] = tool_results(sub2)
    assert refusal.startswith("Error: there is no tool named 'subagent'")
    assert len(fake.requests) == 4  # no third-level agent ever asked the model


def test_tool_restriction_is_enforced(cli, fake, astro_env, workspace):
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "look", "tools": ["read_file"]}}]},
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "touch escaped.txt"}}]},
        {"text": "bash is not mine to use"},
        {"text": "ok"},
    )
    run_json(cli, astro_env, "go", "--yes")
    refusal = tool_results(fake.bodies()[2])[0]
    assert refusal.startswith("Error: there is no tool named 'run_bash'") and "read_file" in refusal
    assert not (workspace / "escaped.txt").exists()


def test_unknown_tool_names_are_an_error_listing_the_valid_ones(cli, fake, astro_env):
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "x", "tools": ["telescope"]}}]},
        {"text": "ok"},
    )
    run_json(cli, astro_env, "go")
    [result] = tool_results(fake.bodies()[1])
    assert "unknown tool(s) telescope" in result and "read_file" in result
    assert len(fake.requests) == 2


AGENT = """---
name: scout
description: Finds the key number in a local file.
tools: [read_file]
max_steps: 3
---
You are Scout. Read the file you are told about and quote the key number exactly.
"""


def test_agent_definition_is_listed_and_used(cli, fake, astro_env, workspace, tmp_path):
    agents = workspace / ".astro" / "agents"
    agents.mkdir(parents=True)
    (agents / "scout.md").write_text(AGENT)
    home_agents = tmp_path / "astro-home" / "agents"
    home_agents.mkdir(parents=True)
    (home_agents / "scout.md").write_text(AGENT.replace("You are Scout.", "You are the user's Scout."))
    (home_agents / "referee.md").write_text(
        "---\nname: referee\ndescription: Checks a derivation step by step.\n---\nYou are a careful referee.\n")
    (home_agents / "broken.md").write_text("---\nname: [oops\n---\nbody\n")
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "Find H0 in notes.txt", "agent": "scout"}}]},
        {"text": "73.0"},
        {"text": "H0 is 73.0"},
    )
    run_json(cli, astro_env, "go")
    main, sub, _ = fake.bodies()
    listing = system_of(main)
    assert "- referee: Checks a derivation step by step." in listing
    assert "- scout: Finds the key number in a local file." in listing
    assert "Use only the names listed above" in listing and "broken" not in listing
    assert listing.index("scout") < listing.index("Principles:")  # order 400, before the principles
    # The project definition wins over the user's, and its body is the whole system prompt.
    assert system_of(sub) == "You are Scout. Read the file you are told about and quote the key number exactly."
    assert tool_names(sub) == ["read_file"]
    assert "steps: 1 of 3 used" in environment(sub)
    assert sessions(workspace)[1]["agent"] == "scout"


def test_unknown_agent_is_refused_with_the_valid_names(cli, fake, astro_env, workspace):
    agents = workspace / ".astro" / "agents"
    agents.mkdir(parents=True)
    (agents / "scout.md").write_text(AGENT)
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "x", "agent": "oracle"}}]},
        {"text": "ok"},
    )
    run_json(cli, astro_env, "go")
    [result] = tool_results(fake.bodies()[1])
    assert result.startswith("Error: there is no agent named 'oracle'. Valid agent names: scout.")
    assert len(sessions(workspace)) == 1  # no child session was created


def test_no_definitions_no_section(cli, fake, astro_env):
    fake.add({"text": "hi"})
    run_json(cli, astro_env, "hello")
    assert "Sub-agents" not in system_of(fake.bodies()[0])


def test_events_nest_the_subagent_for_renderers(cli, fake, astro_env, workspace):
    (workspace / "a.txt").write_text("alpha\n")
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "read a.txt"}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "alpha"},
        {"text": "done"},
    )
    result = cli(["run", "go", "--output-format", "astro-events"], astro_env)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [(e["type"], e.get("agent"), e.get("name")) for e in events
             if e["type"] in ("tool_started", "tool_finished", "subagent_started", "subagent_finished")]
    assert kinds == [
        ("tool_started", "main", "subagent"),
        ("subagent_started", "subagent", None),
        ("tool_started", "subagent", "read_file"),
        ("tool_finished", "subagent", "read_file"),
        ("subagent_finished", "subagent", None),
        ("tool_finished", "main", "subagent"),
    ]
    finished = next(e for e in events if e["type"] == "subagent_finished")
    assert finished["ok"] and finished["steps"] == 2 and finished["tool_calls"] == {"read_file": 1}
    assert finished["summary"] == "alpha"
    # The subagent's streamed text stays inside its block: only the main answer is streamed.
    assert "".join(e["text"] for e in events if e["type"] == "text_delta") == "done"


def test_provider_failure_inside_subagent_is_an_error_result(cli, fake, astro_env):
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "x"}}]},
        *[{"status": 400, "error": "bad request"}],
        {"text": "the subagent failed, sorry"},
    )
    out = run_json(cli, astro_env, "go")
    assert out["answer"] == "the subagent failed, sorry"
    [result] = tool_results(fake.bodies()[2])
    assert result.startswith("Error: the subagent stopped because the model provider failed")


def test_agents_and_hooks_slash_commands(tmp_path: Path, monkeypatch) -> None:
    import io

    import yaml
    from rich.console import Console

    from astro_cli.bootstrap import build_app
    from astro_cli.slash import SlashContext
    from tests.helpers import trust_workspace

    monkeypatch.setenv("ASTRO_HOME", str(tmp_path / "home"))
    for key in ("ASTRO_HOOKS", "ASTRO_FAIL_CLOSED"):
        monkeypatch.delenv(key, raising=False)
    ws = tmp_path / "ws"
    (ws / ".astro" / "agents").mkdir(parents=True)
    (ws / ".astro" / "agents" / "scout.md").write_text(AGENT)
    (ws / ".astro" / "agents" / "empty.md").write_text("---\nname: empty\ndescription: nothing\n---\n")
    (ws / ".astro" / "config.yaml").write_text(yaml.safe_dump(
        {"hooks": {"PreToolUse": [{"matcher": "run_bash", "hooks": [{"command": "./check.sh"}]}]}}))
    trust_workspace(ws, tmp_path / "home")
    app = build_app(workspace=ws)
    app.install_features()
    out = io.StringIO()
    ctx = SlashContext(app=app, console=Console(file=out, width=200, no_color=True), session=None)
    slash_commands(app)["agents"].handler(ctx, "")
    slash_commands(app)["hooks"].handler(ctx, "")
    text = out.getvalue()
    assert "scout" in text and "read_file" in text and "Finds the key number in a local file." in text
    assert "skipped:" in text and "the body (the agent's system prompt) is empty" in text
    assert "PreToolUse [run_bash]: ./check.sh" in text
    app.close()


def test_subagent_through_the_anthropic_format(cli, fake, anthropic_env):
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "Name one Cepheid.", "tools": []}}]},
        {"text": "Delta Cephei."},
        {"text": "Delta Cephei is one."},
    )
    out = run_json(cli, anthropic_env, "Name a Cepheid")
    assert out["answer"] == "Delta Cephei is one."
    main, sub, main2 = fake.bodies("anthropic")
    assert [block["text"] for block in sub["system"]] == [SUBAGENT_PROMPT]
    assert "tools" not in sub or sub["tools"] == []  # tools=[]: a subagent that only thinks
    returned = [b for m in main2["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])
                if b.get("type") == "tool_result"]
    assert "Delta Cephei." in json.dumps(returned)


def test_subagent_runs_leave_the_prompt_registry_as_they_found_it(fake, astro_env, workspace, monkeypatch):
    """Each run's scoped prompt section and variable go when the run ends: a long session that
    delegates often does not grow the shared registry (nor see an earlier run's instructions)."""
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.bootstrap import build_app

    for key, value in astro_env.items():
        monkeypatch.setenv(key, value)
    runs = 4
    for index in range(runs):
        fake.add(
            {"tool_calls": [{"name": "subagent", "arguments": {"task": f"Sub-task {index}.", "max_steps": 1}}]},
            {"text": f"Sub-answer {index}."},
            {"text": f"Answer {index}."},
        )
    app = build_app(workspace=workspace)
    try:
        session = open_session(app, EventBus(), permission_policy(app, yes=True))
        before = len(app.prompt)
        for index in range(runs):
            assert session.run_turn(f"Question {index}").answer == f"Answer {index}."
        assert len(app.prompt) == before
    finally:
        app.close()
    sub_prompts = [system_of(body) for body in fake.bodies() if system_of(body) == SUBAGENT_PROMPT]
    assert len(sub_prompts) == runs  # every run still had its own prompt while it ran
