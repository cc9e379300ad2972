"""The warm worker's life and its guarantees, with real processes: a stale socket, a version change,
a client killed mid-run, a refused user, idle exit, and keys that never reach the worker."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.helpers import tool_results, wait_for
from tests.paths import REPO_ROOT
from tests.worker_support import ASTRO, new_worker, run, runtime_folder

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux")]

ROOT = REPO_ROOT
KEYS = {"ANTHROPIC_API_KEY": "sk-ant-api03-workerleak-0000000000", "ADS_API_TOKEN": "ads-workerleak-2222222222"}


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    """A worker started by a client that had keys in its environment."""
    started = new_worker(tmp_path_factory.mktemp("worker"), **KEYS)
    yield started
    started.stop()


def test_the_worker_process_holds_no_key(worker):
    pid = worker.status()["pid"]
    environ = Path(f"/proc/{pid}/environ").read_bytes()
    assert b"ASTRO_RUNTIME_DIR=" in environ  # we do read the worker's environment...
    for value in KEYS.values():
        assert value.encode() not in environ  # ...and the keys of the client that started it are not there
    assert worker.status()["threads"] == 1


def test_keys_stay_out_of_reach_of_commands_and_out_of_every_log(worker, fake, astro_env, workspace):
    # Unsandboxed, so the command can try the worker's /proc entry (in the sandbox it cannot see it at all).
    env = dict(worker.client_env(astro_env), ASTRO_DEBUG="1", MARKER_VARIABLE="marker-value-93121",
               ASTRO_SANDBOX_ENABLED="0", **KEYS)
    secrets = [*KEYS.values(), env["ASTRO_API_KEY"]]
    dump = "tr '\\0' '\\n' < /proc/$PPID/environ"
    (workspace / "secret.txt").write_text(f"key: {KEYS['ANTHROPIC_API_KEY']}\n")
    fake.add(
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": f"{dump} > leak.txt; env > env.txt; {dump}"}},
                        {"name": "run_bash", "arguments": {"command": "ls -l /proc/$PPID/fd"}},
                        {"name": "read_file", "arguments": {"path": "secret.txt"}}]},
        {"text": "done"},
    )
    before = worker.served()
    result = run(["run", "--allow", "run_bash", "show me your environment"], env, workspace)
    assert result.returncode == 0, result.stderr
    assert worker.served() == before + 1
    shown, descriptors, secret = tool_results(fake.bodies()[-1])
    assert "ASTRO_RUNTIME_DIR" in shown  # the command read the process's start-up environment: the worker's
    for text in (shown, (workspace / "leak.txt").read_text(), (workspace / "env.txt").read_text(),
                 result.stdout.decode(), json.dumps(fake.bodies())):
        assert not [value for value in secrets if value in text]
    # The child's redactor knows the client's keys, which the worker never had.
    assert "key: [REDACTED:ANTHROPIC_API_KEY]" in secret
    # The child holds none of the worker's files (lock, log, warm list), only what the run opened.
    assert str(worker.runtime) not in descriptors
    # Neither the worker's log nor the debug log holds an environment.
    logs = worker.log() + (Path(env["ASTRO_HOME"]) / "logs" / "astro.log").read_text()
    assert "marker-value-93121" not in logs and not [value for value in secrets if value in logs]


def test_a_killed_client_ends_its_run(worker, fake, astro_env, workspace):
    fake.add({"text": "Let me think about", "hang": True})
    process = subprocess.Popen([*ASTRO, "run", "--output-format", "astro-events", "a long question"],
                               env=worker.client_env(astro_env), cwd=workspace, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None
    lines = [process.stdout.readline()]
    while b'"text_delta"' not in lines[-1]:
        lines.append(process.stdout.readline())
        assert lines[-1]
    session = json.loads(lines[0])["session_id"]
    assert worker.status()["running"] == 1
    process.kill()
    process.wait()
    assert wait_for(lambda: worker.status()["running"] == 0, 60), worker.log()
    fake.release.set()
    export = run(["sessions", "export", session, "--format", "json"], astro_env, workspace)
    last = json.loads(export.stdout)["messages"][-1]
    assert (last["kind"], last["content"]) == ("interrupted", "Let me\n\n[interrupted]")
    assert "went away; ending the run" in worker.log()


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_ctrl_z_suspends_the_run_and_fg_resumes_it(worker, fake, astro_env, workspace):
    fake.release.clear()
    fake.add({"text": "Let me think about", "hang": True}, {"text": "never asked"})
    # A process group of its own under ours, as a shell's job is: the kernel discards Ctrl-Z sent to
    # an orphaned group (in-process astro would not stop either).
    process = subprocess.Popen([*ASTRO, "run", "--output-format", "astro-events", "a long question"],
                               env=worker.client_env(astro_env), cwd=workspace, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, preexec_fn=os.setpgrp)
    assert process.stdout is not None
    lines = [process.stdout.readline()]
    while b'"text_delta"' not in lines[-1]:
        lines.append(process.stdout.readline())
    worker_pid = worker.status()["pid"]
    [child] = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _parent(p) == worker_pid]
    process.send_signal(signal.SIGTSTP)
    assert wait_for(lambda: _state(process.pid) == "T" and _state(child) == "T", 30)
    process.send_signal(signal.SIGCONT)
    assert wait_for(lambda: _state(process.pid) != "T" and _state(child) != "T", 30)
    fake.release.set()
    out, err = process.communicate(timeout=180)
    assert process.returncode == 0, err
    assert json.loads(out.splitlines()[-1])["answer"] == "Let me think about"


def _parent(process: Path) -> int | None:
    try:
        return int((process / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def test_the_client_stays_thin(worker, fake, astro_env, workspace):
    """Served by the worker, `astro run` imports neither typer, rich, yaml nor litellm, and stays small."""
    fake.add({"text": "Small."})
    # The peak from /proc (VmHWM): getrusage's maxrss would include the test process's, kept across exec.
    probe = (
        "import sys\n"
        "sys.argv = ['astro', 'run', 'hi']\n"
        "from astro_cli.main import main\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "heavy = sorted(m for m in ('typer', 'rich', 'yaml', 'litellm', 'sqlite3', 'astro_cli.cli') if m in sys.modules)\n"
        "peak = [line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:')][0]\n"
        "print(code, heavy, peak, file=sys.stderr)\n"
    )
    before = worker.served()
    result = subprocess.run([sys.executable, "-c", probe], env=worker.client_env(astro_env), cwd=workspace,
                            capture_output=True, text=True, timeout=120)
    assert result.stdout == "Small.\n"
    line = result.stderr.strip().splitlines()[-1]
    code, rest = line.split(" ", 1)
    heavy, peak_kb = rest.rsplit(" ", 1)
    assert (code, heavy) == ("0", "[]")
    assert int(peak_kb) < 60 * 1024
    assert worker.served() == before + 1


def test_a_stale_socket_falls_back_then_a_new_worker_serves_and_exits_when_idle(fake, astro_env, workspace,
                                                                                   tmp_path):
    stale = new_worker(tmp_path, start=False)
    env = dict(stale.client_env(astro_env), ASTRO_WORKER_IDLE_MINUTES="0.2")
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # a worker killed with -9 leaves its socket
    dead.bind(stale.paths.socket)
    dead.close()
    try:
        fake.add({"text": "In-process answer."})
        first = run(["run", "hi"], env, workspace)
        assert (first.returncode, first.stdout, first.stderr) == (0, b"In-process answer.\n", b"")
        # That run started a worker for the next ones; it replaced the stale socket.
        assert wait_for(lambda: stale.status() is not None, 300), stale.log()
        fake.add({"text": "Worker answer."})
        second = run(["run", "hi"], env, workspace)
        assert (second.returncode, second.stdout) == (0, b"Worker answer.\n")
        assert stale.served() == 1
        pid = stale.status()["pid"]
        # Twelve seconds without a run (worker.idle_minutes 0.2): it leaves, and takes its socket along.
        assert wait_for(lambda: not Path(f"/proc/{pid}").exists(), 60), stale.log()
        assert not Path(stale.paths.socket).exists()
        status = run(["worker", "status"], env, workspace)
        assert status.returncode == 1 and b"No worker is running" in status.stdout
        assert "no runs for 0.2 min" in stale.log()
    finally:
        stale.stop()


def test_a_run_outlives_a_killed_worker(fake, astro_env, workspace, tmp_path):
    worker = new_worker(tmp_path)
    try:
        fake.release.clear()
        fake.add({"text": "Let me think about", "hang": True})
        process = subprocess.Popen([*ASTRO, "run", "a long question"], env=worker.client_env(astro_env),
                                   cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert fake.hanging.wait(120)
        os.kill(int(worker.status()["pid"]), signal.SIGKILL)
        fake.release.set()
        out, err = process.communicate(timeout=120)
        assert (process.returncode, out, err) == (0, b"Let me think about\n", b"")
    finally:
        worker.stop()


def test_a_version_change_restarts_the_worker(fake, astro_env, workspace, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(ROOT / "astro_cli", site / "astro_cli", ignore=shutil.ignore_patterns("__pycache__"))
    worker = new_worker(tmp_path, package=site / "astro_cli", PYTHONPATH=str(site))
    env = dict(worker.client_env(astro_env), PYTHONPATH=str(site))
    try:
        old = worker.status()
        assert old["version"] == "0.1.0"
        fake.add({"text": "Old code."})
        assert run(["run", "hi"], env, workspace).stdout == b"Old code.\n"
        assert worker.served() == 1
        init = site / "astro_cli" / "__init__.py"
        init.write_text(init.read_text().replace('__version__ = "0.1.0"', '__version__ = "0.1.1"'))
        fake.add({"text": "New code, in-process."})
        changed = run(["run", "hi"], env, workspace)
        assert (changed.returncode, changed.stdout, changed.stderr) == (0, b"New code, in-process.\n", b"")
        assert (run(["--version"], env, workspace).stdout) == b"astro 0.1.1\n"
        # The old worker left and started its replacement, which now serves the new version.
        assert wait_for(lambda: (worker.status() or {}).get("version") == "0.1.1", 300), worker.log()
        assert worker.status()["pid"] != old["pid"]
        fake.add({"text": "New code, in the new worker."})
        assert run(["run", "hi"], env, workspace).stdout == b"New code, in the new worker.\n"
        assert worker.served() == 1
        assert "astro's installed files changed" in worker.log()
        pid = worker.status()["pid"]
        stopped = run(["worker", "stop"], env, workspace)
        assert stopped.stdout == f"Worker stopped (pid {pid}).\n".encode()
    finally:
        worker.stop()


def test_a_connection_from_another_user_is_refused(monkeypatch, caplog):
    """Simulated: a worker that serves another uid refuses us, checked with the kernel's SO_PEERCRED."""
    from astro_cli.worker.client import Fallback, try_worker
    from astro_cli.worker.paths import WorkerPaths, installation_key
    from astro_cli.worker.server import WorkerServer

    runtime = runtime_folder()
    server = WorkerServer(WorkerPaths(str(runtime), installation_key()), 15, serve_uid=os.getuid() + 1)
    server.bind()

    def accept_one() -> None:
        assert server.listener is not None
        select.select([server.listener], [], [], 30)
        assert server.accept() is None  # refused: nothing forked

    thread = threading.Thread(target=accept_one)
    thread.start()
    monkeypatch.setenv("ASTRO_RUNTIME_DIR", str(runtime))
    monkeypatch.delenv("ASTRO_WORKER", raising=False)
    monkeypatch.delenv("ASTRO_WORKER_ENABLED", raising=False)
    try:
        with caplog.at_level("WARNING", logger="astro_cli.worker.server"):
            outcome = try_worker(["astro", "run", "hello"])
            thread.join(30)
    finally:
        server.listener.close()  # type: ignore[union-attr]
        shutil.rmtree(runtime, ignore_errors=True)
    assert isinstance(outcome, Fallback) and not outcome.start_worker
    assert "serves another user" in outcome.reason
    assert f"refused a connection from uid {os.getuid()}" in caplog.text
