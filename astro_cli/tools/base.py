"""What a tool is and what it returns (what it may reach is tools/context.py).

A tool is a name, a description (its first sentence becomes the summary in the system prompt),
a JSON schema for its arguments, a read_only flag and a `run(ctx, args)` function. Errors a tool
raises as ToolError reach the model as error results with the tool's own sentence; any other
exception is reported as an unexpected failure. Neither ends the turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from astro_cli.security.paths import PathRefused


class ToolError(Exception):
    """A failure the model should read: one clear sentence, no traceback."""


# Refusals of paths (security.paths) reach the model exactly as ToolErrors do.
TOOL_FAILURES: tuple[type[Exception], ...] = (ToolError, PathRefused)


@dataclass
class ToolResult:
    """What a tool returns: text for the model, and structured data for people and other parts."""

    content: str
    is_error: bool = False
    data: dict[str, Any] | None = None
    # True when the content holds astro's own prompt tags on purpose (<paper-text>, <command-name>) and
    # the tool escaped every other piece of text in it; otherwise the loop escapes the whole content.
    framed: bool = False


# Western stops end a sentence only before a space (so "1.5" or "astro.db" do not); CJK stops always do.
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？]|\n")


def first_sentence(description: str, limit: int = 80) -> str:
    """The description's first sentence (ending at . 。 ! ? or a newline), cut to `limit` characters."""
    text = description.strip()
    match = _SENTENCE_END.search(text)
    if match:
        end = match.end() if match.group() != "\n" else match.start()
        text = text[:end].strip()
    return text[:limit]


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    # run(ctx, args): ctx is a tools.context.ToolContext. It is not named here so that this module, which
    # the registries and the app's type build on, does not depend on the app through the context.
    run: Callable[[Any, dict[str, Any]], ToolResult | str]
    read_only: bool = True
    needs_permission: bool = False
    timeout: float | None = None
    key_argument: str | None = None  # shown on the compact tool line in the terminal
    # A tool that is safe by default but risky for some arguments (query_catalog beyond the row limit):
    # when this says True for a call's arguments, that call needs permission as needs_permission tools do.
    permission_when: Callable[[dict[str, Any]], bool] | None = None
    # A call that would widen where data may go (a TAP URL not yet allowed): what it would do, as the
    # middle of a sentence; such a call is never pre-approved (--yes, permissions.allow): only a researcher
    # answering the question may allow it (agent/permissions.py).
    widens: Callable[[dict[str, Any]], str | None] | None = None
    # Tidies a call's arguments before they are checked against `parameters` (rag_search drops a
    # phrasing repeated five times, which small models write, instead of refusing the call).
    tidy_arguments: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # astro's numeric parameters are counts, limits and durations: a negative one is refused unless its
    # schema sets a minimum (agent/tool_runner.check_arguments). A server's own schema (MCP) decides alone.
    negative_numbers: bool = False

    def needs_permission_for(self, arguments: dict[str, Any]) -> bool:
        return (self.needs_permission or (self.permission_when is not None and self.permission_when(arguments))
                or self.widening(arguments) is not None)

    def widening(self, arguments: dict[str, Any]) -> str | None:
        return self.widens(arguments) if self.widens is not None else None

    @property
    def summary(self) -> str:
        return first_sentence(self.description)

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool schema litellm translates for every provider."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


def object_schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A JSON schema for an arguments object; saves repeating the boilerplate in every tool."""
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema
