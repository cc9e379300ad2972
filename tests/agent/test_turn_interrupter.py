"""A signal stops a turn even when Python loses its first KeyboardInterrupt.

Python runs a signal handler at the main thread's next bytecode; when that is inside a finaliser, the
exception it raises is printed as "Exception ignored" and lost, and a turn blocked on its provider
would wait for minutes (seen once in CI: `astro run` still running 30 s after SIGTERM). These tests
send real signals to this process and block on a real socket, as the provider read does.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from astro_cli.agent.interrupt import TurnInterrupter

BLOCKED_READ_LIMIT = 60.0  # the read's own timeout: far above the 2 s re-send, so reaching it is the failure


@pytest.fixture
def interrupter() -> Iterator[TurnInterrupter]:
    interrupter = TurnInterrupter(threading.Event(), retry_seconds=0.2)
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: interrupter.interrupt(signum))
    try:
        yield interrupter
    finally:
        signal.signal(signal.SIGUSR1, previous)


class SignalsInItsFinaliser:
    """An object whose finaliser is where the signal's handler runs (as a finaliser of litellm's, httpx's
    or sqlite's objects may be, when the garbage collector runs it in the main thread)."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGUSR1)
        self.after = True  # a bytecode inside the finaliser: the handler raises here, and the error is lost


def blocked_read() -> float:
    """Block as the provider read does; the seconds it took before it was broken."""
    reader, writer = socket.socketpair()
    reader.settimeout(BLOCKED_READ_LIMIT)
    started = time.monotonic()
    try:
        reader.recv(10)
    except TimeoutError:
        pytest.fail(f"the turn was not interrupted: the read waited its whole {BLOCKED_READ_LIMIT:g} s")
    finally:
        reader.close()
        writer.close()
    return time.monotonic() - started


def test_a_signal_lost_in_a_finaliser_still_stops_the_blocked_turn(
    interrupter: TurnInterrupter, monkeypatch: pytest.MonkeyPatch
) -> None:
    lost: list[type[BaseException] | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: lost.append(unraisable.exc_type))
    with pytest.raises(KeyboardInterrupt):
        with interrupter.steps():
            SignalsInItsFinaliser()  # made and dropped: the signal arrives inside its __del__
            assert lost == [KeyboardInterrupt], "the first interrupt was not lost; this test shows nothing"
            blocked_read()
    assert interrupter.cancel.is_set() and not interrupter.breakable


def test_a_signal_while_the_turn_stores_its_answer_only_sets_the_flag(interrupter: TurnInterrupter) -> None:
    interrupter.new_turn()
    with interrupter.steps():
        interrupter.settle()  # the loop has the interruption in hand and is storing the partial answer
        os.kill(os.getpid(), signal.SIGUSR1)
        stored = "the partial answer"  # reached: the signal raised nothing here
    assert stored and interrupter.cancel.is_set()


def test_a_signal_before_the_steps_stops_at_once_and_a_new_turn_starts_clean(interrupter: TurnInterrupter) -> None:
    interrupter.new_turn()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGUSR1)
        blocked_read()
    interrupter.new_turn()
    assert not interrupter.cancel.is_set()


def test_the_entry_point_knows_the_interrupted_exit_code() -> None:
    """main.py ends an interrupted in-process run at once (process_exit.py) by its exit code, which it
    keeps as a literal so that `astro --version` imports nothing; the two must agree."""
    from astro_cli import bootstrap, main

    assert main.EXIT_INTERRUPTED == bootstrap.EXIT_INTERRUPTED
