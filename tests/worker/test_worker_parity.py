"""`astro run` through the warm worker behaves exactly as without it: each behaviour is run twice
with the real process, in-process (ASTRO_WORKER=0) and through one worker, and compared byte for
byte (only session ids and measured durations are masked)."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import trust_workspace, wait_for, write_config
from tests.worker_support import ASTRO, assert_same, new_worker, normalize, reset_workspace, run

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux")]

THREE_STEPS = [
    {"tool_calls": [{"id": "call_a", "name": "glob_files", "arguments": {"pattern": "*.txt"}}]},
    {"tool_calls": [{"id": "call_b", "name": "read_file", "arguments": {"path": "notes.txt"}}]},
    {"text": "The flux is **3 mJy** (from `notes.txt`).\n\n- a list\n- of two"},
]


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    """One worker for the module, started from the tests' base environment."""
    started = new_worker(tmp_path_factory.mktemp("worker"))
    yield started
    started.stop()


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / "notes.txt").write_text("flux 3 mJy\n")
    return workspace


def both(worker, fake, env: dict[str, str], workspace: Path, args: list[str], turns: list[Any],
         input: bytes | None = None, reset: bool = True, served: int = 1):
    """Run `astro args` in-process, then through the worker, with the same scripted model."""
    fake.add(*turns)
    without = run(args, env, workspace, input)
    if reset:
        reset_workspace(workspace)
    fake.add(*turns)
    before = worker.served()
    through = run(args, worker.client_env(env), workspace, input)
    assert worker.served() == before + served, worker.log()
    return without, through


@pytest.mark.parametrize("output_format", ["text", "json", "stream-json", "astro-events"])
def test_answer_with_tools_in_every_output_format(worker, fake, anthropic_env, project, output_format):
    without, through = both(worker, fake, anthropic_env, project,
                            ["run", "--output-format", output_format, "What is the flux?"], THREE_STEPS)
    assert without.returncode == 0, without.stderr
    assert b"3 mJy" in without.stdout and b"read_file" in (without.stderr + without.stdout)
    assert_same(without, through)


def test_question_from_stdin(worker, fake, astro_env, project):
    question = "What is\r\nthe flux? \xe2\x9c\x93\n".encode("latin-1")  # CRLF and UTF-8 kept as they are
    without, through = both(worker, fake, astro_env, project, ["run", "-"], [{"text": "Read from stdin."}],
                            input=question)
    assert without.returncode == 0
    assert_same(without, through)
    sent = [body["messages"][1]["content"] for body in fake.bodies()]
    assert sent[0] == sent[1] == question.decode("utf-8")


@pytest.mark.parametrize(
    ("args", "turns", "code"),
    [
        (["run", "   "], [], 2),  # an empty question: one sentence, no model call
        (["run", "--bogus", "q"], [], 2),  # a usage error names the program as the user typed it
        (["run", "--max-steps", "1", "loop"], [{"tool_calls": [{"id": "c1", "name": "glob_files",
                                                                  "arguments": {"pattern": "*"}}]},
                                               {"tool_calls": [{"id": "c2", "name": "glob_files",
                                                                "arguments": {"pattern": "*"}}]}], 4),
        (["run", "empty"], [{"text": ""}, {"text": ""}], 1),
        (["run", "fail"], [{"status": 500, "error": "overloaded"}], 3),
    ],
    ids=["empty-question", "usage-error", "step-budget", "paused", "provider-error"],
)
def test_exit_codes_and_messages(worker, fake, astro_env, project, args, turns, code):
    env = dict(astro_env, ASTRO_NUM_RETRIES="0")
    without, through = both(worker, fake, env, project, args, turns)
    assert without.returncode == code, without.stderr
    assert_same(without, through)


def test_missing_key_is_exit_2_with_the_same_sentence(worker, fake, astro_env, project):
    env = {k: v for k, v in astro_env.items() if k not in ("ASTRO_API_BASE", "ASTRO_API_KEY")}
    env["ASTRO_MODEL"] = "anthropic/claude-sonnet-4-5"
    without, through = both(worker, fake, env, project, ["run", "hello"], [])
    assert without.returncode == 2 and b"ANTHROPIC_API_KEY" in without.stderr
    assert_same(without, through)


