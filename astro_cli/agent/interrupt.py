"""Stopping a running turn from a signal handler, reliably.

A signal (Ctrl-C, SIGTERM from `kill` or a service manager) stops a turn by raising KeyboardInterrupt
in the main thread, which breaks a blocked read from the provider or the wait on a tool. Python runs a
signal's handler at the main thread's next bytecode, and that may be inside a finaliser (a `__del__`,
a weakref callback): an exception raised there is printed as "Exception ignored" and lost, and the turn
would go on waiting for its model until the provider's timeout, minutes later.

So after raising, a watcher re-sends the same signal to the main thread every `retry_seconds` until the
turn has noticed the interruption or its steps have ended. A signal that arrives outside the steps
(while the turn stores what it has, or between turns) only sets the cancel flag: it can never break the
bookkeeping that keeps the partial answer.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)

RETRY_SECONDS = 2.0
# A second signal this soon after a raise only sets the flag: a double Ctrl-C must not break the
# clean-up the first one started (the watcher's re-sends come later than this).
DEBOUNCE_SECONDS = 1.0


class TurnInterrupter:
    """The breakable part of a turn, and the one way a signal handler stops it."""

    def __init__(self, cancel: threading.Event, retry_seconds: float = RETRY_SECONDS) -> None:
        self.cancel = cancel
        self.retry_seconds = retry_seconds
        self._breakable = False
        self._begun = False
        self._raised_at: float | None = None
        self._settled = threading.Event()  # the steps ended, or the loop has the interruption in hand
        self._watcher: threading.Thread | None = None

    @property
    def breakable(self) -> bool:
        """Whether a signal now raises KeyboardInterrupt (the turn's steps are running)."""
        return self._breakable

    def new_turn(self) -> None:
        """A turn starts: no cancel flag from before, and its steps not yet reached."""
        self.cancel.clear()
        self._begun = False
        self._raised_at = None

    @contextmanager
    def steps(self) -> Iterator[None]:
        """The span a signal may break: the model requests and tool calls of one turn."""
        self._settled.clear()
        self._begun = self._breakable = True
        try:
            yield
        finally:
            self.settle()

    def settle(self) -> None:
        """The loop has seen the interruption (or the steps are over): no more raising."""
        self._breakable = False
        self._settled.set()

    def interrupt(self, signum: int) -> None:
        """Call from a signal handler (main thread) while a turn runs: cancel it.

        Raises KeyboardInterrupt during the steps, and before them (nothing to keep yet); once the
        steps are over, the turn is storing what it has, and only the cancel flag is set."""
        self.cancel.set()
        if self._breakable:
            now = time.monotonic()
            if self._raised_at is not None and now - self._raised_at < DEBOUNCE_SECONDS:
                return
            self._raised_at = now
            self._watch(signum)
            raise KeyboardInterrupt
        if not self._begun:
            raise KeyboardInterrupt

    def _watch(self, signum: int) -> None:
        if self._watcher is not None and self._watcher.is_alive():
            return
        main = threading.main_thread().ident
        if main is None:  # pragma: no cover - the main thread always has an ident once running
            return

        def resend() -> None:
            while not self._settled.wait(self.retry_seconds):
                if not self._breakable:
                    return
                log.debug("the turn has not stopped %g s after signal %d; sending it again", self.retry_seconds,
                          signum)
                signal.pthread_kill(main, signum)

        self._watcher = threading.Thread(target=resend, name="astro-interrupt", daemon=True)
        self._watcher.start()
