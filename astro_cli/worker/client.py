"""The thin client: `astro run` hands its run to the warm worker and exits with the run's status.

Standard library only, nothing heavy: connect, send the request with the standard descriptors,
forward signals to the child, exit as the child exited. `try_worker()` returns None when the
worker cannot take the run (the caller then runs it in its own process, exactly as before); the
reason goes to the debug log, never to the terminal.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from collections.abc import Mapping

from astro_cli.worker import protocol
from astro_cli.worker.paths import WorkerPaths
from astro_cli.worker.process_state import capture, open_descriptors, open_working_folder

OFF = frozenset({"0", "false", "no", "off"})
# How long a child may take to say ready (it only adopts the client's process state): past this
# the worker is wedged and the run goes on in-process.
READY_TIMEOUT = 20.0
# Ctrl-C, a hang-up and Ctrl-\ go to the whole foreground process group: so to the child's group.
GROUP_SIGNALS = ("SIGINT", "SIGHUP", "SIGQUIT", "SIGCONT")
PROCESS_SIGNALS = ("SIGTERM", "SIGWINCH", "SIGUSR1", "SIGUSR2")


class Fallback:
    """The run stays in this process; `start_worker` when no worker was there to take it."""

    def __init__(self, reason: str, start_worker: bool = False) -> None:
        self.reason = reason
        self.start_worker = start_worker


def switched_off(env: Mapping[str, str]) -> str | None:
    for name in ("ASTRO_WORKER", "ASTRO_WORKER_ENABLED"):
        if (env.get(name) or "").strip().lower() in OFF:
            return f"{name}={env[name]}"
    return None


def try_worker(argv: list[str]) -> int | Fallback:
    """Run `argv` through the worker and return its exit status, or say why it stays here."""
    off = switched_off(os.environ)
    if off:
        return Fallback(f"turned off by {off}")
    paths = WorkerPaths.for_environment(os.environ)
    problem = paths.problem(create=False)
    if problem:
        return Fallback(problem, start_worker=problem == "no runtime folder yet")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    relay = SignalRelay()
    try:
        try:
            sock.connect(paths.socket)
        except (FileNotFoundError, ConnectionRefusedError):
            return Fallback("no worker is running", start_worker=True)
        if protocol.peer_uid(sock) != os.getuid():
            return Fallback("the worker's socket belongs to another user")
        return _run(sock, argv, relay)
    except Exception as exc:  # noqa: BLE001 - before the hand-over any failure only means "run it here"
        if relay.child is not None:
            raise
        return Fallback(f"the worker could not take the run ({type(exc).__name__}: {exc})")
    finally:
        relay.restore()
        sock.close()


def _run(sock: socket.socket, argv: list[str], relay: SignalRelay) -> int | Fallback:
    fds = open_descriptors()
    cwd_fd = open_working_folder()
    sock.settimeout(READY_TIMEOUT)
    try:
        header = {"kind": "run", "protocol": protocol.PROTOCOL, "fds": fds, "cwd_fd": cwd_fd is not None}
        protocol.send_frame(sock, header, fds + ([cwd_fd] if cwd_fd is not None else []))
        protocol.send_frame(sock, capture(argv))
    except OSError:
        pass  # the worker answered before reading everything (a refusal): its answer says why
    finally:
        if cwd_fd is not None:
            os.close(cwd_fd)
    reply = protocol.recv_frame(sock)
    if "ready" not in reply:
        return Fallback(str(reply.get("declined") or reply.get("fallback") or reply.get("refused") or reply))
    relay.child = int(reply["ready"])
    protocol.send_frame(sock, {"go": True})
    # From here the run belongs to the child: whatever happens, this process only reports it.
    relay.forward_pending()
    sock.settimeout(None)
    try:
        status = protocol.recv_frame(sock)
    except (OSError, protocol.ProtocolError):
        print("astro: the worker stopped before the run finished", file=sys.stderr)
        return 1
    if "signal" in status:
        relay.restore()
        return _die_of(int(status["signal"]))
    return int(status.get("exit", 1))


def _die_of(signum: int) -> int:
    """End this process by the signal that ended the child, as the shell would have seen it."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    return 128 + signum


class SignalRelay:
    """Forwards the signals this process gets to the child; those that come before it is known wait."""

    def __init__(self) -> None:
        self.child: int | None = None
        self.pending: list[int] = []
        self.saved: dict[int, object] = {}
        for name in (*GROUP_SIGNALS, *PROCESS_SIGNALS, "SIGTSTP"):
            signum = getattr(signal, name, None)
            if signum is not None:
                self.saved[signum] = signal.signal(signum, self._handle)

    def _handle(self, signum: int, frame: object) -> None:
        if self.child is None:
            self.pending.append(signum)
        else:
            self._forward(signum)

    def _forward(self, signum: int) -> None:
        child = self.child
        assert child is not None
        try:
            if signum == getattr(signal, "SIGTSTP", None):
                self._suspend(child)
            elif signal.Signals(signum).name in GROUP_SIGNALS:
                os.killpg(child, signum)
            else:
                os.kill(child, signum)
        except ProcessLookupError:
            pass

    def _suspend(self, child: int) -> None:
        """Ctrl-Z: stop the child's group, then this process; on `fg`, continue both."""
        os.killpg(child, signal.SIGSTOP)
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTSTP)
        signal.signal(signal.SIGTSTP, self._handle)
        os.killpg(child, signal.SIGCONT)

    def forward_pending(self) -> None:
        pending, self.pending = self.pending, []
        for signum in pending:
            self._forward(signum)

    def restore(self) -> None:
        """Put the handlers back; a signal that came while the run was not handed over is delivered now."""
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        self.saved = {}
        pending, self.pending = self.pending, []
        for signum in pending:
            signal.raise_signal(signum)
