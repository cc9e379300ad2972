"""A tool call written as a tag named after the tool: `<todo_write>{"todos": [...]}</todo_write>`.

Recorded (issue 48, stop 52 held-out half, task_keck, Qwen2.5-Coder-1.5B): asked to put a task on the
list, the model wrote `<todo_write>\\n{"todos": [...]}\\n</todo_write>` as its whole reply; astro read no
call in it and gave the tag back as the answer. Its chat template writes calls as `<tool_call>` tags,
and the model put the tool's name in the tag's place. The rule (no tool named): a tag whose name is an
offered tool, ending the reply, whose body is a JSON object of arguments (or the usual {"name",
"arguments"} of that same tool) is that call. Everything else text_calls.py asks of a text call holds:
it must end the reply, and a body copied from a tool's result stays text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

# The last tag of the reply (opening tag, body, the same tag closed) with only whitespace after it.
_TAG_AT_END = re.compile(r"<(?P<tag>[A-Za-z_][\w.-]{0,63})>(?P<body>[^<]*)</(?P=tag)>\s*$")


def tag_call(text: str, tools: Collection[str]) -> tuple[str, dict[str, Any], str, str] | None:
    """(tool name, arguments, the prose before the tag, the body as written) of a call written as a
    tag named after an offered tool that ends `text`; None when the text ends with no such call."""
    found = _TAG_AT_END.search(text)
    if found is None or found.group("tag") not in tools:
        return None
    name, body = found.group("tag"), found.group("body").strip()
    try:
        value = json.loads(body) if body else {}
    except json.JSONDecodeError:
        return None  # a tag of prose: the model wrote about the tool, it did not call it
    if not isinstance(value, dict):
        return None
    inner = value.get("arguments", value.get("parameters"))
    arguments: dict[str, Any] = inner if value.get("name") == name and isinstance(inner, dict) else value
    return str(name), arguments, text[: found.start()], str(body)
