"""Files that hooks and MCP servers execute: protected like astro's own state.

A hook `bash scripts/post.sh` runs whatever `scripts/post.sh` holds when it fires. If the model
could rewrite that file (with `--allow file_write`, or a shell command), it would widen its own
powers through a command the researcher trusted. So every workspace file a hook command or an MCP
server's command line runs or reads as code (security/command_files.py: scripts after `cd DIR &&`,
`$PWD` and `${ASTRO_PROJECT_DIR:-.}` paths, sourced files, `python -m pkg` packages, makefiles),
whether it exists yet or not, is treated as astro's state: file tools refuse to write it, a shell
command that names it is never pre-approved, and the sandbox mounts it read-only. Hooks and servers
are read from every layer, trusted or not (a withheld project hook must not be primed for the day
the folder is trusted). Files that tools outside astro run on their own (git's `.git/hooks/` and
`.git/config`, direnv's `.envrc`) are protected the same way. Trust fingerprints the content of
the same files (trust.py), so a changed file asks again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.config import Settings
    from astro_cli.workspace import Workspace

from astro_cli.security.command_files import CommandFiles, argv_files, shell_files

# Run without astro: git runs .git/hooks/* and a core.fsmonitor or core.hooksPath in .git/config,
# direnv runs .envrc on entering the folder.
RUN_BY_OTHERS = (".git/hooks", ".git/config", ".envrc")
MAX_FOLDER_FILES = 2000  # a package folder: past this many files, only their number is fingerprinted


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


def server_command_lines(servers: Any, root: Path) -> list[tuple[list[str], Path]]:
    """([command, *args], folder it runs in) of every stdio MCP server in a `mcpServers` / `mcp.servers` mapping."""
    lines: list[tuple[list[str], Path]] = []
    if not isinstance(servers, Mapping):
        return lines
    for spec in servers.values():
        if isinstance(spec, Mapping) and isinstance(spec.get("command"), str):
            raw_args = spec.get("args")
            args: list[Any] = raw_args if isinstance(raw_args, list) else []
            cwd = spec.get("cwd")
            folder = root / Path(cwd).expanduser() if isinstance(cwd, str) else root
            lines.append(([spec["command"], *(str(a) for a in args)], folder))
    return lines


def setting_files(key: str, value: Any, root: Path) -> CommandFiles:
    """What the hooks or MCP servers of one setting run from the workspace (empty for other settings)."""
    found = CommandFiles()
    parts: list[CommandFiles] = []
    if key == "hooks":
        parts = [shell_files(command, root) for command in hook_commands(value)]
    elif key in ("mcp.servers", "mcpServers"):
        parts = [argv_files(argv, root, cwd) for argv, cwd in server_command_lines(value, root)]
    elif key == "mcp.server":  # one server's spec (a `.mcp.json` entry)
        parts = [argv_files(argv, root, cwd) for argv, cwd in server_command_lines({"_": value}, root)]
    for part in parts:
        found.files |= part.files
        found.unknown += [word for word in part.unknown if word not in found.unknown]
    return found


def executed_files(workspace: Workspace, settings: Settings) -> list[Path]:
    """Workspace files that a configured hook or MCP server runs (or would run once trusted)."""
    from astro_cli.config import ConfigError, read_flat
    from astro_cli.workspace import MCP_FILE

    root = workspace.root.resolve()
    try:
        project = read_flat(workspace.config_path)
    except ConfigError:
        project = {}
    settings_found = [setting_files("hooks", settings.typed["hooks"], root),
                      setting_files("hooks", project.get("hooks"), root),
                      setting_files("mcp.servers", settings.typed["mcp.servers"], root),
                      setting_files("mcp.servers", project.get("mcp.servers"), root)]
    try:
        data = json.loads((root / MCP_FILE).read_text(encoding="utf-8"))
        settings_found.append(setting_files("mcpServers", data.get("mcpServers") if isinstance(data, dict) else None,
                                            root))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        pass
    settings_found += run_by_others(root)
    files = {(root / name) for name in RUN_BY_OTHERS}
    for found in settings_found:
        files |= found.files
    return sorted(files)


def run_by_others(root: Path) -> list[CommandFiles]:
    """What git's hooks and direnv's `.envrc` run in turn, read like a hook (`. ./lib.sh` in a hook)."""
    hooks = root / ".git" / "hooks"
    try:
        scripts = sorted(p for p in hooks.iterdir() if p.is_file() and p.suffix != ".sample") if hooks.is_dir() else []
    except OSError:
        scripts = []
    found = [argv_files([str(script)], root) for script in scripts]
    if (root / ".envrc").is_file():
        found.append(argv_files(["bash", ".envrc"], root))
    return found


def file_contents(files: set[Path], root: Path) -> dict[str, str]:
    """A digest of each file (every file of a folder), "missing" for a path not there yet: what trust
    fingerprints, so a file that changes or appears asks again."""
    import hashlib

    contents: dict[str, str] = {}
    for path in sorted(files):
        members = sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts) \
            if path.is_dir() else [path]
        if not members:
            contents[path.relative_to(root).as_posix()] = "missing"
        for member in members[:MAX_FOLDER_FILES]:
            try:
                digest = hashlib.sha256(member.read_bytes()).hexdigest()[:32]
            except FileNotFoundError:
                digest = "missing"
            except OSError as exc:
                digest = f"unreadable ({exc.strerror})"
            contents[member.relative_to(root).as_posix()] = digest
        if len(members) > MAX_FOLDER_FILES:
            contents[path.relative_to(root).as_posix()] = f"{len(members)} files"
    return contents


def describe_files(contents: Mapping[str, str], unknown: list[str]) -> str:
    """The lines the trust question adds under a hook or server: what it runs from the workspace."""
    lines = []
    present = [name for name, digest in contents.items() if digest != "missing"]
    absent = len(contents) - len(present)
    if present:
        lines.append(f"  runs these workspace files (a change asks again): {', '.join(present)}")
    if absent:
        missing = [name for name, digest in contents.items() if digest == "missing"]
        named = f": {', '.join(missing)}" if len(missing) <= 4 else ""
        lines.append(f"  and {absent} path(s) it would run that are not there yet{named} (created, they ask again)")
    if unknown:
        lines.append(f"  cannot tell which workspace files it runs from: {', '.join(unknown)} "
                     "(only the command itself is fingerprinted)")
    return "\n".join(lines)
