"""kill -9 in the middle of a turn, then --resume: nothing stored is lost and the provider accepts the history.

The process killed is a cold `astro run` of its own (the crash a user can cause); the run that picks the
session up again goes through run_astro, as a user's next `astro run` goes to the warm worker when one is up.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from tests.fakeprovider import FakeProvider
from tests.helpers import exit_code, wait_for


def _start(args, env, cwd):
    return subprocess.Popen([sys.executable, "-m", "astro_cli", *args], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_kill_during_a_tool_then_resume(fake: FakeProvider, astro_env, workspace, run_astro):
    (workspace / "obs.txt").write_text("flux 3 mJy\n")
    marker = workspace / "started"
    fake.add(
        {"text": "Reading first.", "tool_calls": [{"name": "read_file", "arguments": {"path": "obs.txt"}}]},
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": f"touch {marker}; sleep 60"}}]},
    )
    proc = _start(["run", "--allow", "run_bash", "--output-format", "json", "Measure the flux"], astro_env, workspace)
    try:
        assert wait_for(marker.exists), "the tool never started"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    listing = subprocess.run([sys.executable, "-m", "astro_cli", "sessions", "list", "--json"], env=astro_env,
                             cwd=workspace, capture_output=True, text=True)
    session_id = json.loads(listing.stdout)[0]["id"]

    fake.add({"text": "The flux is 3 mJy (the long command was interrupted)."})
    resumed = run_astro(["run", "--resume", session_id, "--output-format", "json", "Go on"], astro_env)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["session_id"] == session_id
    messages = fake.bodies()[-1]["messages"]
    # Everything stored before the kill is there, in order; the unfinished call got an "interrupted" result.
    assert messages[1] == {"role": "user", "content": "Measure the flux"}
    assert any(m["role"] == "tool" and "flux 3 mJy" in m["content"] for m in messages)
    calls = [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert sorted(calls) == sorted(answered)
    assert any(m["role"] == "tool" and "interrupted" in m["content"] for m in messages)
    assert messages[-2] == {"role": "user", "content": "Go on"}


def test_kill_while_the_model_is_streaming_then_continue(fake: FakeProvider, astro_env, workspace, run_astro):
    fake.add({"text": "This answer will never finish because the process dies", "hang": True})
    proc = _start(["run", "Tell me about Sgr A*"], astro_env, workspace)
    try:
        assert wait_for(fake.hanging.is_set), "the request never arrived"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    fake.release.set()
    fake.add({"text": "Sgr A* is the supermassive black hole at the Galactic Centre, about 4 million solar masses."})
    resumed = run_astro(["run", "--continue", "Please answer again"], astro_env)
    assert resumed.returncode == 0, resumed.stderr
    assert "4 million solar masses" in resumed.stdout
    messages = fake.bodies()[-1]["messages"]
    assert {"role": "user", "content": "Tell me about Sgr A*"} in messages


def test_sigterm_ends_with_130_and_keeps_the_partial_answer(fake: FakeProvider, astro_env, workspace):
    fake.add({"text": "A partial answer that is cut off", "hang": True})
    proc = _start(["run", "--output-format", "astro-events", "Explain"], astro_env, workspace)
    try:
        assert wait_for(fake.hanging.is_set)
        # The first text has reached astro (not just left the provider), even on a loaded machine.
        assert proc.stdout is not None
        assert any('"text_delta"' in line for line in proc.stdout)
        proc.send_signal(signal.SIGTERM)
        code = exit_code(proc, 60)
    finally:
        fake.release.set()
        if proc.poll() is None:
            proc.kill()
    assert code == 130
    export = subprocess.run([sys.executable, "-m", "astro_cli", "sessions", "list", "--json"], env=astro_env,
                            cwd=workspace, capture_output=True, text=True)
    session_id = json.loads(export.stdout)[0]["id"]
    shown = subprocess.run([sys.executable, "-m", "astro_cli", "sessions", "export", session_id, "--format", "json"],
                           env=astro_env, cwd=workspace, capture_output=True, text=True)
    messages = json.loads(shown.stdout)["messages"]
    assert messages[-1]["role"] == "assistant" and "[interrupted]" in messages[-1]["content"]
    assert messages[-1]["content"].startswith("A partial")
