"""Task plans: todo_write checks and stores the whole list, the plan comes back to the model at the start
of every turn and in a resumed session, and people see it in /tasks and `astro sessions show`."""

from __future__ import annotations

import io
import json

import pytest

from astro_cli.slash import slash_commands
from astro_cli.tasks.store import InvalidTaskList, parse_tasks
from tests.fakeprovider import FakeProvider
from tests.helpers import last_json

PLAN = [
    {"id": "search", "content": "Search ADS for JWST high-z galaxy papers", "status": "in_progress"},
    {"id": "read", "content": "Read the five most cited", "status": "pending", "depends_on": ["search"]},
    {"id": "table", "content": "Tabulate the UV luminosity functions", "status": "pending",
     "depends_on": ["read"], "assignee": "lead"},
]
UPDATED = [
    {**PLAN[0], "status": "completed"},
    {**PLAN[1], "status": "in_progress"},
    PLAN[2],
]




def _todo(todos) -> dict:
    return {"tool_calls": [{"name": "todo_write", "arguments": {"todos": todos}}]}


def _user_texts(body: dict) -> list[str]:
    return [m.get("content") or "" for m in body["messages"] if m["role"] == "user"]


def _tool_results(body: dict) -> list[str]:
    return [m.get("content") or "" for m in body["messages"] if m["role"] == "tool"]


# --- the checks todo_write makes ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("todos", "reason"),
    [
        ([{"id": "a", "content": "x", "status": "pending"}, {"id": "a", "content": "y", "status": "pending"}],
         "the id 'a' is used by more than one item"),
        ([{"id": "a", "content": "x", "status": "pending", "depends_on": ["ghost"]}],
         "task 'a' depends on 'ghost', which is not in the list"),
        ([{"id": "a", "content": "x", "status": "in_progress"}, {"id": "b", "content": "y", "status": "in_progress"}],
         "2 tasks are in progress (a, b)"),
        ([{"id": "a", "content": "x", "status": "done"}], "use one of pending, in_progress, completed"),
        ([{"id": "a", "content": "x", "status": "pending", "depends_on": ["a"]}], "task 'a' depends on itself"),
        ([{"id": "a", "content": "x", "status": "pending", "depends_on": ["b"]},
          {"id": "b", "content": "y", "status": "pending", "depends_on": ["a"]}],
         "the dependencies form a cycle (a -> b -> a)"),
        ([{"id": "a", "status": "pending"}], "item 1 has no content"),
        ("not a list", "'todos' must be a list"),
    ],
)
def test_invalid_lists_are_refused_with_the_reason(todos, reason):
    with pytest.raises(InvalidTaskList) as info:
        parse_tasks(todos, single_in_progress=True)
    assert reason in str(info.value)


def test_a_list_sent_as_json_text_is_accepted():
    tasks = parse_tasks(json.dumps(PLAN), single_in_progress=True)
    assert [t.id for t in tasks] == ["search", "read", "table"] and tasks[2].depends_on == ["read"]


def test_two_in_progress_are_accepted_when_config_allows():
    todos = [{"id": "a", "content": "x", "status": "in_progress"}, {"id": "b", "content": "y", "status": "in_progress"}]
    assert [t.status for t in parse_tasks(todos, single_in_progress=False)] == ["in_progress", "in_progress"]


