"""A turn whose work a tool already did, ended with that tool's result instead of a pause.

Recorded (issue 48, Qwen2.5-Coder-1.5B): asked to remember a preference, the model called save_memory,
which wrote the memory, then wrote the same call again twice; the turn was paused with no answer
although the work was done. When a small model's second unusable reply in a row comes right after a
tool that changes something (not read-only) succeeded, the turn ends with what was done. A read-only
result (a search, a file read) is not an answer by itself, so those turns still pause.

A tool's result line is never passed off as the model's answer (stop 54 held-out, memory_jupiter_masses:
save_note's "Created notes/..." stood as the answer): astro says in its own words that the model gave no
answer and lists each change the turn made, the tool by name beside the first line of its result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def result_of_done_work(messages: list[dict[str, Any]], tool_log: list[dict[str, Any]],
                        read_only: Callable[[str], bool]) -> str | None:
    """astro's account of the changes this turn made, when the last call succeeded and changed something."""
    if not tool_log:
        return None
    last = tool_log[-1]
    if not last.get("ok") or read_only(str(last.get("name", ""))):
        return None
    # This turn's results are the last tool messages, one per logged call, in order.
    results = [message for message in messages if message.get("role") == "tool"][-len(tool_log):]
    done = [f"{call.get('name')} ({_first_line(message)})" for call, message in zip(tool_log, results)
            if call.get("ok") and not read_only(str(call.get("name", ""))) and _first_line(message)
            and not _first_line(message).startswith("[not run")]
    if not done:
        return None
    return "The model gave no answer of its own after the work; astro did this in the turn: " + "; ".join(done) + "."


def _first_line(message: dict[str, Any]) -> str:
    """The first line of a tool message's content."""
    return str(message.get("content") or "").strip().split("\n", 1)[0].strip()
