"""Nudges fire exactly when their rule says, not a step earlier, and not at all when switched off.

Each is a user message stored with kind 'nudge' (never a change of the system prompt). The rules
that live in the loop alone run a real session on the in-process fake model (tests/fakemodel.py);
those that read what `astro run` prints or stores go through the real litellm and the wire fake."""

from __future__ import annotations

import json

import pytest

from astro_cli.agent.loop import EMPTY_REPLY_TEXT, MAX_STEPS_TEXT
from astro_cli.tasks.nudges import DIMINISHING_TEXT, STALE_PLAN_TEXT
from tests.conftest import base_env, clear_astro_environment
from tests.fakemodel import FakeModel
from tests.fakeprovider import FakeProvider
from tests.helpers import last_json

PLAN = [
    {"id": "t1", "content": "Read the observation logs", "status": "in_progress"},
    {"id": "t2", "content": "Summarise the fluxes", "status": "pending", "depends_on": ["t1"]},
]
STALE = STALE_PLAN_TEXT.format(steps=3)
DULL = DIMINISHING_TEXT.format(steps=2)




def _read(name: str) -> dict:
    return {"tool_calls": [{"name": "read_file", "arguments": {"path": name}}]}


def _todo(todos) -> dict:
    return {"tool_calls": [{"name": "todo_write", "arguments": {"todos": todos}}]}


def _has(body: dict, text: str) -> int:
    return sum(1 for m in body["messages"] if m["role"] == "user" and m.get("content") == text)


def _firing(fake: FakeProvider | FakeModel, text: str) -> list[int]:
    """The request indexes at which `text` first appears (one per time it was injected)."""
    firing, before = [], 0
    for index, body in enumerate(fake.bodies()):
        now = _has(body, text)
        if now > before:
            firing.append(index)
        before = now
    return firing


@pytest.fixture
def session_on(workspace, monkeypatch):
    """session_on(model, env=None) -> a real session in `workspace` whose model is `model`."""
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.bootstrap import build_app

    apps = []

    def open_(model: FakeModel, env: dict[str, str] | None = None):
        clear_astro_environment(monkeypatch)
        for key, value in {**base_env(workspace.parent), **(env or {})}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(workspace)
        app = build_app(workspace=workspace)
        apps.append(app)
        return open_session(app, EventBus(), permission_policy(app, yes=True), llm=model)

    yield open_
    for app in reversed(apps):
        app.close()


@pytest.fixture
def logs(workspace):
    for n in range(8):
        (workspace / f"log{n}.txt").write_text(f"night {n}: flux {n * 1.1:.1f} mJy\n")
    return workspace


