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
    import json

    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("name") != ANSWER:
        return None
    arguments = value.get("arguments")
    answer = arguments.get("text") if isinstance(arguments, dict) else None
    return answer if isinstance(answer, str) and answer.strip() else None
