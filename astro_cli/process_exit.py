"""Ending the process as the interpreter would, minus its final tear-down.

Threads are joined, atexit handlers run and the streams are flushed, as at a normal exit; then
the process ends with os._exit, without the interpreter's final garbage collection of every
object and module. The warm worker's child ends this way (its modules are shared with the worker),
and so does an interrupted `astro run`: after SIGTERM cut a streaming reply, that final collection
was once seen to hang for over a minute (faulthandler: "Garbage-collecting", no Python frame),
with the partial answer already stored.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import NoReturn

log = logging.getLogger(__name__)


def wind_down() -> None:
    """What a normal exit does before the tear-down: join threads, run atexit, flush the streams."""
    import atexit
    import threading

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


def exit_now(code: int) -> NoReturn:
    """wind_down, then end the process with `code` and no tear-down."""
    wind_down()
    os._exit(code)
