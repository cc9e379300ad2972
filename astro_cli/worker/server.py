"""The fork server: warm up once, then fork one child per `astro run` and report its exit status.

Single-threaded by design (a process with threads cannot fork safely): one poll loop over the
listening socket, a signal wake-up pipe and the connections of running children. The server reads
only the first frame of a connection (what is asked), never the client's environment; the child
reads the rest. It stops after `idle_minutes` without runs, on `astro worker stop` or SIGTERM,
and replaces itself when astro's installed files change.
"""

from __future__ import annotations

import argparse
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

HEADER_TIMEOUT = 5.0
# Blocked around fork(): none of the server's handlers may run in a child before it has its own.
SERVER_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD}
POLLRDHUP = getattr(select, "POLLRDHUP", 0)  # Linux: the client hung up (data from it is the child's to read)
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


class Running:
    """A child at work: its client's connection, and the pipe on which it says how the run ended
    (first line) and what it imported (the rest)."""

    def __init__(self, conn: socket.socket | None, report_fd: int) -> None:
        self.conn = conn
        self.report_fd = report_fd
        self.report = b""
        self.outcome: str | None = None  # the first line, once read
        self.started = time.monotonic()


class WorkerServer:
    def __init__(self, paths: WorkerPaths, idle_minutes: float, serve_uid: int) -> None:
        self.paths = paths
        self.idle_minutes = idle_minutes
        self.serve_uid = serve_uid
        self.pid = os.getpid()
        self.children: dict[int, Running] = {}
        self.watched: dict[int, tuple[str, int]] = {}  # polled descriptor -> ("client" | "report", child pid)
        self.listener: socket.socket | None = None
        self.lock_fd: int | None = None
        self.wakeup: tuple[socket.socket, socket.socket] | None = None
        self.poller = select.poll()
        self.stopping: str | None = None
        self.signalled: str | None = None
        self.started = time.time()
        self.last_run = time.monotonic()
        self.served = 0
        self.children_cpu = 0.0  # CPU seconds of finished runs (benchmarks/bench_oneshot.py reads it)
        self.declined = 0
        self.last_decline = ""
        self.to_learn: set[str] = set()
        self.fingerprint = ""

    # --- start and stop ----------------------------------------------------------------------
    def serve(self) -> ChildTask | None:
        """Serve until stopped (returns None), or return in a forked child with the run to do."""
        if not self._lock():
            log.info("another worker holds %s; this one exits", self.paths.lock)
            return None
        try:
            warm, _ = preload.read_warm_list(self.paths.warm_list)
            started = time.monotonic()
            state = preload.warm_up(warm)
            log.info("warm in %.1f s: %d modules, %d environment variables read at import, %d failed",
                     time.monotonic() - started, len(sys.modules), len(state.env_reads), len(state.failed))
            self.fingerprint = installation_fingerprint()
            _freeze_memory()
            self._listen()
            return self._loop()
        except Exception:
            log.exception("the worker stopped on an error")
            return None
        finally:
            if os.getpid() == self.pid:
                self._close()

    def _lock(self) -> bool:
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

    def _listen(self) -> None:
        self.bind()
        self._handle_signals()
        self.last_run = time.monotonic()  # idle time counts from the moment runs can come
        log.info("listening on %s (pid %d, astro %s, exits after %g min without runs)",
                 self.paths.socket, self.pid, __version__, self.idle_minutes)

    def bind(self) -> None:
        """The listening socket, replacing a stale one in one step."""
        temporary = f"{self.paths.socket}.{self.pid}"
        try:
            os.unlink(temporary)  # left by a crashed worker that had our pid
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)  # the socket file is 0600 (and its folder 0700)
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
        while not (self.stopping and not self.children):
            for fd, _events in self.poller.poll(self._timeout_ms()):
                if self.listener is not None and fd == self.listener.fileno():
                    task = self.accept()
                    if task is not None:
                        return task
                elif self.wakeup is not None and fd == self.wakeup[0].fileno():
                    self._drain_wakeup()
                elif fd in self.watched:
                    what, pid = self.watched[fd]
                    if what == "client":
                        self._client_gone(pid)
                    else:
                        self._read_report(pid)
            self._reap()
            if self.signalled:
                self.stop(f"signal {self.signalled}")
            if self.stopping:
                continue
            if not self.children and time.monotonic() - self.last_run > self.idle_minutes * 60:
                self.stop(f"no runs for {self.idle_minutes:g} min")
            elif self.to_learn and not self._pending_connection():
                self._learn()
        log.info("stopped after %d runs", self.served)
        return None

    def _timeout_ms(self) -> int:
        if self.stopping or self.children:
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
            self._answer(conn, {"refused": "this worker serves another user"})
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
            self._answer(conn, {"status": self.status()})
        elif kind == "stop":
            self._answer(conn, {"stopping": self.pid})
            self.stop("asked by `astro worker stop`")
        else:
            conn.close()
        return None

    def _answer(self, conn: socket.socket, message: dict[str, object]) -> None:
        try:
            protocol.send_frame(conn, message)
        except OSError:
            pass
        conn.close()

    def _start_run(self, conn: socket.socket, header: dict[str, object], fds: list[int]) -> ChildTask | None:
        reason = self._refusal(header, fds)
        if reason:
            protocol.close_all(fds)
            self._answer(conn, {"fallback": reason})
            return None
        names = [int(fd) for fd in header["fds"]]  # type: ignore[union-attr]
        stdio = dict(zip(names, fds))
        cwd_fd = fds[len(names)] if header.get("cwd_fd") else None
        report_read, report_write = os.pipe()
        signal.pthread_sigmask(signal.SIG_BLOCK, SERVER_SIGNALS)
        gc.freeze()
        try:
            pid = os.fork()
            if pid == 0:
                os.close(report_read)
                self._become_child(conn)
                return ChildTask(conn, stdio, cwd_fd, report_write)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, SERVER_SIGNALS)
        os.close(report_write)
        os.set_blocking(report_read, False)
        protocol.close_all(fds)  # the client's terminal is the child's business now
        self.children[pid] = Running(conn, report_read)
        self._watch(conn.fileno(), POLLRDHUP, "client", pid)
        self._watch(report_read, select.POLLIN, "report", pid)
        self.last_run = time.monotonic()
        return None

    def _watch(self, fd: int, events: int, what: str, pid: int) -> None:
        self.poller.register(fd, events)
        self.watched[fd] = (what, pid)

    def _unwatch(self, fd: int) -> None:
        if self.watched.pop(fd, None) is not None:
            self.poller.unregister(fd)

    def _refusal(self, header: dict[str, object], fds: list[int]) -> str | None:
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

    def _become_child(self, conn: socket.socket) -> None:
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
        for running in self.children.values():
            if running.conn is not None:
                running.conn.close()
            os.close(running.report_fd)
        self.listener, self.wakeup, self.lock_fd, self.children, self.watched = None, None, None, {}, {}
        for handler in list(log.handlers):
            log.removeHandler(handler)
            handler.close()
        log.propagate = True
        log.setLevel(logging.NOTSET)
        gc.enable()
        os.setsid()

    def _client_gone(self, pid: int) -> None:
        """The client hung up while its child runs (killed, or its terminal closed): end the run."""
        running = self.children.get(pid)
        if running is None or running.conn is None:
            return
        self._unwatch(running.conn.fileno())
        log.info("the client of run %d went away; ending the run", pid)
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass

    def _read_report(self, pid: int) -> None:
        """Read what the child wrote; its first line ends the run for the client, at once."""
        running = self.children[pid]
        try:
            chunk = os.read(running.report_fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._unwatch(running.report_fd)
        running.report += chunk
        if running.outcome is None and b"\n" in running.report:
            first = running.report.split(b"\n", 1)[0].decode("utf-8", "replace")
            self._outcome(pid, running, first)

    def _outcome(self, pid: int, running: Running, line: str) -> None:
        running.outcome = line
        kind, _, detail = line.partition("\t")
        if kind == "declined":
            self.declined += 1
            self.last_decline = detail
            log.info("run %d declined: %s", pid, detail)
            self._release_client(running, None)
            return
        self.served += 1
        self.last_run = time.monotonic()
        message = {"signal": int(detail)} if kind == "signal" else {"exit": int(detail or 1)}
        self._release_client(running, message)

    def _release_client(self, running: Running, message: dict[str, object] | None) -> None:
        if running.conn is None:
            return
        self._unwatch(running.conn.fileno())
        if message is None:
            running.conn.close()
        else:
            self._answer(running.conn, message)
        running.conn = None

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            running = self.children.pop(pid, None)
            if running is not None:
                self.children_cpu += usage.ru_utime + usage.ru_stime
                self._finished(pid, running, status)

    def _finished(self, pid: int, running: Running, status: int) -> None:
        self._unwatch(running.report_fd)
        running.report += _read_all(running.report_fd)
        lines = running.report.decode("utf-8", "replace").split("\n")
        if running.outcome is None:
            if lines[0].partition("\t")[0] in ("exit", "signal", "declined"):
                self._outcome(pid, running, lines[0])
            else:  # it died before saying how (a crash, a kill): the wait status says it
                self.served += 1
                if os.WIFSIGNALED(status):
                    self._release_client(running, {"signal": os.WTERMSIG(status)})
                else:
                    self._release_client(running, {"exit": os.waitstatus_to_exitcode(status)})
        self.to_learn.update(name for name in lines[1:] if name and name not in sys.modules)

    def _learn(self) -> None:
        """Import what the last runs imported and build the models they built, so the next runs need
        not (never while a client waits)."""
        learned, self.to_learn = sorted(self.to_learn), set()
        models = [name for name in learned if name.startswith(preload.MODEL)]
        names = [name for name in learned if not name.startswith(preload.MODEL)]
        offenders = preload.import_more(names)
        if offenders:
            preload.merge_warm_list(self.paths.warm_list, [], deny=offenders)
            self.stop(f"importing {offenders[0]} started a thread", replace=True)
            return
        built = preload.build_models(name[len(preload.MODEL):] for name in models)
        preload.merge_warm_list(self.paths.warm_list, names + models)
        _freeze_memory()
        log.info("learned %d module(s) and %d model schema(s); %d modules in memory", len(names), built,
                 len(sys.modules))

    # --- status ------------------------------------------------------------------------------
    def status(self) -> dict[str, object]:
        state = preload._STATE
        return {
            "pid": self.pid,
            "version": __version__,
            "started": self.started,
            "idle_seconds": round(time.monotonic() - self.last_run, 1) if not self.children else 0.0,
            "idle_minutes": self.idle_minutes,
            "served": self.served,
            "children_cpu_seconds": round(self.children_cpu, 4),
            "running": len(self.children),
            "declined": self.declined,
            "last_decline": self.last_decline,
            "socket": self.paths.socket,
            "modules": len(sys.modules),
            "env_reads": len(state.env_reads) if state else 0,
            "threads": preload.thread_count(),
            "rss_kb": _rss_kb(),
        }


def _freeze_memory() -> None:
    """Collect once, then keep the collector off the inherited objects (gc.freeze) and off in the
    server: a child's collections then never write to, and so never copy, the pages it shares."""
    gc.collect()
    gc.freeze()
    gc.disable()


def _read_all(fd: int) -> bytes:
    chunks = []
    try:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        pass
    finally:
        os.close(fd)
    return b"".join(chunks)


def _rss_kb() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _setup(paths: WorkerPaths) -> None:
    """A daemon's start: the root folder, /dev/null on 0-2, and a log in the runtime folder."""
    started_in = os.getcwd()
    os.chdir("/")
    if sys.path and sys.path[0] in ("", started_in):
        sys.path[0] = "/"  # never import from the folder the worker was started in
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.dup2(os.open(os.devnull, os.O_RDWR), fd)
    try:
        if os.path.getsize(paths.log) > 1 << 20:
            os.replace(paths.log, paths.log + ".1")
    except OSError:
        pass
    handler = logging.FileHandler(paths.log, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s pid %(process)d %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m astro_cli.worker")
    parser.add_argument("--idle-minutes", type=float, default=15.0)
    parser.add_argument("--serve-uid", type=int, default=os.getuid(), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    paths = WorkerPaths.for_environment(os.environ)
    if paths.problem(create=True):
        sys.exit(1)
    _setup(paths)
    task = WorkerServer(paths, args.idle_minutes, args.serve_uid).serve()
    if task is not None:
        task.run()  # in a forked child: the run ends the process (SystemExit)