def test_continue_and_resume(worker, fake, astro_env, project):
    def session_of(result: subprocess.CompletedProcess[bytes]) -> str:
        return json.loads(result.stdout.splitlines()[-1])["session_id"]

    outputs = []
    for env in (astro_env, worker.client_env(astro_env)):
        reset_workspace(project)
        fake.add({"text": "First answer."}, {"text": "Second answer."}, {"text": "Third answer."})
        first = run(["run", "--output-format", "json", "first"], env, project)
        second = run(["run", "--continue", "second"], env, project)
        third = run(["run", "--resume", session_of(first), "--output-format", "json", "third"], env, project)
        assert session_of(third) == session_of(first)
        outputs.append((second, third))
        history = [m["content"] for m in fake.bodies()[-1]["messages"] if m["role"] in ("user", "assistant")]
        assert history[:5] == ["first", "First answer.", "second", "Second answer.", "third"]
    for without, through in zip(*outputs):
        assert_same(without, through)


def test_permissions_deny_then_allow(worker, fake, astro_env, project):
    call = {"tool_calls": [{"id": "c1", "name": "run_bash", "arguments": {"command": "echo ran > ran.txt; pwd"}}]}
    without, through = both(worker, fake, astro_env, project, ["run", "try bash"], [call, {"text": "Denied."}])
    assert not (project / "ran.txt").exists()
    assert_same(without, through)
    without, through = both(worker, fake, astro_env, project, ["run", "--allow", "run_bash", "try bash"],
                            [call, {"text": "Ran."}])
    assert (project / "ran.txt").exists()
    assert_same(without, through)
    # The command ran in the client's folder, and saw it as its working folder both times.
    results = [m["content"] for body in fake.bodies()[-3::2] for m in body["messages"] if m["role"] == "tool"]
    assert results[0] == results[1] and str(project) in results[0]


def test_hooks_see_the_same_environment_and_payloads(worker, fake, astro_env, project):
    dumps = project.parent / "dumps"
    dumps.mkdir()
    write_config(Path(astro_env["ASTRO_HOME"]) / "config.yaml", {"allowed_paths": [str(dumps)]})  # for the sandbox
    hook = f"env | sort > '{dumps}/$HOOK_NAME.env'; cat > '{dumps}/$HOOK_NAME.json'"
    hooks = {event: [{"hooks": [{"type": "command", "command": hook.replace("$HOOK_NAME", event)}]}]
             for event in ("SessionStart", "UserPromptSubmit", "PreToolUse", "SessionStop")}
    write_config(project / ".astro" / "config.yaml", {"hooks": hooks})
    trust_workspace(project)
    turns = THREE_STEPS[1:]
    seen = []
    for env in (astro_env, worker.client_env(astro_env)):
        for path in project.glob(".astro/astro.db*"):
            path.unlink()
        fake.add(*turns)
        before = worker.served()
        result = run(["run", "read the notes"], env, project)
        assert result.returncode == 0, result.stderr
        seen.append((result, {path.name: path.read_bytes() for path in sorted(dumps.iterdir())}))
        if env is not astro_env:
            assert worker.served() == before + 1
    (without, files_without), (through, files_through) = seen
    assert_same(without, through)
    assert files_without.keys() == files_through.keys() and len(files_without) == 8

    def masked(data: bytes) -> bytes:
        # The two variables that turn the worker off and on are the only difference between the runs.
        lines = [line for line in data.splitlines() if not line.startswith((b"ASTRO_RUNTIME_DIR=", b"ASTRO_WORKER="))]
        return normalize(b"\n".join(lines)).replace(b'"session_id":', b'"session_id": ')

    for name in files_without:
        assert masked(files_through[name]) == masked(files_without[name]), name


