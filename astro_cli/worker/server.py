"""The fork server: warm up once, then fork one child per `astro run` (runs.py follows them).

Single-threaded by design (a process with threads cannot fork safely): one poll loop over the
listening socket, a signal wake-up socket and the descriptors of the runs in progress. The server
reads only the first frame of a connection (what is asked), never the client's environment; the
child reads the rest. It stops after `idle_minutes` without runs, on `astro worker stop` or
SIGTERM, and replaces itself when astro's installed files change.
"""

from __future__ import annotations

import fcntl
import gc
import hashlib
import logging
import os
import select
import signal
import socket
import sys
import time

from astro_cli import __version__
from astro_cli.worker import preload, protocol
from astro_cli.worker.child import ChildTask
from astro_cli.worker.paths import WorkerPaths, package_folder
from astro_cli.worker.runs import Runs, answer

TYPE_CHECKING = False  # `import typing` is a cost the thin client does not pay; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

HEADER_TIMEOUT = 5.0
# Blocked around fork(): none of the server's handlers may run in a child before it has its own.
SERVER_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD}
log = logging.getLogger(__name__)


def installation_fingerprint() -> str:
    """astro's version and files (path, size, mtime) and the site-packages folders' mtimes (pip changes them)."""
    entries: list[tuple[str, int, int]] = [(__version__, 0, 0)]
    root = package_folder()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                info = os.stat(os.path.join(folder, name))
                entries.append((os.path.relpath(os.path.join(folder, name), root), info.st_size, info.st_mtime_ns))
    for entry in sys.path:
        if entry.endswith(("site-packages", "dist-packages")) and os.path.isdir(entry):
            entries.append((entry, 0, os.stat(entry).st_mtime_ns))
    return hashlib.sha256(repr(entries).encode("utf-8", "surrogateescape")).hexdigest()


def freeze_memory() -> None:
    """Collect once, then keep the collector off the inherited objects (gc.freeze) and off in the
    server: a child's collections then never write to, and so never copy, the pages it shares."""
    gc.collect()
    gc.freeze()
    gc.disable()


