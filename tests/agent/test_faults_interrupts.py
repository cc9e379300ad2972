"""Interrupts stop what they interrupt; timeouts bound the step (issue 13), with the real process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from astro_cli.pids import pid_alive
from tests.fakeprovider import FakeProvider
from tests.helpers import last_json, wait_for


def _start(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "astro_cli", *args], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _ended_without_effect(pidfile: Path, effect: Path) -> None:
    """The interrupted shell is gone, so its last step (`touch effect`) can never run; and it did not.

    Waiting for the shell's end (not a fixed pause) covers a shell astro failed to stop: it ends
    after its `sleep 4`, having made the effect, and the assertion fails."""
    pid = int(pidfile.read_text())
    assert wait_for(lambda: not pid_alive(pid), timeout=60), "the interrupted command is still running"
    assert not effect.exists(), "the command went on after astro was interrupted"


def _mentioning(text: str) -> list[int]:
    """Host pids whose command line holds `text` (the sandbox's bwrap and the shell it runs)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if text.encode() in cmdline and pid_alive(int(entry.name)):
                pids.append(int(entry.name))
    return pids


def _sandboxed_ended_without_effect(effect: Path) -> None:
    """In the sandbox `echo $$` gives a pid of its own namespace, so the command is followed by
    its command line (which names the effect file) among the host's processes instead."""
    assert wait_for(lambda: not _mentioning(str(effect)), timeout=60), "the interrupted command is still running"
    assert not effect.exists(), "the command went on after astro was interrupted"


def _interrupt_run(fake: FakeProvider, env: dict[str, str], workspace: Path, sig: int) -> tuple[Path, Path]:
    """`astro run` a command, interrupt it with `sig` once it started; its pid file and effect file."""
    started, pidfile = workspace / "started", workspace / "command.pid"
    effect = workspace / "effect.txt"
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": {
        "command": f"echo $$ > {pidfile}; touch {started}; sleep 4; touch {effect}"}}]})
    proc = _start(["run", "--allow", "run_bash", "Make the effect"], env, workspace)
    try:
        assert wait_for(started.exists, timeout=60), "the command never started"
        assert _mentioning(str(effect)), "the running command is not found by its command line"
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    return pidfile, effect


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_ends_the_command_it_interrupted(fake: FakeProvider, astro_env, workspace, sig):
    _ended_without_effect(*_interrupt_run(fake, unsandboxed(astro_env), workspace, sig))


def test_an_interrupt_ends_the_sandboxed_command_too(fake: FakeProvider, astro_env, workspace):
    _pidfile, effect = _interrupt_run(fake, astro_env, workspace, signal.SIGTERM)
    _sandboxed_ended_without_effect(effect)


def test_an_interrupt_ends_background_commands_too(fake: FakeProvider, astro_env, workspace):
    astro_env = unsandboxed(astro_env)
    effect = workspace / "bg-effect.txt"
    pidfile = workspace / "bg.pid"
    fake.add(
        {"tool_calls": [{"name": "bg_task_run", "arguments": {
            "tool": "run_bash", "arguments": {"command": f"echo $$ > {pidfile}; sleep 4; touch {effect}"}}}]},
        {"text": "waiting", "hang": True},
    )
    proc = _start(["run", "--allow", "run_bash", "Start it in the background"], astro_env, workspace)
    try:
        assert wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(), timeout=60)
        assert wait_for(fake.hanging.is_set, timeout=30)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=180)
    finally:
        fake.release.set()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert not pid_alive(int(pidfile.read_text())), "the background command outlived astro"
    assert not effect.exists()  # its shell is gone: `touch` can no longer run


def unsandboxed(env: dict[str, str]) -> dict[str, str]:
    """These tests follow pids and pipes of commands run without the sandbox (its fallback); in the
    sandbox everything a command starts ends with it (tests/security/test_security_sandbox.py)."""
    return dict(env, ASTRO_SANDBOX_ENABLED="0")