def test_trust_is_decided_per_run_in_the_client_folder(worker, fake, astro_env, project):
    """An untrusted folder's hooks are withheld with the same notice; trusting it between runs applies them."""
    marker = project.parent / "marks" / "hook-ran"  # outside the project: the sandbox lets a hook write there
    marker.parent.mkdir()
    write_config(Path(astro_env["ASTRO_HOME"]) / "config.yaml", {"allowed_paths": [str(marker.parent)]})
    write_config(project / ".astro" / "config.yaml",
                 {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": f"touch '{marker}'"}]}]}})
    without, through = both(worker, fake, astro_env, project, ["run", "hi"], [{"text": "Hello."}])
    assert b"ignored this folder's risky settings (hooks): this folder is not trusted" in without.stderr
    assert not marker.exists()
    assert_same(without, through)
    trust_workspace(project)
    fake.add({"text": "Hello."})
    trusted = run(["run", "hi"], worker.client_env(astro_env), project)
    assert trusted.returncode == 0 and trusted.stderr == b"" and marker.exists()


def _on_a_terminal(args: list[str], env: dict[str, str], cwd: Path, stderr_too: bool) -> tuple[int, bytes, bytes]:
    """Run with stdout (and stderr) on a pseudo-terminal; returns (status, terminal bytes, piped stderr)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([*ASTRO, *args], env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=follower,
                               stderr=follower if stderr_too else subprocess.PIPE)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: every holder of the terminal closed it
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    err = process.stderr.read() if process.stderr else b""
    return process.wait(timeout=120), b"".join(chunks), err


@pytest.fixture
def colour_worker(tmp_path):
    """A worker started without NO_COLOR, as a terminal user's would be: the module's worker has it,
    and a client without it is declined (litellm reads NO_COLOR when imported), so its runs would
    stay in-process and compare the in-process path with itself."""
    started = new_worker(tmp_path / "colour", start=False)
    del started.env["NO_COLOR"]
    started.start()
    yield started
    started.stop()


def test_terminal_detection_renders_markdown_and_the_spinner(colour_worker, fake, astro_env, project):
    worker = colour_worker
    env = {k: v for k, v in astro_env.items() if k != "NO_COLOR"}
    env.update(TERM="xterm-256color", COLUMNS="80", LINES="24")
    worker_env = worker.client_env(env)
    outputs = []
    for current in (env, worker_env):
        reset_workspace(project)
        fake.add(*THREE_STEPS)
        before = worker.served()
        outputs.append(_on_a_terminal(["run", "What is the flux?"], current, project, stderr_too=False))
        assert worker.served() == before + (current is worker_env), worker.log()
    (code_a, tty_a, err_a), (code_b, tty_b, err_b) = outputs
    assert code_a == code_b == 0
    assert b"\x1b[" in tty_a and b"**" not in tty_a  # rendered Markdown, in colour, on the terminal
    assert tty_b == tty_a
    assert normalize(err_b) == normalize(err_a)
    assert b"\x1b" not in err_a  # stderr is a pipe: no colours, no spinner
    # With stderr on the terminal too, the spinner shows in both (its frames depend on timing).
    for current in (env, worker_env):
        reset_workspace(project)
        fake.add(*[dict(turn, delay=0.3) for turn in THREE_STEPS])
        before = worker.served()
        code, screen, _ = _on_a_terminal(["run", "What is the flux?"], current, project, stderr_too=True)
        assert code == 0 and b"thinking" in screen and b"\x1b[?25l" in screen
        assert worker.served() == before + (current is worker_env), worker.log()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_interrupt_exits_130_and_is_recorded(worker, fake, astro_env, project, signum):
    results = []
    for env in (astro_env, worker.client_env(astro_env)):
        reset_workspace(project)
        fake.release.clear()
        fake.add({"text": "Let me think about", "hang": True})
        process = subprocess.Popen([*ASTRO, "run", "--output-format", "astro-events", "a long question"], env=env,
                                   cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None
        lines = []
        while not lines or b'"text_delta"' not in lines[-1]:  # the reply has begun to arrive
            lines.append(process.stdout.readline())
            assert lines[-1], process.stderr.read() if process.stderr else ""
        process.send_signal(signum)
        out, err = process.communicate(timeout=180)
        fake.release.set()
        output = b"".join(lines) + out
        session = json.loads(output.splitlines()[-1])["session_id"]
        shown = run(["sessions", "export", session, "--format", "json"], astro_env, project)
        results.append((subprocess.CompletedProcess([], process.returncode, output, err), shown.stdout))
    (without, export_a), (through, export_b) = results
    assert without.returncode == 130
    assert json.loads(without.stdout.splitlines()[-1])["stop_reason"] == "interrupted"
    assert_same(without, through)

    def stored(export: bytes) -> list[tuple[Any, ...]]:
        return [(m["seq"], m["kind"], m["role"], m.get("content")) for m in json.loads(export)["messages"]]

    assert stored(export_a)[-1][1:] == ("interrupted", "assistant", "Let me\n\n[interrupted]")
    assert stored(export_b) == stored(export_a)


# astro as a terminal starts it, with SIGHUP's default: under `nohup` (a suite left running) the tests
# inherit SIGHUP ignored, and an astro that ignores it would run on after the hang-up. The same process
# (exec), so the signal reaches astro itself.
AS_FROM_A_TERMINAL = [sys.executable, "-c", "import os, signal, sys; signal.signal(signal.SIGHUP, signal.SIG_DFL); "
                      "os.execv(sys.argv[1], sys.argv[1:])"]


def test_a_hangup_ends_the_run_as_it_would_end_astro(worker, fake, astro_env, project):
    """SIGHUP (the terminal closed) kills astro by the signal, without recording; the same through the worker."""
    results = []
    for env in (astro_env, worker.client_env(astro_env)):
        reset_workspace(project)
        fake.release.clear()
        fake.add({"text": "Let me think about", "hang": True})
        process = subprocess.Popen([*AS_FROM_A_TERMINAL, *ASTRO, "run", "--output-format", "astro-events",
                                    "a long question"], env=env, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None
        lines = [process.stdout.readline()]
        while b'"text_delta"' not in lines[-1]:
            lines.append(process.stdout.readline())
            assert lines[-1]
        process.send_signal(signal.SIGHUP)
        out, err = process.communicate(timeout=180)
        fake.release.set()
        results.append(subprocess.CompletedProcess([], process.returncode, b"".join(lines) + out, err))
    without, through = results
    assert without.returncode == -signal.SIGHUP
    assert_same(without, through)


def test_turned_off_by_config_or_environment_runs_in_process(worker, fake, astro_env, project):
    write_config(project / ".astro" / "config.yaml", {"worker": {"enabled": False}})
    without, through = both(worker, fake, astro_env, project, ["run", "hi"], [{"text": "Hello."}], served=0)
    assert_same(without, through)
    (project / ".astro" / "config.yaml").unlink()
    fake.add({"text": "Hello."})
    before = worker.served()
    off = run(["run", "hi"], dict(worker.client_env(astro_env), ASTRO_WORKER="0"), project)
    assert off.returncode == 0 and worker.served() == before


def test_a_different_environment_runs_in_process(worker, fake, astro_env, project):
    # litellm reads NO_COLOR when imported: a client without it cannot use a worker that had it.
    env = {k: v for k, v in astro_env.items() if k != "NO_COLOR"}
    declined = worker.declined()
    without, through = both(worker, fake, env, project, ["run", "hi"], [{"text": "Hello."}], served=0)
    assert_same(without, through)
    assert worker.declined() == declined + 1
    assert "NO_COLOR differs" in str(worker.status()["last_decline"])


def test_five_runs_at_once_through_one_worker(worker, fake, astro_env, workspace):
    env = worker.client_env(astro_env)
    targets = ["M31", "M51", "M87", "NGC 1275", "Sgr A*"]

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        question = body["messages"][1]["content"]  # after the system prompt
        return {"text": "Answer about " + question.removeprefix("What about ").rstrip("?") + ".", "delay": 0.5}

    fake.add(*[answer] * len(targets))
    before = worker.served()
    processes = [subprocess.Popen([*ASTRO, "run", "--output-format", "json", f"What about {target}?"], env=env,
                                  cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for target in targets]
    results = [process.communicate(timeout=180) for process in processes]
    assert [p.returncode for p in processes] == [0] * 5, [err for _, err in results]
    answers = [json.loads(out.splitlines()[-1]) for out, _ in results]
    assert [a["answer"] for a in answers] == [f"Answer about {t}." for t in targets]
    assert len({a["session_id"] for a in answers}) == 5
    assert worker.served() == before + 5
    assert wait_for(lambda: worker.status()["running"] == 0, 30)
    assert worker.status()["threads"] == 1
