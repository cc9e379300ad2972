"""The schema's answer branch (agent/call_schema.py) written where no schema held the reply.

Recorded (issue 48, stop 53, Qwen2.5-Coder-1.5B): after a corrective message the request is free again,
and the model, having answered through the schema one step before, writes `{"name": "answer",
"arguments": {"text": ...}}` as text, or `{"name": "answer"}` with nothing in it. `answer` is no tool, so
read as a call it was refused as unknown and the turn paused. Written whole, it is the answer; cut at
the reply limit, its text so far is (marked as cut); with no text, the model is asked once more.
"""

from __future__ import annotations

import re

from astro_cli.agent.call_schema import ANSWER, cut_answer_of
from astro_cli.agent.text_calls import find_text_calls, strip_template_tags

_LEADING_FENCE = re.compile(r"\s*```[ \t]*(?:json)?[ \t]*\n?")
NO_TEXT = ""  # the answer branch named, with no text in it


def answer_written(text: str) -> str | None:
    """The answer's text when `text` is the answer branch written out (bare, fenced or in call tags);
    NO_TEXT when it names `answer` and holds no text; None when it is something else."""
    found = find_text_calls(text, {ANSWER})
    if found is not None and found.calls and not found.prose and all(call.name == ANSWER for call in found.calls):
        said = found.calls[0].arguments.get("text")
        return said.strip() if isinstance(said, str) else NO_TEXT
    bare = _LEADING_FENCE.sub("", strip_template_tags(text), count=1)
    return cut_answer_of(bare)