def _bash_step(proc: subprocess.CompletedProcess) -> float:
    """How long the run_bash call took, from the run's own tool_finished event (not the process's
    wall time, which a loaded machine stretches with interpreter start and litellm's import)."""
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return next(e["duration"] for e in events if e["type"] == "tool_finished" and e["name"] == "run_bash")


def test_a_detached_child_does_not_stretch_the_timeout(fake: FakeProvider, astro_env, workspace):
    """`setsid sleep 40 &` keeps the output pipe open; the step ends at the timeout anyway."""
    astro_env = unsandboxed(astro_env)
    (workspace / ".astro").mkdir()
    (workspace / ".astro" / "config.yaml").write_text("bash:\n  timeout: 3\n")
    pidfile, late, foreground_late = workspace / "detached.pid", workspace / "late", workspace / "foreground-late"
    fake.add(
        {"tool_calls": [{"name": "run_bash", "arguments": {
            "command": f"setsid sh -c 'echo $$ > {pidfile}; sleep 40; touch {late}' & echo started; "
                       f"sleep 30; touch {foreground_late}"}}]},
        {"text": "done"},
    )
    proc = subprocess.run([sys.executable, "-m", "astro_cli", "run", "--allow", "run_bash", "--output-format",
                           "stream-json", "Start it"], env=astro_env, cwd=workspace, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = [m["content"] for m in fake.bodies()[1]["messages"] if m["role"] == "tool"][-1]
    assert "started" in result
    assert "stopped after 3 s" in result
    # The detached child held the output open: it was found and stopped, and the result says so.
    assert "still held its output" in result and "stopped" in result
    assert not pid_alive(int(pidfile.read_text()))
    # The order of events, not a clock: the step ended before either sleep could finish on its own.
    assert not foreground_late.exists(), "the step waited for the command past its timeout"
    assert not late.exists(), "the step waited for the detached child"
    assert last_json(proc.stdout)["answer"] == "done"


def test_a_finished_command_with_a_background_child_returns_at_once(fake: FakeProvider, astro_env, workspace):
    """The command ends but leaves a child writing to its output: astro answers, says what still runs."""
    astro_env = unsandboxed(astro_env)
    late = workspace / "late"
    fake.add(
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": f"(sleep 30; touch {late}) & echo launched"}}]},
        {"text": "done"},
    )
    proc = subprocess.run([sys.executable, "-m", "astro_cli", "run", "--allow", "run_bash", "--output-format",
                           "stream-json", "Launch it"], env=astro_env, cwd=workspace, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = [m["content"] for m in fake.bodies()[1]["messages"] if m["role"] == "tool"][-1]
    assert "launched" in result and "[exit code 0]" in result
    assert "still running" in result and "sleep 30" in result
    # The order of events, not a clock: the step returned before the background child could end.
    assert not late.exists(), "the step waited for the background child"


PLUGIN = '''
import time
from pathlib import Path

from astro_cli.tools.base import Tool, object_schema


def register(api):
    def stubborn(ctx, args):
        time.sleep(float(args["seconds"]))  # does not look at ctx.cancel
        Path(args["path"]).write_text("written late")
        return "wrote " + args["path"]

    def polite(ctx, args):
        if ctx.cancel.wait(float(args["seconds"])):
            return "stopped before writing"
        Path(args["path"]).write_text("written")
        return "wrote " + args["path"]

    schema = object_schema({"path": {"type": "string"}, "seconds": {"type": "number"}}, ["path", "seconds"])
    api.add_tool(Tool(name="slow_write", description="Write slowly.", parameters=schema, run=stubborn,
                      timeout=1.5))
    api.add_tool(Tool(name="polite_write", description="Write slowly unless cancelled.", parameters=schema,
                      run=polite, timeout=1.5))
'''


@pytest.fixture
def plugin_env(tmp_path: Path, astro_env: dict[str, str]) -> dict[str, str]:
    site = tmp_path / "site"
    (site / "astro_fault_plugin").mkdir(parents=True)
    (site / "astro_fault_plugin" / "__init__.py").write_text(PLUGIN)
    info = site / "astro_fault_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: astro-fault-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[astro.plugins]\nfaults = astro_fault_plugin:register\n")
    return {**astro_env, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), astro_env.get("PYTHONPATH")]))}