class WorkerServer:
    def __init__(self, paths: WorkerPaths, idle_minutes: float, serve_uid: int, after_exit: int | None = None) -> None:
        self.paths = paths
        self.after_exit = after_exit
        self.idle_minutes = idle_minutes
        self.serve_uid = serve_uid
        self.pid = os.getpid()
        self.poller = select.poll()
        self.runs = Runs(self.poller, on_served=self._served)
        self.listener: socket.socket | None = None
        self.lock_fd: int | None = None
        self.wakeup: tuple[socket.socket, socket.socket] | None = None
        self.stopping: str | None = None
        self.signalled: str | None = None
        self.started = time.time()
        self.last_run = time.monotonic()
        self.fingerprint = ""

    # --- start and stop ----------------------------------------------------------------------
    def serve(self) -> ChildTask | None:
        """Serve until stopped (returns None), or return in a forked child with the run to do."""
        if not self._lock():
            log.info("another worker holds %s; this one exits", self.paths.lock)
            return None
        try:
            if self.after_exit is not None:
                from astro_cli.worker.lifecycle import wait_for_exit

                wait_for_exit(self.after_exit, timeout=30)
            from astro_cli.features import FEATURES
            from astro_cli.litellm_model.loader import preload_litellm

            warm, _ = preload.read_warm_list(self.paths.warm_list)
            started = time.monotonic()
            state = preload.warm_up(preload_litellm, FEATURES, warm)
            log.info("warm in %.1f s: %d modules, %d environment variables read at import, %d failed",
                     time.monotonic() - started, len(sys.modules), len(state.env_reads), len(state.failed))
            from astro_cli.worker.warm_search import warm_search

            log.info("%s", warm_search())
            self.fingerprint = installation_fingerprint()
            freeze_memory()
            self.bind()
            self._handle_signals()
            self.last_run = time.monotonic()  # idle time counts from the moment runs can come
            log.info("listening on %s (pid %d, astro %s, exits after %g min without runs)",
                     self.paths.socket, self.pid, __version__, self.idle_minutes)
            return self._loop()
        except Exception:
            log.exception("the worker stopped on an error")
            return None
        finally:
            if os.getpid() == self.pid:
                self._close()

    def _lock(self) -> bool:
        """One worker per installation: it holds this lock from before its warm-up until it stops."""
        fd = os.open(self.paths.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{self.pid}\n".encode())
        self.lock_fd = fd
        return True

    def bind(self) -> None:
        """The listening socket (0600), replacing a stale one in one step."""
        temporary = f"{self.paths.socket}.{self.pid}"
        try:
            os.unlink(temporary)  # left by a crashed worker that had our pid
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            listener.bind(temporary)
        finally:
            os.umask(old_umask)
        listener.listen(64)
        listener.setblocking(False)
        os.replace(temporary, self.paths.socket)
        self.listener = listener
        self.poller.register(listener.fileno(), select.POLLIN)

    def _handle_signals(self) -> None:
        """SIGCHLD and the stop signals wake the poll loop through a socket pair."""
        wake_read, wake_write = socket.socketpair()
        wake_read.setblocking(False)
        wake_write.setblocking(False)
        self.wakeup = (wake_read, wake_write)
        signal.set_wakeup_fd(wake_write.fileno())
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, self._on_stop_signal)
        self.poller.register(wake_read.fileno(), select.POLLIN)

    def _on_stop_signal(self, signum: int, frame: object) -> None:
        self.signalled = signal.Signals(signum).name  # acted on by the loop, never inside a handler

    def stop(self, reason: str, replace: bool = False) -> None:
        """Take no more runs: the socket goes, the lock is free; the running children finish."""
        if self.stopping or os.getpid() != self.pid:
            return
        self.stopping = reason
        log.info("stopping: %s", reason)
        if self.listener is not None:
            self.poller.unregister(self.listener.fileno())
            self.listener.close()
            self.listener = None
            try:
                os.unlink(self.paths.socket)
            except FileNotFoundError:
                pass
        if self.lock_fd is not None:
            os.close(self.lock_fd)
            self.lock_fd = None
        if replace:
            from astro_cli.worker.lifecycle import spawn_worker

            log.info("started a new worker (pid %d)", spawn_worker(self.paths, self.idle_minutes, os.environ))

    def _close(self) -> None:
        self.stop(self.stopping or "closing")
        if self.wakeup is not None:
            signal.set_wakeup_fd(-1)
            for end in self.wakeup:
                end.close()
            self.wakeup = None

    # --- the loop ----------------------------------------------------------------------------
    def _loop(self) -> ChildTask | None:
        while not (self.stopping and not self.runs):
            for fd, _events in self.poller.poll(self._timeout_ms()):
                if self.listener is not None and fd == self.listener.fileno():
                    task = self.accept()
                    if task is not None:
                        return task
                elif self.wakeup is not None and fd == self.wakeup[0].fileno():
                    self._drain_wakeup()
                elif self.runs.handles(fd):
                    self.runs.event(fd)
            self.runs.reap()
            if self.signalled:
                self.stop(f"signal {self.signalled}")
            if self.stopping:
                continue
            if not self.runs and time.monotonic() - self.last_run > self.idle_minutes * 60:
                self.stop(f"no runs for {self.idle_minutes:g} min")
            elif self.runs.to_learn and not self._pending_connection():
                self._learn()
        log.info("stopped after %d runs", self.runs.served)
        return None

    def _served(self) -> None:
        self.last_run = time.monotonic()

    def _timeout_ms(self) -> int:
        if self.stopping or self.runs:
            return 1000
        left = self.idle_minutes * 60 - (time.monotonic() - self.last_run)
        return max(10, min(60_000, int(left * 1000) + 10))

    def _pending_connection(self) -> bool:
        if self.listener is None:
            return False
        ready, _, _ = select.select([self.listener], [], [], 0)
        return bool(ready)

    def _drain_wakeup(self) -> None:
        assert self.wakeup is not None
        try:
            while self.wakeup[0].recv(512):
                pass
        except BlockingIOError:
            pass

    def accept(self) -> ChildTask | None:
        """Take one connection: refuse another user, answer status and stop, fork for a run."""
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except BlockingIOError:
            return None
        conn.setblocking(True)
        conn.settimeout(HEADER_TIMEOUT)
        uid = protocol.peer_uid(conn)
        if uid != self.serve_uid:
            log.warning("refused a connection from uid %s (this worker serves uid %d)", uid, self.serve_uid)
            answer(conn, {"refused": "this worker serves another user"})
            return None
        try:
            header, fds = protocol.recv_frame_with_fds(conn)
        except (OSError, protocol.ProtocolError):
            conn.close()
            return None
        kind = header.get("kind")
        if kind == "run":
            return self._start_run(conn, header, fds)
        protocol.close_all(fds)
        if kind == "status":
            answer(conn, {"status": self.status()})
        elif kind == "stop":
            answer(conn, {"stopping": self.pid})
            self.stop("asked by `astro worker stop`")
        else:
            conn.close()
        return None

    def _start_run(self, conn: socket.socket, header: dict[str, Any], fds: list[int]) -> ChildTask | None:
        reason = self._refusal(header, fds)
        if reason:
            protocol.close_all(fds)
            answer(conn, {"fallback": reason})
            return None
        names = [int(fd) for fd in header["fds"]]
        stdio = dict(zip(names, fds))
        cwd_fd = fds[len(names)] if header.get("cwd_fd") else None
        report_read, report_write = os.pipe()
        signal.pthread_sigmask(signal.SIG_BLOCK, SERVER_SIGNALS)
        gc.freeze()
        try:
            pid = os.fork()
            if pid == 0:
                os.close(report_read)
                self._become_child()
                return ChildTask(conn, stdio, cwd_fd, report_write)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, SERVER_SIGNALS)
        os.close(report_write)
        protocol.close_all(fds)  # the client's terminal is the child's business now
        self.runs.add(pid, conn, report_read)
        self.last_run = time.monotonic()
        return None

    def _refusal(self, header: dict[str, Any], fds: list[int]) -> str | None:
        """Why this run cannot be forked here (the client then runs it itself), or None."""
        if header.get("protocol") != protocol.PROTOCOL:
            return "the worker speaks another protocol version"
        names = header.get("fds")
        if not isinstance(names, list) or len(fds) != len(names) + (1 if header.get("cwd_fd") else 0):
            return "the descriptors did not arrive"
        if self.stopping:
            return "the worker is stopping"
        if installation_fingerprint() != self.fingerprint:
            self.stop("astro's installed files changed", replace=True)
            return "astro's installed files changed; a new worker is starting"
        threads = preload.thread_count()
        if threads != 1:
            self.stop(f"{threads} threads in the worker", replace=False)
            return "the worker has threads and cannot fork safely"
        return None

    def _become_child(self) -> None:
        """In the child: none of the server's signals, sockets, lock or log, and a session of its own."""
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if self.listener is not None:
            self.listener.close()
        if self.wakeup is not None:
            for end in self.wakeup:
                end.close()
        if self.lock_fd is not None:
            os.close(self.lock_fd)
        self.runs.close_in_child()
        self.listener, self.wakeup, self.lock_fd = None, None, None
        for handler in list(log.handlers):
            log.removeHandler(handler)
            handler.close()
        log.propagate = True
        log.setLevel(logging.NOTSET)
        gc.enable()
        os.setsid()

    def _learn(self) -> None:
        """Import what the last runs imported and build the models they built, so the next runs need
        not (never while a client waits)."""
        learned, self.runs.to_learn = sorted(self.runs.to_learn), set()
        models = [name for name in learned if name.startswith(preload.MODEL)]
        names = [name for name in learned if not name.startswith(preload.MODEL)]
        offenders = preload.import_more(names)
        if offenders:
            preload.merge_warm_list(self.paths.warm_list, [], deny=offenders)
            self.stop(f"importing {offenders[0]} started a thread", replace=True)
            return
        built = preload.build_models(name[len(preload.MODEL):] for name in models)
        preload.merge_warm_list(self.paths.warm_list, names + models)
        freeze_memory()
        log.info("learned %d module(s) and %d model schema(s); %d modules in memory", len(names), built,
                 len(sys.modules))

    # --- status ------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        state = preload._STATE
        return {
            "pid": self.pid,
            "version": __version__,
            "started": self.started,
            "idle_seconds": 0.0 if self.runs else round(time.monotonic() - self.last_run, 1),
            "idle_minutes": self.idle_minutes,
            "served": self.runs.served,
            "children_cpu_seconds": round(self.runs.cpu_seconds, 4),
            "running": len(self.runs),
            "declined": self.runs.declined,
            "last_decline": self.runs.last_decline,
            "socket": self.paths.socket,
            "modules": len(sys.modules),
            "env_reads": len(state.env_reads) if state else 0,
            "threads": preload.thread_count(),
            "rss_kb": _rss_kb(),
        }


def _rss_kb() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0
