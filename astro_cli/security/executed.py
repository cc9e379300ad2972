"""Files that hooks and MCP servers execute: protected like astro's own state.

A hook `bash scripts/post.sh` runs whatever `scripts/post.sh` holds when it fires. If the model
could rewrite that file (with `--allow file_write`, or a shell command), it would widen its own
powers through a command the researcher trusted. So every path a hook command or an MCP server's
command line names inside the workspace (whether the file exists yet or not) is treated as
astro's state: file tools refuse to write it, a shell command that names it is never
pre-approved, and the sandbox mounts it read-only. Hooks and servers are read from every layer,
trusted or not (a withheld project hook must not be primed for the day the folder is trusted).
Only the named files are protected, not what they source or import; docs/security.md says so.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.config import Settings
    from astro_cli.workspace import Workspace

PROJECT_DIR_VARIABLES = ("$ASTRO_PROJECT_DIR", "${ASTRO_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}")


def hook_commands(hooks: Any) -> list[str]:
    """Every `command` string in a `hooks:` setting, whatever else is wrong with it."""
    commands: list[str] = []
    if not isinstance(hooks, Mapping):
        return commands
    for groups in hooks.values():
        for group in groups if isinstance(groups, list) else []:
            entries = group.get("hooks") if isinstance(group, Mapping) else None
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, Mapping) and isinstance(entry.get("command"), str):
                    commands.append(entry["command"])
    return commands


def server_command_lines(servers: Any) -> list[list[str]]:
    """[command, *args] of every stdio MCP server in a `mcpServers` / `mcp.servers` mapping."""
    lines: list[list[str]] = []
    if not isinstance(servers, Mapping):
        return lines
    for spec in servers.values():
        if isinstance(spec, Mapping) and isinstance(spec.get("command"), str):
            raw_args = spec.get("args")
            args: list[Any] = raw_args if isinstance(raw_args, list) else []
            lines.append([spec["command"], *(str(a) for a in args)])
    return lines


def _words(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # an unclosed quote: the shell would refuse it too; judge the plain words
        return command.split()


def named_files(words: Iterable[str], root: Path) -> set[Path]:
    """The paths inside `root` that these command words name (a word with a `/`, or an existing file)."""
    found: set[Path] = set()
    for word in words:
        for variable in PROJECT_DIR_VARIABLES:
            if word.startswith(variable):
                word = str(root) + word[len(variable):]
        if not word or word.startswith("-") or "$" in word:
            continue
        candidate = Path(word).expanduser()
        candidate = candidate if candidate.is_absolute() else root / candidate
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError):
            continue
        if not resolved.is_relative_to(root) or resolved == root:
            continue
        if "/" in word or resolved.is_file():
            found.add(resolved)
    return found


def executed_files(workspace: Workspace, settings: Settings) -> list[Path]:
    """Workspace files that a configured hook or MCP server runs (or would run once trusted)."""
    from astro_cli.config import ConfigError, read_flat
    from astro_cli.security.trust import MCP_FILE

    root = workspace.root.resolve()
    try:
        project = read_flat(workspace.config_path)
    except ConfigError:
        project = {}
    lines = [_words(command) for command in
             hook_commands(settings.typed["hooks"]) + hook_commands(project.get("hooks"))]
    lines += server_command_lines(settings.typed["mcp.servers"]) + server_command_lines(project.get("mcp.servers"))
    try:
        data = json.loads((root / MCP_FILE).read_text(encoding="utf-8"))
        lines += server_command_lines(data.get("mcpServers") if isinstance(data, dict) else None)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        pass
    files: set[Path] = set()
    for words in lines:
        # `bash -c "python tools/x.py"`: the quoted command's own words name files too.
        inner = [part for word in words if any(c.isspace() for c in word) for part in _words(word)]
        files |= named_files([*words, *inner], root)
    return sorted(files)