# --- end to end ----------------------------------------------------------------------------------
def test_plan_created_updated_and_recovered_in_the_next_turn(cli, fake: FakeProvider, astro_env, workspace):
    fake.add(_todo(PLAN), _todo(UPDATED), {"text": "Search done; reading next."})
    first = cli(["run", "--output-format", "json", "Review JWST high-z galaxy papers"], env=astro_env)
    assert first.exit_code == 0, first.stderr
    results = _tool_results(fake.bodies()[2])
    assert results[0] == "Task list saved: 3 tasks (0 done, 1 in progress, 2 pending)."
    assert results[1] == "Task list saved: 3 tasks (1 done, 1 in progress, 1 pending)."
    # The environment message counts open tasks once a plan exists.
    assert "open tasks: 3 of 3" in fake.bodies()[1]["messages"][-1]["content"]
    assert "open tasks: 2 of 3" in fake.bodies()[2]["messages"][-1]["content"]

    fake.add({"text": "Continuing with the reading."})
    second = cli(["run", "--continue", "--output-format", "json", "Go on"], env=astro_env)
    assert second.exit_code == 0, second.stderr
    messages = fake.bodies()[3]["messages"]
    assert messages[-3] == {"role": "user", "content": "Go on"}
    assert messages[-2]["content"] == (
        "[Current task state]\n"
        "The task plan saved in this session; continue from its latest state:\n\n"
        "✅ [search] Search ADS for JWST high-z galaxy papers\n"
        "🔄 [read] Read the five most cited (depends on: search)\n"
        "⏳ [table] Tabulate the UV luminosity functions (depends on: read; assignee: lead)\n\n"
        "Update it with the todo_write tool as you make progress."
    )
    # It is stored as a recovery message, not as something the user typed.
    exported = json.loads(cli(["sessions", "export", last_json(second.stdout)["session_id"], "--format", "json"],
                              env=astro_env).stdout)
    kinds = [m["kind"] for m in exported["messages"] if m["role"] == "user"]
    assert kinds == ["message", "message", "recovery"]


def test_recovery_in_a_resumed_session_and_a_second_turn_of_one_session(fake: FakeProvider, astro_env, workspace,
                                                                         monkeypatch):
    """Two turns of one AgentSession (as in the REPL), then a new process resuming it by id."""
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.bootstrap import build_app
    from astro_cli.tasks.events import TasksUpdated

    for key, value in astro_env.items():
        monkeypatch.setenv(key, value)
    fake.add(_todo(PLAN), {"text": "Planned."}, {"text": "Still searching."})
    app = build_app(workspace=workspace)
    seen = []
    bus = EventBus()
    bus.subscribe(seen.append)
    try:
        session = open_session(app, bus, permission_policy(app))
        assert session.run_turn("Plan a review").stop_reason == "answered"
        assert not any("[Current task state]" in text for text in _user_texts(fake.bodies()[1]))
        updates = [e for e in seen if isinstance(e, TasksUpdated)]
        assert len(updates) == 1 and updates[0].text.splitlines()[0] == "🔄 [search] " + PLAN[0]["content"]
        session.run_turn("Next?")
        texts = _user_texts(fake.bodies()[2])
        assert texts[-3] == "Next?" and texts[-2].startswith("[Current task state]")
        session_id = session.session_id
    finally:
        app.close()

    # Resumed in a new AppContext (a new `astro --resume`): the user sees the plan at once, the model with
    # the first message.
    fake.add({"text": "Resumed."})
    app = build_app(workspace=workspace)
    seen.clear()
    try:
        session = open_session(app, bus, permission_policy(app), resume=session_id)
        assert [e.text.count("\n") for e in seen if isinstance(e, TasksUpdated)] == [2]
        session.run_turn("Where were we?")
    finally:
        app.close()
    texts = _user_texts(fake.bodies()[3])
    assert texts[-2].startswith("[Current task state]") and "🔄 [search]" in texts[-2]
    # One recovery per turn, never two in a row.
    assert sum(t.startswith("[Current task state]") for t in texts) == 2


def test_invalid_list_is_an_error_result_and_keeps_the_stored_plan(cli, fake: FakeProvider, astro_env):
    bad = [{**PLAN[0]}, {**PLAN[1], "status": "in_progress"}, PLAN[2]]
    ghost = [PLAN[0], {**PLAN[1], "depends_on": ["fetch"]}]
    fake.add(_todo(PLAN), _todo(bad), _todo(ghost), {"text": "ok"})
    result = cli(["run", "--output-format", "json", "Plan"], env=astro_env)
    obj = last_json(result.stdout)
    assert obj["tool_calls"] == [{"name": "todo_write", "ok": True}, {"name": "todo_write", "ok": False},
                                 {"name": "todo_write", "ok": False}]
    results = _tool_results(fake.bodies()[3])
    assert results[1] == (
        "Error: The task list was not saved: 2 tasks are in progress (search, read); keep exactly one in progress "
        "at a time (config 'tasks.single_in_progress'). Send the whole corrected list."
    )
    assert "task 'read' depends on 'fetch', which is not in the list" in results[2]
    shown = cli(["sessions", "show", obj["session_id"]], env=astro_env)
    assert "🔄 [search]" in shown.stdout and "⏳ [read]" in shown.stdout


