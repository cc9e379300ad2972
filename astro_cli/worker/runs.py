"""The worker's table of runs in progress: each child, its client's connection, and its report.

A child sends its client the exit status itself, then writes on its report pipe how the run
ended (first line: `exit N`, `signal N`, `declined REASON` or `gone`), then the modules it
imported and the models it built. Only a child that dies without saying how (a crash, a kill) has
its status sent by the worker, from the wait status.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import socket
import sys
from collections.abc import Callable

from astro_cli.worker import protocol

TYPE_CHECKING = False  # `import typing` is a cost the thin client does not pay; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

POLLRDHUP = getattr(select, "POLLRDHUP", 0)  # Linux: the client hung up (data from it is the child's to read)
log = logging.getLogger("astro_cli.worker.server")


def answer(conn: socket.socket, message: dict[str, Any]) -> None:
    """Send one frame and close; a client that left is no error."""
    try:
        protocol.send_frame(conn, message)
    except OSError:
        pass
    conn.close()


class Run:
    """A child at work."""

    def __init__(self, conn: socket.socket | None, report_fd: int) -> None:
        self.conn = conn
        self.report_fd = report_fd
        self.report = b""
        self.outcome: str | None = None  # the report's first line, once read


class Runs:
    """The children of one worker, the descriptors it polls for them, and what they taught it."""

    def __init__(self, poller: select.poll, on_served: Callable[[], None]) -> None:
        self.poller = poller
        self.on_served = on_served
        self.children: dict[int, Run] = {}
        self.watched: dict[int, tuple[str, int]] = {}  # polled descriptor -> ("client" | "report", child pid)
        self.served = 0
        self.declined = 0
        self.last_decline = ""
        self.cpu_seconds = 0.0  # of finished runs (benchmarks/bench_oneshot.py reads it)
        self.to_learn: set[str] = set()

    def __len__(self) -> int:
        return len(self.children)

    def add(self, pid: int, conn: socket.socket, report_fd: int) -> None:
        os.set_blocking(report_fd, False)
        self.children[pid] = Run(conn, report_fd)
        self._watch(conn.fileno(), POLLRDHUP, "client", pid)
        self._watch(report_fd, select.POLLIN, "report", pid)

    def handles(self, fd: int) -> bool:
        return fd in self.watched

    def event(self, fd: int) -> None:
        what, pid = self.watched[fd]
        if what == "client":
            self._client_gone(pid)
        else:
            self._read_report(pid)

    def close_in_child(self) -> None:
        """In a freshly forked child: the other clients' connections and reports are not its business."""
        for run in self.children.values():
            if run.conn is not None:
                run.conn.close()
            os.close(run.report_fd)
        self.children, self.watched = {}, {}

    # --- events --------------------------------------------------------------------------------
    def _watch(self, fd: int, events: int, what: str, pid: int) -> None:
        self.poller.register(fd, events)
        self.watched[fd] = (what, pid)

    def _unwatch(self, fd: int) -> None:
        if self.watched.pop(fd, None) is not None:
            self.poller.unregister(fd)

    def _client_gone(self, pid: int) -> None:
        """The client hung up while its child runs (killed, or its terminal closed): end the run."""
        run = self.children.get(pid)
        if run is None or run.conn is None:
            return
        self._unwatch(run.conn.fileno())
        log.info("the client of run %d went away; ending the run", pid)
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass

    def _read_report(self, pid: int) -> None:
        run = self.children[pid]
        try:
            chunk = os.read(run.report_fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._unwatch(run.report_fd)
        run.report += chunk
        if run.outcome is None and b"\n" in run.report:
            self._outcome(pid, run, run.report.split(b"\n", 1)[0].decode("utf-8", "replace"))

    def _outcome(self, pid: int, run: Run, line: str) -> None:
        run.outcome = line
        kind, _, detail = line.partition("\t")
        if kind == "gone":  # the client left before handing the run over: nothing ran
            self._release(run, None)
        elif kind == "declined":
            self.declined += 1
            self.last_decline = detail
            log.info("run %d declined: %s", pid, detail)
            self._release(run, None)
        else:  # the child told its client how it ended
            self.served += 1
            self.on_served()
            self._release(run, None)

    def _release(self, run: Run, message: dict[str, Any] | None) -> None:
        if run.conn is None:
            return
        self._unwatch(run.conn.fileno())
        if message is None:
            run.conn.close()
        else:
            answer(run.conn, message)
        run.conn = None

    # --- ends ----------------------------------------------------------------------------------
    def reap(self) -> None:
        while self.children:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            run = self.children.pop(pid, None)
            if run is not None:
                self.cpu_seconds += usage.ru_utime + usage.ru_stime
                self._finished(pid, run, status)

    def _finished(self, pid: int, run: Run, status: int) -> None:
        self._unwatch(run.report_fd)
        run.report += _read_all(run.report_fd)
        lines = run.report.decode("utf-8", "replace").split("\n")
        if run.outcome is None:
            if lines[0].partition("\t")[0] in ("exit", "signal", "declined", "gone"):
                self._outcome(pid, run, lines[0])
            else:  # it died before saying how (a crash, a kill): the wait status says it
                self.served += 1
                if os.WIFSIGNALED(status):
                    self._release(run, {"signal": os.WTERMSIG(status)})
                else:
                    self._release(run, {"exit": os.waitstatus_to_exitcode(status)})
        self.to_learn.update(name for name in lines[1:] if name and name not in sys.modules)


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
