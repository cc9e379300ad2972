"""Starting, asking and stopping the worker: after an in-process run, and for `astro worker`."""

from __future__ import annotations

import fcntl
import os
import select
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Mapping

from astro_cli.pids import pid_alive
from astro_cli.worker import protocol
from astro_cli.worker.paths import WorkerPaths

TYPE_CHECKING = False  # `import typing` is a cost the thin client does not pay; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

START_TIMEOUT = 120.0  # importing litellm takes 4 s on a quiet machine, far more on a loaded one


def spawn_worker(paths: WorkerPaths, idle_minutes: float, env: Mapping[str, str], after_exit: int | None = None) -> int:
    """Start a detached worker (own session, /dev/null for stdio, an environment without secrets).

    `after_exit`: a process whose end the worker awaits before its warm-up (the run that started
    it: its exit is not slowed by seconds of importing next to it).
    """
    from astro_cli.security.children import python_child
    from astro_cli.security.secrets import environment_without_secrets

    args = ["--idle-minutes", f"{idle_minutes:g}"]
    if after_exit is not None:
        args += ["--after-exit", str(after_exit)]
    child = python_child("astro_cli.worker", args, environment_without_secrets(env), twin=True)
    process = subprocess.Popen(
        child.argv, env=child.env, cwd=child.cwd, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
    )
    pid = process.pid
    with warnings.catch_warnings():  # it outlives us on purpose: no "still running" warning
        warnings.simplefilter("ignore", ResourceWarning)
        del process
    return pid


def lock_is_held(paths: WorkerPaths) -> bool:
    """A worker is warming up or serving (it holds the lock for its whole life)."""
    try:
        fd = os.open(paths.lock, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def ask(paths: WorkerPaths, kind: str, timeout: float = 5.0) -> dict[str, Any] | None:
    """Send `status` or `stop`; None when no worker answers."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(paths.socket)
        if protocol.peer_uid(sock) != os.getuid():
            return None
        protocol.send_frame(sock, {"kind": kind, "protocol": protocol.PROTOCOL})
        return protocol.recv_frame(sock)
    except (OSError, protocol.ProtocolError):
        return None
    finally:
        sock.close()


def status(paths: WorkerPaths) -> dict[str, Any] | None:
    answer = ask(paths, "status")
    found = answer.get("status") if answer else None
    return found if isinstance(found, dict) else None


def wait_for_exit(pid: int, timeout: float) -> None:
    """Until process `pid` (not our child) has ended, or `timeout` seconds."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):  # no pidfd (old kernel, macOS) or already gone
        wait_until(lambda: not pid_alive(pid), timeout, interval=0.02)
        return
    try:
        select.select([handle], [], [], timeout)
    finally:
        os.close(handle)


def wait_until(predicate: Callable[[], object], timeout: float, interval: float = 0.05) -> bool:
    """Poll `predicate` until it is true or `timeout` seconds pass; True if it became true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


def worker_settings(env: Mapping[str, str]) -> tuple[bool, float, str]:
    """(enabled, idle minutes, where `enabled` came from) for the current folder."""
    from astro_cli.config import load_settings
    from astro_cli.worker.client import switched_off
    from astro_cli.workspace import AstroHome, Workspace

    off = switched_off(dict(env))
    home = AstroHome.default(dict(env))
    workspace = Workspace.at(env.get("ASTRO_WORKSPACE") or None)
    settings = load_settings([home.config_path, workspace.config_path], env=env)
    idle = float(settings.typed["worker.idle_minutes"])
    if off:
        return False, idle, off
    on = (env.get("ASTRO_WORKER") or "").strip().lower() in ("1", "true", "yes", "on")
    return on or bool(settings.typed["worker.enabled"]), idle, settings.source("worker.enabled")


def start_after_in_process_run(wait_for_exit: bool = True) -> None:
    """After a run that found no worker: start one for the next runs. Never affects this run.

    The REPL calls it as it opens, with `wait_for_exit=False`: the worker warms up now, so an
    `astro run` in another terminal during the session is fast."""
    import logging

    log = logging.getLogger(__name__)
    started = time.perf_counter()
    try:
        enabled, idle, source = worker_settings(os.environ)
        if not enabled:
            log.debug("no worker started: turned off (%s)", source)
            return
        paths = WorkerPaths.for_environment(os.environ)
        problem = paths.problem(create=True)
        if problem:
            log.debug("no worker started: %s", problem)
            return
        if lock_is_held(paths):
            log.debug("a worker is already starting")
            return
        from astro_cli.worker.preload import built_deferred_models, learnable, merge_warm_list

        # What this run imported and built is what the next ones need: the worker does it before serving.
        merge_warm_list(paths.warm_list, learnable([*sys.modules, *built_deferred_models()]))
        pid = spawn_worker(paths, idle, os.environ, after_exit=os.getpid() if wait_for_exit else None)
        log.debug("started a worker (pid %d) in %.1f ms", pid, (time.perf_counter() - started) * 1000)
    except Exception as exc:  # noqa: BLE001 - a worker that cannot start only means the next run is slow
        log.debug("no worker started: %s", exc)
