"""kill -9 at several points of a scripted turn, then `astro run --continue`: no stored message is lost, the
history sent is valid (every tool call answered right after it is made), the plan is restored, the turn ends."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys

import pytest

from tests.fakeprovider import FakeProvider
from tests.helpers import wait_for

PLAN = [
    {"id": "read", "content": "Read the observation log", "status": "in_progress"},
    {"id": "fit", "content": "Fit the light curve", "status": "pending", "depends_on": ["read"]},
]




def _stored(workspace) -> list[tuple[int, str, dict]]:
    conn = sqlite3.connect(workspace / ".astro" / "astro.db")
    try:
        rows = conn.execute("SELECT seq, kind, message FROM agent_messages ORDER BY session_id, seq").fetchall()
    finally:
        conn.close()
    return [(seq, kind, json.loads(message)) for seq, kind, message in rows]


def assert_valid_history(messages: list[dict]) -> None:
    """What providers demand: every tool call is answered by tool messages that follow it at once."""
    index = 0
    while index < len(messages):
        message = messages[index]
        assert message["role"] != "tool" or index > 0, "a tool result with no call before it"
        calls = {c["id"] for c in message.get("tool_calls") or []}
        index += 1
        answered = set()
        while calls and index < len(messages) and messages[index]["role"] == "tool":
            answered.add(messages[index]["tool_call_id"])
            index += 1
        assert answered == calls, f"tool calls {sorted(calls - answered)} are not answered"
        if index < len(messages) and not calls:
            assert messages[index]["role"] != "tool", f"a stray tool result at {index}: {messages[index]}"


def _key(message: dict) -> tuple:
    """A message as the provider sees it (litellm drops empty content and the tool name on the way)."""
    calls = tuple((c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or [])
    return message["role"], message.get("content") or "", calls, message.get("tool_call_id")


def _is_subsequence(needles: list[dict], haystack: list[dict]) -> bool:
    it = iter(_key(m) for m in haystack)
    return all(any(item == _key(needle) for item in it) for needle in needles)


@pytest.mark.parametrize("point", ["after_request", "during_tool", "after_tool_result"])
def test_kill_9_then_continue_completes(point, cli, fake: FakeProvider, astro_env, workspace):
    (workspace / "obs.txt").write_text("JD 2460000.5  V=14.2\nJD 2460001.5  V=14.6\n")
    marker, pid_file = workspace / "tool-started", workspace / "bash.pid"
    # Turn 1 (completes): the agent makes a plan.
    fake.add({"tool_calls": [{"name": "todo_write", "arguments": {"todos": PLAN}}]}, {"text": "Planned."})
    assert cli(["run", "Fit the light curve in obs.txt"], env=astro_env).exit_code == 0

    # Turn 2 (killed): read the log, then run a long command, then answer.
    read = {"text": "Reading.", "tool_calls": [{"name": "read_file", "arguments": {"path": "obs.txt"}}]}
    slow = {"tool_calls": [{"name": "run_bash", "arguments": {"command": f"echo $$ > {pid_file}; touch {marker}; sleep 20"}}]}
    hang = {"text": "Thinking about it", "hang": True}
    script = {"after_request": [hang], "during_tool": [read, slow], "after_tool_result": [read, hang]}[point]
    fake.add(*script)
    requests_before = len(fake.requests)
    # Unsandboxed: `echo $$` must name a pid of this namespace, and the orphan a kill -9 leaves is the
    # fallback's case (in the sandbox the command dies with astro).
    proc = subprocess.Popen([sys.executable, "-m", "astro_cli", "run", "--continue", "--allow", "run_bash", "Carry on"],
                            env={**astro_env, "ASTRO_SANDBOX_ENABLED": "0"}, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = marker.exists if point == "during_tool" else fake.hanging.is_set
        assert wait_for(ready), f"the turn never reached the kill point: {proc.stderr.read() if proc.poll() else ''}"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        fake.release.set()
        if pid_file.exists():  # the command astro started outlives a kill -9; end it here
            try:
                os.killpg(int(pid_file.read_text()), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
    assert len(fake.requests) == requests_before + len(script)
    before = _stored(workspace)
    assert [m for _, _, m in before if m["role"] == "user"][-2:][0] == {"role": "user", "content": "Carry on"}

    # Resume: the agent continues and answers.
    fake.add({"text": "V rose from 14.2 to 14.6; fitting next."})
    resumed = cli(["run", "--continue", "--output-format", "json", "Go on"], env=astro_env)
    assert resumed.exit_code == 0, resumed.stderr
    assert json.loads(resumed.stdout.strip().splitlines()[-1])["answer"].startswith("V rose")
    sent = fake.bodies()[-1]["messages"][1:-1]  # without the system prompt and the environment message
    assert_valid_history(sent)
    # Nothing stored before the kill is lost, in the DB or in what the model is sent.
    after = _stored(workspace)
    assert after[: len(before)] == before
    assert _is_subsequence([m for _, _, m in before], sent)
    # A call cut off by the kill is answered as interrupted; the plan comes back after the new message.
    interrupted = [m for m in sent if m["role"] == "tool" and m["content"].startswith("[interrupted")]
    assert len(interrupted) == (1 if point == "during_tool" else 0)
    if point != "after_request":
        assert any(m["role"] == "tool" and "V=14.6" in m["content"] for m in sent)
    assert sent[-2] == {"role": "user", "content": "Go on"}
    assert sent[-1]["content"].startswith("[Current task state]") and "🔄 [read] Read the observation log" in sent[-1]["content"]


def test_kill_9_then_astro_continue_in_the_repl(fake: FakeProvider, astro_env, workspace):
    """The interactive path: `astro --continue` after a kill -9, /tasks shows the plan, the turn completes."""
    pexpect = pytest.importorskip("pexpect")
    marker = workspace / "tool-started"
    fake.add({"tool_calls": [{"name": "todo_write", "arguments": {"todos": PLAN}}]},
             {"tool_calls": [{"name": "run_bash", "arguments": {"command": f"touch {marker}; sleep 5"}}]})
    proc = subprocess.Popen([sys.executable, "-m", "astro_cli", "run", "--allow", "run_bash", "Fit it"],
                            env=astro_env, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(marker.exists)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    before = _stored(workspace)

    fake.add({"text": "Back on track: reading the log now."})
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli", "--continue"], cwd=str(workspace), encoding="utf-8",
                          timeout=120, env=dict(astro_env, TERM="dumb", COLUMNS="100", LINES="40"),
                          dimensions=(40, 100))
    try:
        child.expect("\n> ")
        child.sendline("/tasks")
        child.expect(r"🔄 \[read\] Read the observation log")
        child.expect("0 done, 1 in progress, 1 pending")
        child.expect("\n> ")
        child.sendline("Where were we?")
        child.expect("Back on track")
        child.expect("\n> ")
        assert child.waitnoecho(timeout=60)  # prompt-toolkit reads keys: Ctrl-D reaches astro, not the tty
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    sent = fake.bodies()[-1]["messages"][1:-1]
    assert_valid_history(sent)
    assert _is_subsequence([m for _, _, m in before], sent)
    assert sent[-2] == {"role": "user", "content": "Where were we?"}
    assert sent[-1]["content"].startswith("[Current task state]")
