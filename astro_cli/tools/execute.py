"""Run one tool call in a thread of its own, with a deadline: the one executor that the foreground
runner (agent/tool_runner.py) and background tasks (tasks/background.py) share.

A Python thread cannot be killed. A call past its deadline, or cancelled, is asked to stop through
its cancel event (the tools that run commands end their process group) and given a short grace;
one that still runs after it is reported as still running, never as finished or failed, so that
nobody is told "abandoned" while its effect may still happen.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from astro_cli.tools.base import TOOL_FAILURES, Tool, ToolResult
from astro_cli.tools.context import ToolContext

CANCEL_GRACE = 2.0  # seconds a cancelled or timed-out tool gets to notice its cancel event and stop
POLL = 0.1


def error_result(text: str) -> ToolResult:
    return ToolResult(content=f"Error: {text}", is_error=True)


@dataclass
class RunningCall:
    """A tool call's thread: `done` is set once `result` holds what the tool returned or raised."""

    name: str
    done: threading.Event = field(default_factory=threading.Event)
    box: dict[str, ToolResult] = field(default_factory=dict)

    @property
    def result(self) -> ToolResult | None:
        return self.box.get("result")


@dataclass
class Execution:
    """How a call ended: `done` (its own result), `stopped` (it stopped within the grace once asked)
    or `still_running`; `reason` says why it was asked to stop (`timeout` or `cancelled`)."""

    ending: Literal["done", "stopped", "still_running"]
    reason: Literal["finished", "timeout", "cancelled"]
    call: RunningCall
    timeout: float

    @property
    def result(self) -> ToolResult | None:
        return self.call.result


def start(tool: Tool, ctx: ToolContext, arguments: dict[str, Any]) -> RunningCall:
    """Start the tool in a daemon thread; every failure becomes an error result the model can act on."""
    call = RunningCall(tool.name)

    def target() -> None:
        try:
            output = tool.run(ctx, arguments)
            call.box["result"] = output if isinstance(output, ToolResult) else ToolResult(content=str(output))
        except TOOL_FAILURES as exc:
            call.box["result"] = error_result(str(exc))
        except TypeError as exc:
            call.box["result"] = error_result(f"{tool.name} got arguments it cannot use ({exc}).")
        except Exception as exc:  # noqa: BLE001 - any tool failure goes back to the model
            call.box["result"] = error_result(f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}")
        finally:
            call.done.set()

    name = f"{threading.current_thread().name}-{tool.name}"
    threading.Thread(target=target, name=name, daemon=True).start()
    return call


def execute(tool: Tool, ctx: ToolContext, arguments: dict[str, Any], timeout: float,
            interrupt: threading.Event | None = None, grace: float = CANCEL_GRACE) -> Execution:
    """Run the call until it ends, its deadline passes, or it is cancelled (its own cancel event, or
    `interrupt`, the turn's, which is passed on to it); then grant the grace and say how it ended."""
    call = start(tool, ctx, arguments)
    deadline = time.monotonic() + timeout
    reason: Literal["timeout", "cancelled"] = "timeout"
    try:
        while not call.done.wait(POLL):
            if interrupt is not None and interrupt.is_set():
                ctx.cancel.set()
            if ctx.cancel.is_set():
                reason = "cancelled"
                break
            if time.monotonic() > deadline:
                ctx.cancel.set()
                break
        else:
            return Execution("done", "finished", call, timeout)
    except BaseException:
        ctx.cancel.set()
        raise
    if call.done.wait(grace):
        return Execution("stopped", reason, call, timeout)
    return Execution("still_running", reason, call, timeout)