def test_single_in_progress_can_be_switched_off(cli, fake: FakeProvider, astro_env):
    both = [{**PLAN[0]}, {**PLAN[1], "status": "in_progress"}]
    fake.add(_todo(both), {"text": "ok"})
    result = cli(["run", "--output-format", "json", "Plan"], env={**astro_env, "ASTRO_TASKS_SINGLE_IN_PROGRESS": "false"})
    assert last_json(result.stdout)["tool_calls"] == [{"name": "todo_write", "ok": True}]


def test_no_recovery_when_every_task_is_done_or_recovery_is_off(cli, fake: FakeProvider, astro_env):
    done = [{**item, "status": "completed"} for item in PLAN]
    fake.add(_todo(PLAN), {"text": "planned"}, {"text": "a"}, _todo(done), {"text": "all done"}, {"text": "b"})
    cli(["run", "Plan"], env=astro_env)
    cli(["run", "--continue", "Next"], env={**astro_env, "ASTRO_TASKS_RECOVERY": "false"})
    assert not any("[Current task state]" in t for t in _user_texts(fake.bodies()[2]))
    cli(["run", "--continue", "Finish"], env=astro_env)  # recovery here: two tasks were still open
    assert _user_texts(fake.bodies()[3])[-2].startswith("[Current task state]")
    cli(["run", "--continue", "Anything else?"], env=astro_env)
    assert not any("[Current task state]" in t for t in _user_texts(fake.bodies()[5])[-2:])
    assert "open tasks: 0 of 3" in fake.bodies()[5]["messages"][-1]["content"]


def test_sessions_show_and_slash_tasks_list_the_plan(cli, fake: FakeProvider, astro_env, workspace, monkeypatch):
    fake.add(_todo(UPDATED), {"text": "ok"})
    session_id = last_json(cli(["run", "--output-format", "json", "Plan"], env=astro_env).stdout)["session_id"]
    shown = cli(["sessions", "show", session_id], env=astro_env)
    assert shown.exit_code == 0
    assert "Tasks" in shown.stdout
    for line in ("✅ [search]", "🔄 [read] Read the five most cited (depends on: search)", "assignee: lead"):
        assert line in shown.stdout
    exported = cli(["sessions", "export", session_id], env=astro_env).stdout
    assert "## Tasks\n\n- ✅ [search] Search ADS for JWST high-z galaxy papers\n" in exported

    from rich.console import Console

    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.bootstrap import build_app
    from astro_cli.slash import SlashContext

    for key, value in astro_env.items():
        monkeypatch.setenv(key, value)
    app = build_app(workspace=workspace)
    try:
        session = open_session(app, EventBus(), permission_policy(app), resume=session_id)
        out = io.StringIO()
        ctx = SlashContext(app=app, console=Console(file=out, width=120), session=session)
        slash_commands(app)["tasks"].handler(ctx, "")
    finally:
        app.close()
    assert out.getvalue().splitlines() == [
        "✅ [search] Search ADS for JWST high-z galaxy papers",
        "🔄 [read] Read the five most cited (depends on: search)",
        "⏳ [table] Tabulate the UV luminosity functions (depends on: read; assignee: lead)",
        "",
        "1 done, 1 in progress, 1 pending",
    ]


def test_sessions_show_in_a_fresh_process_lists_the_plan_without_litellm(cli, fake: FakeProvider, astro_env, workspace):
    import subprocess
    import sys

    fake.add(_todo(PLAN), {"text": "ok"})
    session_id = last_json(cli(["run", "--output-format", "json", "Plan"], env=astro_env).stdout)["session_id"]
    code = (
        "import sys\nfrom astro_cli.main import main\nsys.argv = ['astro'] + sys.argv[1:]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LITELLM' if 'litellm' in sys.modules else 'CLEAN')\n"
    )
    out = subprocess.run([sys.executable, "-c", code, "sessions", "show", session_id], capture_output=True,
                         text=True, cwd=workspace, env=astro_env, timeout=180)
    assert "🔄 [search] Search ADS for JWST high-z galaxy papers" in out.stdout, out.stderr
    assert out.stdout.strip().endswith("CLEAN")