def test_a_timed_out_tool_is_cancelled_or_reported_still_running(fake: FakeProvider, plugin_env, workspace):
    polite, stubborn = workspace / "polite.txt", workspace / "stubborn.txt"
    fake.add(
        {"tool_calls": [{"name": "polite_write", "arguments": {"path": str(polite), "seconds": 6}},
                        {"name": "slow_write", "arguments": {"path": str(stubborn), "seconds": 4}}]},
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "sleep 4"}}]},
        {"text": "done"},
    )
    proc = subprocess.run([sys.executable, "-m", "astro_cli", "run", "--yes", "--output-format", "json", "Write"],
                          env=plugin_env, cwd=workspace, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    polite_result, stubborn_result = [m["content"] for m in fake.bodies()[1]["messages"] if m["role"] == "tool"]
    assert "did not finish within 1.5 s and was cancelled" in polite_result
    assert "still running" in stubborn_result and "its effect may still happen" in stubborn_result
    # The late completion is not silent: the model hears of it at its next request.
    third = fake.bodies()[2]["messages"]
    late = [m["content"] for m in third if m["role"] == "user" and "finished after all" in str(m["content"])]
    assert late and "slow_write" in late[0] and "wrote" in late[0]
    assert stubborn.read_text() == "written late"
    # astro has exited, so no thread of it can still write: the cancelled tool never did.
    assert not polite.exists()
    shown = subprocess.run([sys.executable, "-m", "astro_cli", "sessions", "export", last_json(proc.stdout)["session_id"],
                            "--format", "json"], env=plugin_env, cwd=workspace, capture_output=True, text=True)
    kinds = [m.get("kind") for m in json.loads(shown.stdout)["messages"]]
    assert "late_result" in kinds


def test_a_background_task_past_its_timeout_is_reported_as_maybe_still_running(fake: FakeProvider, plugin_env,
                                                                               workspace):
    """Background tasks share the foreground's executor: a tool that ignores cancellation is not
    reported as merely failed while its write may still happen."""
    stubborn = workspace / "stubborn.txt"
    fake.add(
        {"tool_calls": [{"name": "bg_task_run",
                         "arguments": {"tool": "slow_write", "arguments": {"path": str(stubborn), "seconds": 5}}}]},
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "sleep 4.5"}}]},
        {"tool_calls": [{"name": "bg_task_run", "arguments": {"task_id": "bg-1"}}]},
        {"text": "done"},
    )
    proc = subprocess.run([sys.executable, "-m", "astro_cli", "run", "--yes", "--output-format", "json", "Write"],
                          env=plugin_env, cwd=workspace, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    read = [m["content"] for m in fake.bodies()[3]["messages"] if m["role"] == "tool"][-1]
    assert "did not finish within 1.5 s and could not be cancelled" in read, read
    assert "its effect may still happen" in read


def test_sigterm_ends_the_repl_and_its_commands(fake: FakeProvider, astro_env, workspace):
    astro_env = unsandboxed(astro_env)
    home = Path(astro_env["ASTRO_HOME"])  # the user's own settings: no workspace trust involved
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("permissions:\n  allow: [run_bash]\n")
    started, effect, pidfile = workspace / "started", workspace / "effect.txt", workspace / "command.pid"
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": {
        "command": f"echo $$ > {pidfile}; touch {started}; sleep 4; touch {effect}"}}]})
    proc = subprocess.Popen([sys.executable, "-m", "astro_cli"], env=astro_env, cwd=workspace, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdin is not None
        proc.stdin.write("Make the effect\n")
        proc.stdin.flush()
        assert wait_for(started.exists, timeout=60), "the command never started"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    _ended_without_effect(pidfile, effect)
