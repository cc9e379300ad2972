"""Helpers for the warm-worker tests: a worker per test module, runs with and without it, and the
normalization of the only bytes that may differ between two runs (session ids and timings)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from astro_cli.pids import pid_alive
from tests.conftest import base_env
from tests.helpers import wait_for

ASTRO = [sys.executable, "-m", "astro_cli"]
# Everything else must be equal byte for byte: ids astro draws at random and durations it measures.
VOLATILE = [
    (re.compile(rb'"session_id": ?"[0-9a-f]+"'), b'"session_id": "*"'),
    (re.compile(rb'"uuid": ?"[0-9a-f-]+"'), b'"uuid": "*"'),  # stream-json's message ids (Claude Code's)
    (re.compile(rb'"id": ?"msg_[0-9a-f]+"'), b'"id": "msg_*"'),
    (re.compile(rb'"(duration|duration_ms|duration_api_ms)": ?[0-9.e+-]+'), rb'"\1": *'),
    (re.compile(rb"(\s)\d+\.\ds "), rb"\1*s "),  # tool lines on stderr: "  read_file 0.0s ok"
]


def normalize(data: bytes) -> bytes:
    for pattern, replacement in VOLATILE:
        data = pattern.sub(replacement, data)
    return data


def runtime_folder() -> Path:
    """A short private folder in /tmp: a Unix socket path must stay under 108 bytes."""
    return Path(tempfile.mkdtemp(prefix="aw-", dir="/tmp"))


class Worker:
    """A worker serving one runtime folder; `served()` counts the runs it took."""

    def __init__(self, runtime: Path, env: dict[str, str], package: Path | None = None) -> None:
        self.runtime = runtime
        self.env = env
        self.package = package  # a copy of astro_cli on PYTHONPATH, when the test installs one

    @property
    def paths(self) -> Any:
        from astro_cli.worker.paths import WorkerPaths, installation_key

        return WorkerPaths(str(self.runtime), installation_key(str(self.package) if self.package else None))

    def status(self) -> dict[str, Any] | None:
        from astro_cli.worker.lifecycle import status

        return status(self.paths)

    def settled(self) -> dict[str, Any]:
        """The status once every run has been counted (a client exits before its child is reaped)."""
        found = self.status()
        assert found is not None, f"no worker answers in {self.runtime}: {self.log()}"
        if found["running"]:
            wait_for(lambda: (self.status() or {}).get("running") == 0, 30)
            found = self.status() or found
        return found

    def served(self) -> int:
        return int(self.settled()["served"])

    def declined(self) -> int:
        return int(self.settled()["declined"])

    def log(self) -> str:
        path = Path(self.paths.log)
        return path.read_text() if path.exists() else "(no worker log)"

    def client_env(self, env: dict[str, str]) -> dict[str, str]:
        """`env` with this worker turned on."""
        on = {k: v for k, v in env.items() if k != "ASTRO_WORKER"}
        on["ASTRO_RUNTIME_DIR"] = str(self.runtime)
        return on

    def start(self, timeout: float = 300) -> None:
        done = subprocess.run([*ASTRO, "worker", "start"], env=self.env, capture_output=True, text=True,
                              timeout=timeout, cwd=self.runtime)
        assert done.returncode == 0, done.stdout + done.stderr + self.log()

    def stop(self) -> None:
        found = self.status()
        subprocess.run([*ASTRO, "worker", "stop"], env=self.env, capture_output=True, timeout=60, cwd=self.runtime)
        if found is not None and not wait_for(lambda: not pid_alive(int(found["pid"])), 30):
            os.kill(int(found["pid"]), signal.SIGKILL)
        shutil.rmtree(self.runtime, ignore_errors=True)


def new_worker(tmp: Path, start: bool = True, package: Path | None = None, **extra: str) -> Worker:
    """A worker in a runtime folder of its own, started from the tests' base environment."""
    env = base_env(tmp)
    env.pop("ASTRO_WORKER")
    env.update(ASTRO_RUNTIME_DIR=str(runtime_folder()), **extra)
    worker = Worker(Path(env["ASTRO_RUNTIME_DIR"]), env, package)
    if start:
        worker.start()
    return worker


def run(args: list[str], env: dict[str, str], cwd: Path, input: bytes | None = None,
        timeout: float = 180) -> subprocess.CompletedProcess[bytes]:
    """The real `astro` process; output kept as bytes."""
    return subprocess.run([*ASTRO, *args], env=env, cwd=cwd, input=input, capture_output=True, timeout=timeout)


def assert_same(without: subprocess.CompletedProcess[bytes], through: subprocess.CompletedProcess[bytes]) -> None:
    """Exit code, stdout and stderr equal byte for byte (session ids and timings aside)."""
    assert through.returncode == without.returncode, (without.stderr, through.stderr)
    assert normalize(through.stdout) == normalize(without.stdout), (without.stdout, through.stdout)
    assert normalize(through.stderr) == normalize(without.stderr)


def reset_workspace(workspace: Path) -> None:
    """Forget the sessions, so the second run of a pair starts from the same state as the first."""
    shutil.rmtree(workspace / ".astro" / "astro.db", ignore_errors=True)
    for path in (workspace / ".astro").glob("astro.db*"):
        path.unlink()
