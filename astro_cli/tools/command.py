"""Running one shell command with a deadline that holds whatever the command's children do.

The command runs in a process group of its own, registered with the app's ProcessGroups so an
interrupt of astro ends it. Its output is read by a thread into a bounded buffer, so:

- at the deadline (or a cancel) the group is killed and reading stops, even when a detached child
  (`setsid ... &`) still holds the output pipe open; such children are found through /proc and
  stopped as well, and the result names what could not be stopped;
- when the command itself ends but leaves a child writing to the pipe (`server &`), the result
  comes back at once and names the child as still running; the child keeps its process group,
  so it ends with astro.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from astro_cli.tools.processes import Holder, ProcessGroups, pipe_holders, signal_group

PIPE_GRACE = 0.3  # seconds to let the last output arrive once the command has ended
POLL = 0.05


class BoundedOutput:
    """Bytes of a command's output: the first and last `keep` bytes, and how many there were."""

    def __init__(self, keep: int) -> None:
        self.keep = max(1024, keep)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.lock = threading.Lock()

    def feed(self, data: bytes) -> None:
        with self.lock:
            self.total += len(data)
            room = self.keep - len(self.head)
            if room > 0:
                self.head += data[:room]
                data = data[room:]
            if data:
                self.tail += data
                if len(self.tail) > self.keep:
                    del self.tail[: len(self.tail) - self.keep]

    def text(self, limit: int) -> str:
        """The output as text, cut to about `limit` characters (head and tail) with a note."""
        with self.lock:
            whole = (self.head + self.tail).decode("utf-8", errors="replace")
            dropped = self.total - len(self.head) - len(self.tail)
        if dropped <= 0:
            return cut_output(whole, limit)
        head, tail = whole[: limit // 2], whole[len(whole) - limit // 2 :]
        return f"{head}\n[... characters cut; {self.total} bytes in all ...]\n{tail}"


def cut_output(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = text[: limit // 2]
    tail = text[-limit // 2 :]
    return f"{head}\n[... {len(text) - limit} characters cut; {len(text)} in all ...]\n{tail}"


@dataclass
class CommandOutcome:
    """What happened to a command: its output, exit code, and why it stopped if it did not end itself."""

    output: BoundedOutput
    returncode: int | None
    timed_out: bool = False
    cancelled: bool = False
    stopped_holders: list[Holder] = field(default_factory=list)
    left_running: list[Holder] = field(default_factory=list)


def run_command(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    cancel: threading.Event,
    groups: ProcessGroups,
    keep_bytes: int,
) -> CommandOutcome:
    """Run `argv` with stdin closed; return by the deadline (or soon after a cancel) whatever happens."""
    process = subprocess.Popen(
        argv, cwd=cwd, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, start_new_session=True,
    )
    groups.add(process.pid)
    output = BoundedOutput(keep_bytes)
    assert process.stdout is not None
    pipe = os.fstat(process.stdout.fileno()).st_ino
    reader = threading.Thread(target=_drain, args=(process.stdout, output), name=f"output-{process.pid}",
                              daemon=True)
    reader.start()
    outcome = CommandOutcome(output=output, returncode=None)
    deadline = time.monotonic() + timeout
    try:
        while process.poll() is None:
            if cancel.is_set() or time.monotonic() >= deadline:
                outcome.cancelled = cancel.is_set()
                outcome.timed_out = not outcome.cancelled
                signal_group(process.pid, signal.SIGKILL)
                process.wait()
                break
            cancel.wait(POLL)
        outcome.returncode = process.returncode
        reader.join(PIPE_GRACE)
        if reader.is_alive():
            _pipe_still_open(outcome, pipe, reader, stop=outcome.timed_out or outcome.cancelled)
    finally:
        if process.poll() is None:
            signal_group(process.pid, signal.SIGKILL)
            process.wait()
        if not reader.is_alive():
            groups.discard(process.pid)
        # Otherwise a child still writes to the pipe: its group stays registered (it ends with
        # astro) and the reader keeps draining, so the child never blocks on a full pipe.
    return outcome


def _pipe_still_open(outcome: CommandOutcome, pipe: int, reader: threading.Thread, stop: bool) -> None:
    """Children hold the output open after the command ended: stop them (on a timeout) or name them."""
    holders = pipe_holders(pipe)
    if not stop:
        outcome.left_running = holders
        return
    for holder in holders:
        try:
            os.kill(holder.pid, signal.SIGKILL)
            outcome.stopped_holders.append(holder)
        except ProcessLookupError:
            outcome.stopped_holders.append(holder)
        except PermissionError:
            outcome.left_running.append(holder)
    reader.join(PIPE_GRACE)
    if reader.is_alive() and not outcome.left_running:
        outcome.left_running = pipe_holders(pipe) or [Holder(0, "a process astro cannot see")]


def _drain(stream: IO[bytes], output: BoundedOutput) -> None:
    """Read the pipe to its end (the last writer gone), then close it."""
    fd = stream.fileno()
    try:
        while data := os.read(fd, 65536):
            output.feed(data)
    except OSError:
        pass
    finally:
        stream.close()


def stop_command(process: subprocess.Popen[bytes], grace: float = 5.0) -> list[Holder]:
    """End a command started in a session of its own, and everything that holds its pipes open.

    The process group is killed first; a child that left it (`setsid ... &`) but still holds
    stdout or stderr is found through /proc and killed too, so nothing started by the command
    outlives its timeout and no read waits on it. Returns the holders that could not be stopped.
    """
    pipes = [os.fstat(stream.fileno()).st_ino for stream in (process.stdout, process.stderr)
             if stream is not None and not stream.closed]
    signal_group(process.pid, signal.SIGKILL)
    process.kill()
    left: list[Holder] = []
    for inode in pipes:
        for holder in pipe_holders(inode):
            try:
                os.kill(holder.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            except PermissionError:
                left.append(holder)
    try:
        process.communicate(timeout=grace)
    except subprocess.TimeoutExpired:  # a holder astro may not stop: stop reading instead of waiting on it
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        process.wait()
    return left


def describe_holders(holders: list[Holder]) -> str:
    return ", ".join(f"pid {h.pid} ({h.command})" if h.pid else h.command for h in holders)
