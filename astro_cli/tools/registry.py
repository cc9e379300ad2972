"""The tool registry: one place that knows every tool, keyed by name.

A user or plugin tool registered under a built-in's name replaces it, both in the prompt and in
execution. The order tools are sent in is deterministic (config `tool_order`), which keeps the
request's tool list byte-identical between steps for the provider's prompt cache.
"""

from __future__ import annotations

from collections.abc import Iterable

from astro_cli.config import ConfigError
from astro_cli.tools.base import Tool

UNLISTED = "<unlisted-tools>"


class ToolOrderError(ConfigError):
    """`tool_order` names a tool that is not registered."""


class ReservedToolName(ConfigError):
    """A tool named with `tool_order`'s rest marker, which could never be placed by it."""


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self.version = 0  # bumps on every change, so callers can cache derived text
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        """Add a tool; a tool of the same name is replaced (user and plugin tools override built-ins).
        The name `<unlisted-tools>` is refused: in `tool_order` it means "every tool not listed"."""
        if tool.name == UNLISTED:
            raise ReservedToolName(f"a tool cannot be named '{UNLISTED}': that is the marker of config 'tool_order'.")
        self._tools[tool.name] = tool
        self.version += 1

    def unregister(self, name: str) -> None:
        if self._tools.pop(name, None) is not None:
            self.version += 1

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def __contains__(self, name: str) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def ordered(self, order: list[str] | None = None, only: Iterable[str] | None = None) -> list[Tool]:
        """Tools in request order: `order` with its one unlisted marker, else by name."""
        allowed = set(only) if only is not None else None
        # A copy taken at once: MCP tools come and go from the loop thread while a subagent may read.
        pool = {n: t for n, t in list(self._tools.items()) if allowed is None or n in allowed}
        if not order:
            return [pool[n] for n in sorted(pool)]
        # MCP tools (`mcp__...`) join when their server is up, after this is first checked: not an error.
        missing = [n for n in order if n != UNLISTED and n not in self._tools and not n.startswith("mcp__")]
        if missing:
            raise ToolOrderError(
                f"config 'tool_order' names {', '.join(missing)}, which no registered tool has "
                f"(known tools: {', '.join(self.names())})."
            )
        listed = [n for n in order if n != UNLISTED]
        rest = sorted(n for n in pool if n not in listed)
        result: list[Tool] = []
        for name in order:
            if name == UNLISTED:
                result.extend(pool[n] for n in rest)
            elif name in pool:
                result.append(pool[name])
        return result
