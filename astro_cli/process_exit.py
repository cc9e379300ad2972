"""Ending the process as the interpreter would, minus its final tear-down.

Threads are joined, atexit handlers run and the streams are flushed, as at a normal exit; then
the process ends with os._exit, without the interpreter's final garbage collection of every
object and module. The warm worker's child ends this way (its modules are shared with the worker),
and so does an interrupted `astro run`: after SIGTERM cut a streaming reply, that final collection
was once seen to hang for over a minute (faulthandler: "Garbage-collecting", no Python frame),
with the partial answer already stored. An interrupted run also bounds its wind-down
(`within`): a thread still blocked on the provider it was reading from, or an atexit handler that
waits on one, cannot keep the process alive after the user asked it to stop.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import NoReturn

log = logging.getLogger(__name__)

INTERRUPTED_WITHIN = 10.0  # seconds an interrupted run's wind-down may take (its answer is stored)


def wind_down() -> None:
    """What a normal exit does before the tear-down: join threads, run atexit, flush the streams."""
    import atexit

    try:
        threading._shutdown()  # type: ignore[attr-defined]  # what Py_Finalize does first
    except Exception:  # noqa: BLE001
        log.debug("threads did not shut down cleanly", exc_info=True)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # noqa: BLE001 - a closed pipe: nothing more to say
            log.debug("the output could not be flushed", exc_info=True)


def exit_now(code: int, within: float | None = None) -> NoReturn:
    """wind_down, then end the process with `code` and no tear-down; after `within` seconds the
    process ends with `code` even if the wind-down has not finished."""
    if within is not None:
        bound_exit(code, within)
    wind_down()
    os._exit(code)


def bound_exit(code: int, within: float) -> None:
    """From now on, the process ends with `code` at the latest `within` seconds later."""

    def end() -> None:
        os.write(2, f"astro: stopping took over {within:g} s; ending now\n".encode())
        os._exit(code)

    timer = threading.Timer(within, end)
    timer.daemon = True  # not one of the threads the wind-down waits for
    timer.start()