# --- stale plan -----------------------------------------------------------------------------------
def test_stale_plan_fires_after_three_steps_without_update_and_again_three_later(cli, fake, astro_env, logs):
    # step 1 plans; steps 2-4 read (no update) -> nudge before request 5; steps 5-7 read -> again before 8.
    fake.add(_todo(PLAN), *[_read(f"log{n}.txt") for n in range(6)], {"text": "Fluxes summarised."})
    result = cli(["run", "--output-format", "json", "Summarise my logs"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    assert _firing(fake, STALE) == [4, 7]
    assert "nudge: Reminder: your task plan" in result.stderr  # shown (dimmed) to the user too
    exported = json.loads(cli(["sessions", "export", last_json(result.stdout)["session_id"], "--format", "json"],
                              env=astro_env).stdout)
    nudges = [m for m in exported["messages"] if m.get("content") == STALE]
    assert [(m["role"], m["kind"]) for m in nudges] == [("user", "nudge"), ("user", "nudge")]
    # Never an edit of the system prompt: it is the same in every request.
    assert len({body["messages"][0]["content"] for body in fake.bodies()}) == 1


def test_updating_the_plan_resets_the_count(cli, fake, astro_env, logs):
    updated = [{**PLAN[0], "status": "completed"}, {**PLAN[1], "status": "in_progress"}]
    fake.add(_todo(PLAN), _read("log0.txt"), _read("log1.txt"), _todo(updated), _read("log2.txt"),
             _read("log3.txt"), {"text": "done"})
    cli(["run", "Summarise"], env=astro_env)
    assert _firing(fake, STALE) == []


def test_no_stale_plan_nudge_without_open_tasks(cli, fake, astro_env, logs):
    done = [{**item, "status": "completed"} for item in PLAN]
    fake.add(*[_read(f"log{n}.txt") for n in range(4)], _todo(done), *[_read(f"log{n}.txt") for n in range(4, 8)],
             {"text": "done"})
    cli(["run", "Summarise"], env=astro_env)
    assert _firing(fake, STALE) == []


@pytest.mark.parametrize(("setting", "expected"), [("0", []), ("2", [3, 5, 7])])
def test_stale_plan_steps_setting(cli, fake, astro_env, logs, setting, expected):
    fake.add(_todo(PLAN), *[_read(f"log{n}.txt") for n in range(6)], {"text": "done"})
    cli(["run", "Summarise"], env={**astro_env, "ASTRO_NUDGES_STALE_PLAN_STEPS": setting})
    assert _firing(fake, STALE_PLAN_TEXT.format(steps=setting)) == expected


# --- diminishing returns --------------------------------------------------------------------------
def test_two_repeated_steps_ask_for_the_final_answer(session_on, logs):
    # step 1 new; steps 2 and 3 repeat the same call -> nudge before request 4, not before 3.
    model = FakeModel(_read("log0.txt"), _read("log0.txt"), _read("log0.txt"), {"text": "Flux 0.0 mJy."})
    state = session_on(model).run_turn("What is the flux?")
    assert (state.stop_reason, state.answer) == ("answered", "Flux 0.0 mJy.")
    assert _firing(model, DULL) == [3]


def test_identical_results_count_as_nothing_new(session_on, logs):
    (logs / "copy_a.txt").write_text("night 0: flux 0.0 mJy\n")
    (logs / "copy_b.txt").write_text("night 0: flux 0.0 mJy\n")
    model = FakeModel(_read("log0.txt"), _read("copy_a.txt"), _read("copy_b.txt"), {"text": "Same flux everywhere."})
    session_on(model).run_turn("Compare")
    assert _firing(model, DULL) == [3]


def test_a_new_result_between_repeats_resets_the_count(session_on, logs):
    model = FakeModel(_read("log0.txt"), _read("log0.txt"), _read("log1.txt"), _read("log1.txt"), {"text": "done"})
    session_on(model).run_turn("Compare")
    assert len(model.requests) == 5
    assert _firing(model, DULL) == []


def test_repeats_in_an_earlier_turn_do_not_count(session_on, logs):
    model = FakeModel(_read("log0.txt"), {"text": "first"}, _read("log0.txt"), _read("log0.txt"), {"text": "second"})
    session = session_on(model)
    session.run_turn("Q1")
    session.run_turn("Q2")
    assert len(model.requests) == 5
    assert _firing(model, DULL) == []


def test_diminishing_returns_can_be_switched_off(session_on, logs):
    model = FakeModel(_read("log0.txt"), _read("log0.txt"), _read("log0.txt"), _read("log0.txt"), {"text": "done"})
    session_on(model, {"ASTRO_NUDGES_DIMINISHING_RETURNS_STEPS": "0"}).run_turn("Loop")
    assert len(model.requests) == 5
    assert not any("brought nothing new" in json.dumps(body) for body in model.bodies())


# --- step budget and empty replies (rules in agent/loop.py) ---------------------------------------
def test_step_budget_nudge_comes_exactly_when_the_budget_is_used(cli, fake, astro_env, logs):
    fake.add(_read("log0.txt"), _read("log1.txt"), {"text": "Final from what I have."})
    result = cli(["run", "--max-steps", "2", "--output-format", "json", "Read all logs"], env=astro_env)
    assert result.exit_code == 0
    text = MAX_STEPS_TEXT.format(steps=2, max_steps=2)
    assert _firing(fake, text) == [2]
    assert [body.get("tool_choice") for body in fake.bodies()] == [None, None, "none"]


def test_step_budget_nudge_switched_off_still_stops_tools(session_on, logs):
    model = FakeModel(_read("log0.txt"), _read("log1.txt"), {"text": "Final."})
    session_on(model, {"ASTRO_MAX_STEPS": "2", "ASTRO_NUDGES_MAX_STEPS": "false"}).run_turn("Read all logs")
    assert not any("the budget is" in json.dumps(body) for body in model.bodies())
    assert model.bodies()[2]["tool_choice"] == "none"


def test_one_empty_reply_is_nudged_and_the_turn_goes_on(session_on, workspace):
    model = FakeModel({"text": ""}, {"text": "The answer after all."})
    state = session_on(model).run_turn("Answer")
    assert (state.stop_reason, state.answer) == ("answered", "The answer after all.")
    assert _firing(model, EMPTY_REPLY_TEXT) == [1]


def test_two_empty_replies_pause_the_turn(cli, fake, astro_env):
    fake.add({"text": ""}, {"text": ""}, {"text": "never requested"})
    result = cli(["run", "Answer"], env=astro_env)
    assert result.exit_code == 1
    assert len(fake.requests) == 2
    assert "two empty replies in a row; the turn is paused" in result.stderr
    assert "Traceback" not in result.stderr
