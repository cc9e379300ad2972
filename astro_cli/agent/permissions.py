"""Who may run which tool.

Tools that change things (file_write, file_edit, run_bash) need approval. In the REPL the user is
asked (yes / no / always for this session); in `astro run` they are refused unless `--allow`,
`--yes` or config `permissions.allow` says otherwise. `permissions.deny` always wins. A skill
may pre-approve its `allowed-tools` for the rest of a turn (skills/approval.py says when).

Entries of allow and deny (config and `--allow`) are tool names or fnmatch patterns: `mcp__ads__*` is every
tool of the MCP server `ads`, and so is `mcp__ads` (Claude Code's spelling).

A call whose arguments name astro's own state (`.astro/`, ASTRO_HOME, `astro.db`, `.mcp.json`)
is never pre-approved: the REPL asks for that call, `astro run` refuses it, whatever was allowed.
The file tools cannot write there at all; this guards what a shell command could reach.
A call that would widen where data may go (Tool.widens: a TAP URL not yet allowed) is asked the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from astro_cli.tools.base import Tool

# An asker returns "yes", "no" or "always".
Asker = Callable[[Tool, dict[str, Any]], str]


_WILDCARDS = frozenset("*?[")


def matches(name: str, patterns: Iterable[str]) -> bool:
    """Is `name` one of `patterns`, or matched by one (fnmatch, case-sensitive; `mcp__server` = all its tools)?"""
    from fnmatch import fnmatchcase

    for pattern in patterns:
        if name == pattern:
            return True
        if _WILDCARDS & set(pattern) and fnmatchcase(name, pattern):
            return True
        if pattern.startswith("mcp__") and pattern.count("__") == 1 and name.startswith(pattern + "__"):
            return True
    return False


@dataclass
class Decision:
    allowed: bool
    reason: str = ""


@dataclass
class PermissionPolicy:
    allow: set[str] = field(default_factory=set)
    deny: set[str] = field(default_factory=set)
    yes_to_all: bool = False
    asker: Asker | None = None
    only: set[str] | None = None  # a subagent's allowed tools: anything else is refused
    session_allowed: set[str] = field(default_factory=set)
    turn_allowed: set[str] = field(default_factory=set)
    protected: re.Pattern[str] | None = None  # how arguments could name astro's own state

    def names_protected(self, arguments: dict[str, Any]) -> str | None:
        """The first spelling of astro's own state found in the arguments, if any."""
        if self.protected is None:
            return None
        found = self.protected.search(json.dumps(arguments, ensure_ascii=False, default=str))
        return found.group(0) if found else None

    def check(self, tool: Tool, arguments: dict[str, Any]) -> Decision:
        name = tool.name
        if self.denies(name):
            return Decision(False, f"{name} is denied by config 'permissions.deny'.")
        if self.only is not None and name not in self.only:
            return Decision(False, f"{name} is not among the tools this agent may use ({', '.join(sorted(self.only))}).")
        if not tool.needs_permission_for(arguments):
            return Decision(True)
        marker = self.names_protected(arguments)
        if marker is not None:
            if self.asker is None:
                return Decision(
                    False,
                    f"{name} names astro's own state ('{marker}'), which is never pre-approved; "
                    "only a researcher at the REPL can approve such a call.",
                )
            answer = self.asker(tool, arguments)
            return Decision(True) if answer in ("yes", "always") else Decision(False, f"The user declined to run {name}.")
        widening = tool.widening(arguments)
        if widening is not None:  # where data may go: only the researcher's own answer widens it
            if self.asker is None:
                return Decision(False, f"{name} {widening}; that is never pre-approved (not by --yes or "
                                "permissions.allow): only the researcher can allow it, at the REPL's question or "
                                "with astro's own command for it.")
            answer = self.asker(tool, arguments)
            return Decision(True) if answer in ("yes", "always") else Decision(False, f"The user declined to run {name}.")
        if self.allows(name):
            return Decision(True)
        if self.asker is None:
            return Decision(
                False,
                f"{name} needs permission and none was given; the user can allow it with "
                f"--allow {name}, --yes, or config 'permissions.allow'.",
            )
        answer = self.asker(tool, arguments)
        if answer == "always":
            self.session_allowed.add(name)
            return Decision(True)
        if answer == "yes":
            return Decision(True)
        return Decision(False, f"The user declined to run {name}.")

    def denies(self, name: str) -> bool:
        return matches(name, self.deny)

    def allows(self, name: str) -> bool:
        """Pre-approved: --yes, allow (config or --allow), 'always' this session, a skill this turn."""
        return (self.yes_to_all or name in self.session_allowed or name in self.turn_allowed
                or matches(name, self.allow))

    def pre_approve_for_turn(self, names: list[str]) -> None:
        self.turn_allowed.update(names)

    def end_turn(self) -> None:
        self.turn_allowed.clear()
