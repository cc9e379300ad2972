"""A turn whose work a tool already did, ended with that tool's result instead of a pause.

Recorded (issue 48, Qwen2.5-Coder-1.5B): asked to remember a preference, the model called save_memory,
which wrote the memory, then wrote the same call again twice; the turn was paused with no answer
although the work was done. When a small model's second unusable reply in a row comes right after a
tool that changes something (not read-only) succeeded, that tool's result is the answer: it says what
was done. A read-only result (a search, a file read) is not an answer by itself, so those turns still
pause.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def result_of_done_work(messages: list[dict[str, Any]], tool_log: list[dict[str, Any]],
                        read_only: Callable[[str], bool]) -> str | None:
    """The content of this turn's last tool result, when that call succeeded and changed something."""
    if not tool_log:
        return None
    last = tool_log[-1]
    name = str(last.get("name", ""))
    if not last.get("ok") or read_only(name):
        return None
    for message in reversed(messages):
        content = str(message.get("content") or "").strip()
        if message.get("role") == "tool" and message.get("name") == name and not content.startswith("[not run"):
            return content or None
    return None
