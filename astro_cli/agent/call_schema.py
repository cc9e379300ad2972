"""A tool call the server must write: the offered tools as one JSON schema (`response_format`).

Measured (issue 48, Qwen2.5-Coder-1.5B through llama.cpp's server, xllamacpp 2026.10): the server
ignores `tool_choice: "required"` for this model's chat template. The first reply of a turn was text,
`<tools>{"name": "get_paper_content", ...}</tools>` and then blank lines up to the 512-token limit
(three minutes of a loaded CPU), in the development and the held-out runs alike. The same server
does constrain a reply to a `response_format` JSON schema, and ends the reply when the object is
complete. So where a call is required of a llama.cpp server, the request also carries a schema whose
every branch is one offered tool, `{"name": <that tool>, "arguments": <its parameters>}`: the reply
is one call astro reads as written (agent/text_calls.py), and nothing follows it.
"""

from __future__ import annotations

import json
import re
from typing import Any

NAME = "tool_call"


def call_response_format(tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The `response_format` that admits exactly one call of one of `tools` (OpenAI tool schemas);
    None when no tool has a name."""
    branches = []
    for tool in tools:
        function = tool.get("function") or {}
        name = function.get("name")
        if not name:
            continue
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        branches.append({"type": "object", "properties": {"name": {"const": name}, "arguments": parameters},
                         "required": ["name", "arguments"], "additionalProperties": False})
    if not branches:
        return None
    return {"type": "json_schema", "json_schema": {"name": NAME, "schema": {"anyOf": branches}}}


# The step after the question's own source was read (agent/first_step.py): one branch of the schema is
# the answer itself, written as {"name": "answer", "arguments": {"text": ...}}; the adapter gives the
# text back as the reply's text. Not a tool: never offered in the tool list, never run.
ANSWER = "answer"
ANSWER_TOOL: dict[str, Any] = {"type": "function", "function": {
    "name": ANSWER, "description": "Your answer to the user, in plain text.",
    "parameters": {"type": "object", "properties": {"text": {"type": "string", "minLength": 1}},
                   "required": ["text"], "additionalProperties": False}}}


def offers_answer(tools: list[dict[str, Any]] | None) -> bool:
    return any((tool.get("function") or {}).get("name") == ANSWER for tool in tools or [])


def answer_of(text: str) -> str | None:
    """The answer's text when `text` is the answer branch written out; None otherwise."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("name") != ANSWER:
        return None
    arguments = value.get("arguments")
    answer = arguments.get("text") if isinstance(arguments, dict) else None
    return answer if isinstance(answer, str) and answer.strip() else None


# Recorded (stop 53, old 8-task set, library_paper and library_cite): the answer branch ran on to the
# reply limit, so its JSON ended inside the text string, and a right answer was sent back as an
# unusable call (`Unterminated string`), then the turn paused. The text written so far is the answer.
_ANSWER_OPENING = re.compile(r'\s*\{\s*"name"\s*:\s*"answer"\s*,\s*"arguments"\s*:\s*\{\s*"text"\s*:\s*"')
CUT_MARK = "[the reply was cut at the limit]"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
MIN_LOOP_SENTENCE = 20  # shorter sentences ("Yes.") may rightly come twice


def cut_answer_of(text: str) -> str | None:
    """The text so far of an answer branch cut inside its string (the JSON never closed), marked as
    cut, with any run the model looped into dropped; None when `text` is not such a cut answer."""
    opening = _ANSWER_OPENING.match(text)
    if opening is None or answer_of(text) is not None:
        return None
    body = text[opening.end():]
    closed = _string_end(body)
    if closed is not None:
        body = body[:closed]  # the string ended; only what came after it was cut
    written = _decoded(body)
    kept = _first_pass(written).strip()
    return f"{kept}\n\n{CUT_MARK}" if kept else None


def _string_end(body: str) -> int | None:
    escaped = False
    for at, char in enumerate(body):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            return at
    return None


def _decoded(body: str) -> str:
    """A JSON string's content, read as far as it is whole (a cut escape at its end is dropped)."""
    for end in range(len(body), max(len(body) - 6, -1), -1):
        try:
            value = json.loads(f'"{body[:end]}"')
        except ValueError:
            continue
        return value if isinstance(value, str) else ""
    return ""


def _first_pass(text: str) -> str:
    """`text` up to the first long sentence it repeats: a small model at its limit loops (recorded:
    library_cite's answer said the same three sentences until the limit)."""
    seen: set[str] = set()
    at = 0
    for sentence in _SENTENCE_END.split(text):
        key = " ".join(sentence.split())
        if len(key) >= MIN_LOOP_SENTENCE and key in seen:
            return text[:at]
        seen.add(key)
        found = text.find(sentence, at)
        at = found + len(sentence) if found >= 0 else at
    return text
