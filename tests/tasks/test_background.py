"""Background work: bg_task_run returns at once, the result is stored in SQLite and reaches the model at a
later step (and the user as a notice), work outlives its turn, exit cancels it, a crash reads as interrupted."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys

from astro_cli.pids import pid_alive
from astro_cli.slash import slash_commands
from astro_cli.tasks.nudges import BACKGROUND_DONE_HEADER, BACKGROUND_STOPPED_HEADER
from tests.fakeprovider import FakeProvider
from tests.helpers import last_json, wait_for


def _bg(command: str) -> dict:
    return {"tool_calls": [{"name": "bg_task_run", "arguments": {"tool": "run_bash", "arguments": {"command": command}}}]}


def _bash(command: str) -> dict:
    return {"tool_calls": [{"name": "run_bash", "arguments": {"command": command}}]}


def _announcements(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user"
            and (m.get("content") or "").startswith(("[Background task done]", "[Background task interrupted]"))]


def _rows(workspace) -> list[dict]:
    conn = sqlite3.connect(workspace / ".astro" / "astro.db")
    conn.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in conn.execute("SELECT * FROM bg_tasks ORDER BY id")]
    finally:
        conn.close()


def test_result_reaches_the_model_at_a_later_step(cli, fake: FakeProvider, astro_env, workspace):
    fake.add(
        _bg("sleep 0.5; echo 'bibcode 2023ApJ...1L'; touch bgdone"),
        _bash("until [ -f bgdone ]; do sleep 0.1; done; sleep 0.5; echo waited"),
        {"text": "The background search found 2023ApJ...1L."},
    )
    result = cli(["run", "--allow", "run_bash", "--output-format", "json", "Search in the background"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    bodies = fake.bodies()
    started = [m for m in bodies[1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert started.startswith("Started run_bash (sleep 0.5; echo 'bibcode 2023ApJ...1L'; touch bgdone) in the "
                              "background as bg-1.")
    assert _announcements(bodies[1]) == []  # not finished yet at step 2
    assert _announcements(bodies[2]) == [
        f"{BACKGROUND_DONE_HEADER} ✅ run_bash: sleep 0.5; echo 'bibcode 2023ApJ...1L'; touch bgdone: "
        "bibcode 2023ApJ...1L [exit code 0] (bg-1, 35 characters of output; bg_task_run with task_id 'bg-1' "
        "reads all of it)"
    ]
    assert "background task bg-1 ✅ completed: run_bash" in result.stderr  # the user is told too
    [row] = _rows(workspace)
    assert (row["status"], row["announced"], row["output"]) == ("completed", 1, "bibcode 2023ApJ...1L\n\n[exit code 0]")
    exported = json.loads(cli(["sessions", "export", last_json(result.stdout)["session_id"], "--format", "json"],
                              env=astro_env).stdout)
    assert [m["kind"] for m in exported["messages"] if (m.get("content") or "").startswith("[Background")] == ["nudge"]


def test_work_outlives_its_turn_and_is_announced_in_the_next(fake: FakeProvider, astro_env, workspace, monkeypatch):
    from astro_cli.agent.events import EventBus, Notice
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.bootstrap import build_app
    from astro_cli.slash import SlashContext

    for key, value in astro_env.items():
        monkeypatch.setenv(key, value)
    fake.add(_bg("until [ -e go ]; do sleep 0.05; done; seq 1 400"), {"text": "Started; I will report when it is done."},
             {"tool_calls": [{"name": "bg_task_run", "arguments": {"task_id": "bg-1"}}]}, {"text": "400 lines."})
    app = build_app(workspace=workspace)
    notices: list[str] = []
    bus = EventBus()
    bus.subscribe(lambda e: notices.append(e.text) if isinstance(e, Notice) else None)
    try:
        session = open_session(app, bus, permission_policy(app, allow=["run_bash"]))
        first = session.run_turn("Count to 400 in the background")
        assert first.stop_reason == "answered"
        assert _rows(workspace)[0]["status"] == "running"  # the turn is over, the work is not
        (workspace / "go").touch()  # the work waits for the test, not for a time a busy machine outruns
        assert wait_for(lambda: any("bg-1" in n for n in notices))
        session.run_turn("Is it done?")
        from rich.console import Console

        out = io.StringIO()
        slash_commands(app)["bg"].handler(SlashContext(app=app, console=Console(file=out, width=120),
                                                    session=session), "")
    finally:
        app.close()
    announced = _announcements(fake.bodies()[2])
    assert len(announced) == 1 and announced[0].startswith(f"{BACKGROUND_DONE_HEADER} ✅ run_bash: until [ -e go ]; do sleep 0.05; done; seq 1 400: 1 2 3")
    whole = [m for m in fake.bodies()[3]["messages"] if m["role"] == "tool"][-1]["content"]
    assert whole.startswith("bg-1 completed: run_bash until [ -e go ]; do sleep 0.05; done; seq 1 400\n1\n2\n3\n") and "\n400\n" in whole
    line = out.getvalue().strip()
    assert line.startswith("bg-1") and "completed" in line and "1.5 k chars" in line and "seq 1 400" in line


def test_inner_tool_needs_its_own_permission_and_must_exist(cli, fake: FakeProvider, astro_env, workspace):
    fake.add(_bg("echo hi"), {"tool_calls": [{"name": "bg_task_run", "arguments": {"tool": "launch_rocket"}}]},
             {"tool_calls": [{"name": "bg_task_run", "arguments": {"tool": "bg_task_run", "arguments": {}}}]},
             {"text": "I could not."})
    result = cli(["run", "--output-format", "json", "Run it"], env=astro_env)
    assert result.exit_code == 0
    results = [m["content"] for m in fake.bodies()[3]["messages"] if m["role"] == "tool"]
    assert results[0] == ("Error: bg_task_run was blocked: run_bash needs permission and none was given; the user "
                          "can allow it with --allow run_bash, --yes, or config 'permissions.allow'.")
    assert "there is no tool named 'launch_rocket'" in results[1] and "read_file" in results[1]
    assert "bg_task_run cannot run in the background" in results[2]
    assert _rows(workspace) == []


def test_running_limit(cli, fake: FakeProvider, astro_env, workspace):
    fake.add(_bg("sleep 5"), _bg("sleep 5"), {"text": "one of two"})
    cli(["run", "--allow", "run_bash", "Two jobs"], env={**astro_env, "ASTRO_BACKGROUND_MAX_RUNNING": "1"})
    second = [m for m in fake.bodies()[2]["messages"] if m["role"] == "tool"][-1]["content"]
    assert second.startswith("Error: 1 background tasks are already running (bg-1)")
    assert len(_rows(workspace)) == 1


def test_exit_cancels_running_work_and_the_next_turn_hears_of_it(cli, fake: FakeProvider, astro_env, workspace):
    # `echo $$` names a pid of astro's own namespace only without the sandbox (its fallback, tested here).
    astro_env = {**astro_env, "ASTRO_SANDBOX_ENABLED": "0"}
    fake.add(_bg("echo $$ > bg.pid; sleep 30; touch bg-finished"), {"text": "Started it."})
    result = cli(["run", "--allow", "run_bash", "Start a long job"], env=astro_env)
    assert result.exit_code == 0
    assert not (workspace / "bg-finished").exists()  # exit did not wait for the 30 s job
    [row] = _rows(workspace)
    assert row["status"] == "cancelled"
    pid = int((workspace / "bg.pid").read_text())
    assert wait_for(lambda: not pid_alive(pid), 30), "the background command outlived astro"

    fake.add({"text": "It was cancelled; shall I restart it?"})
    cli(["run", "--continue", "Did the job finish?"], env=astro_env)
    assert _announcements(fake.bodies()[2]) == [
        f"{BACKGROUND_STOPPED_HEADER} ⚠️ run_bash: echo $$ > bg.pid; sleep 30; touch bg-finished: astro exited before "
        "it finished; "
        "no result was recorded (bg-1). Start it again if you still need it."
    ]


def test_background_done_nudge_can_be_switched_off(cli, fake: FakeProvider, astro_env, workspace):
    fake.add(_bg("echo quick; touch bgdone"), _bash("until [ -f bgdone ]; do sleep 0.1; done; sleep 0.5"),
             {"text": "done"})
    result = cli(["run", "--allow", "run_bash", "Go"], env={**astro_env, "ASTRO_NUDGES_BACKGROUND_DONE": "false"})
    assert _announcements(fake.bodies()[2]) == []
    assert "background task bg-1 ✅ completed" in result.stderr  # the user still hears of it


def test_a_crash_leaves_interrupted_not_running(cli, fake: FakeProvider, astro_env, workspace):
    # `echo $$` names a pid of astro's own namespace only without the sandbox (its fallback, tested here).
    astro_env = {**astro_env, "ASTRO_SANDBOX_ENABLED": "0"}
    marker = workspace / "bg-started"
    fake.add(_bg("echo $$ > bg.pid; touch bg-started; sleep 20"), {"text": "Waiting for the job...", "hang": True})
    proc = subprocess.Popen([sys.executable, "-m", "astro_cli", "run", "--allow", "run_bash", "Long job"],
                            env=astro_env, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: marker.exists() and fake.hanging.is_set(), 60)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        fake.release.set()
    os.killpg(int((workspace / "bg.pid").read_text()), signal.SIGKILL)  # the orphan a kill -9 leaves behind
    assert [r["status"] for r in _rows(workspace)] == ["running"]  # what the dead process left
    listing = subprocess.run([sys.executable, "-m", "astro_cli", "sessions", "list", "--json"], env=astro_env,
                             cwd=workspace, capture_output=True, text=True)
    session_id = json.loads(listing.stdout)[0]["id"]
    shown = subprocess.run([sys.executable, "-m", "astro_cli", "sessions", "show", session_id], env=astro_env,
                           cwd=workspace, capture_output=True, text=True)
    assert "interrupted" in shown.stdout and "running" not in shown.stdout.split("Background tasks")[1]
    assert [r["status"] for r in _rows(workspace)] == ["interrupted"]
    # The next turn tells the model the task died with the crash.
    fake.add({"text": "The job was interrupted; I will start it again."})
    assert cli(["run", "--continue", "Status of the job?"], env=astro_env).exit_code == 0
    assert _announcements(fake.bodies()[-1]) == [
        f"{BACKGROUND_STOPPED_HEADER} ⚠️ run_bash: echo $$ > bg.pid; touch bg-started; sleep 20: astro stopped (crash or kill) before it "
        "finished; no result was recorded (bg-1). Start it again if you still need it."
    ]


def test_the_model_can_cancel_a_task(cli, fake: FakeProvider, astro_env, workspace):
    fake.add(_bg("sleep 30"), {"tool_calls": [{"name": "bg_task_run", "arguments": {"task_id": "bg-1", "cancel": True}}]},
             _bash("sleep 1"), {"text": "Cancelled it."})
    result = cli(["run", "--allow", "run_bash", "Start and stop"], env=astro_env)
    assert result.exit_code == 0  # the job did not run its 30 s: its row says cancelled (below)
    results = [m["content"] for m in fake.bodies()[2]["messages"] if m["role"] == "tool"]
    assert results[-1] == "bg-1 was asked to stop; you will be told when it has."
    assert _announcements(fake.bodies()[3]) == [
        f"{BACKGROUND_STOPPED_HEADER} ⚠️ run_bash: sleep 30: it was cancelled on request; no result was recorded "
        "(bg-1). Start it again if you still need it."
    ]
    assert _rows(workspace)[0]["status"] == "cancelled"
