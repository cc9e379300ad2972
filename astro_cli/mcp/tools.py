"""An MCP server's tools as astro tools: `mcp__<server>__<tool>`, the server's own schema and description.

The names follow Claude Code, so permission patterns and hook matchers written for one client work
in the other. A tool acts in the outside world, so every one needs the researcher's approval, like
run_bash. Its description comes from the server: astro's own prompt tags are escaped in it, and it
is cut at MAX_DESCRIPTION_CHARS so one verbose server cannot fill the context.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from astro_cli.mcp.state import CallOutcome, RemoteTool
from astro_cli.prompt.tags import escape_tags
from astro_cli.tools.base import Tool, ToolResult
from astro_cli.tools.command import cut_output
from astro_cli.tools.context import ToolContext

PREFIX = "mcp__"
MAX_NAME_CHARS = 64  # what OpenAI and Anthropic accept for a function name
MAX_DESCRIPTION_CHARS = 2048
TIMEOUT_MARGIN = 5.0  # the runner's own limit sits past mcp.tool_timeout, so the clearer MCP message wins
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")

# call(server, tool, arguments, ctx) -> CallOutcome; raises ToolError with a sentence for the model.
Caller = Callable[[str, str, dict[str, Any], ToolContext], CallOutcome]


def tool_name(server: str, tool: str) -> str:
    """`mcp__server__tool`, with characters providers refuse replaced by `_`, at most 64 characters."""
    name = f"{PREFIX}{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= MAX_NAME_CHARS:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME_CHARS - 9]}_{digest}"


def build_tools(server: str, remote: list[RemoteTool], call: Caller, timeout: float,
                max_output_chars: int) -> tuple[list[Tool], list[str]]:
    """The astro tools of one server, and a sentence for each tool that had to be left out."""
    tools: list[Tool] = []
    problems: list[str] = []
    seen: dict[str, str] = {}
    for item in remote:
        name = tool_name(server, item.name)
        if name in seen:
            problems.append(f"MCP server '{server}': tools '{seen[name]}' and '{item.name}' both become {name}; "
                            f"'{item.name}' is left out.")
            continue
        seen[name] = item.name
        tools.append(Tool(
            name=name,
            description=describe(server, item),
            parameters=input_schema(item.input_schema),
            run=_runner(server, item.name, call, max_output_chars),
            read_only=False,
            needs_permission=True,
            timeout=timeout + TIMEOUT_MARGIN,
            key_argument=key_argument(item.input_schema),
            negative_numbers=True,  # the server's schema says its own minimums (a declination may be negative)
        ))
    return tools, problems


def describe(server: str, item: RemoteTool) -> str:
    text = (item.description or "").strip() or (item.title or "").strip()
    if not text:
        text = f"The tool {item.name} of the MCP server {server} (it gives no description)."
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = text[: MAX_DESCRIPTION_CHARS - 1].rstrip() + "…"
    return escape_tags(text)


def input_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The server's JSON schema as providers accept it: an object with properties."""
    result = {key: value for key, value in (schema or {}).items() if key != "$schema"}
    result["type"] = "object"
    if not isinstance(result.get("properties"), dict):
        result["properties"] = {}
    return result


def key_argument(schema: dict[str, Any]) -> str | None:
    """The first required string argument, shown on the compact tool line (a query, a path, an id)."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return None
    required = [name for name in schema.get("required") or [] if name in properties]
    for name in required + [name for name in properties if name not in required]:
        spec = properties.get(name)
        if isinstance(spec, dict) and spec.get("type") == "string":
            return str(name)
    return None


def _runner(server: str, tool: str, call: Caller, max_output_chars: int) -> Callable[[ToolContext, dict[str, Any]], ToolResult]:
    def run(ctx: ToolContext, arguments: dict[str, Any]) -> ToolResult:
        outcome = call(server, tool, arguments, ctx)
        # Redaction and tag escaping happen in the tool runner, as for every result (framed stays False).
        return ToolResult(cut_output(outcome.text, max_output_chars), is_error=outcome.is_error)

    return run
