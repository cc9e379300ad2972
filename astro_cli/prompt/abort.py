"""The abort signal of one assembly (seed 000's `AssembleContext.signal`).

A model request's prompt is assembled with the turn's cancel event as its signal. Providers,
runtime-context sources and listeners may wait on it (`data.signal.wait(timeout)`) instead of
blocking, and must not keep it for another turn. A provider that blocks without looking at it
(a hung network call, a lock) cannot hold the turn either: with a signal, the assembly runs in a
helper thread, and once the signal is set the caller stops waiting and raises AssemblyAborted;
the abandoned thread's result is dropped when it returns. Without a signal (`astro prompt show`,
measuring) nothing changes: the assembly runs in the caller's thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
POLL_SECONDS = 0.05  # how soon a set signal is noticed while a provider blocks


class AssemblyAborted(Exception):
    """The request's abort signal was set while its prompt was being assembled."""


def abortable(work: Callable[[], T], signal: threading.Event | None, what: str) -> T:
    """`work()` in a helper thread, given up as soon as `signal` is set; in this thread without a signal."""
    if signal is None:
        return work()
    if signal.is_set():
        raise AssemblyAborted(f"{what} was interrupted before it began.")
    outcome: list[T] = []
    failure: list[BaseException] = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread, which raises it
            failure.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, name=f"assembly: {what}", daemon=True).start()
    while not done.wait(POLL_SECONDS):
        if signal.is_set():
            log.debug("%s: interrupted while a provider was still running; its thread is abandoned", what)
            raise AssemblyAborted(f"{what} was interrupted.")
    if failure:
        raise failure[0]
    return outcome[0]
