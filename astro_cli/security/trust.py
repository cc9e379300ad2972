"""Workspace trust: a folder's risky project settings apply only once the user trusts them.

Settings that can run code, widen access or redirect traffic are risky when they come from the
project (a cloned repository, an arXiv tarball, a shared folder): `hooks`, `permissions.allow`,
`allowed_paths`, `api_base`, the text of prompt sections (`identity`, `persona`, `principles`,
`language`) and every endpoint URL (`*_url`, `*api_base`), MCP servers in
`.mcp.json`, and the `allowed-tools` of project skills. Trust is remembered in
`ASTRO_HOME/trusted-folders.json`, keyed by the folder's real path, one fingerprint per setting:
a setting that appears or changes later (a `git pull`, a command the model ran) is not trusted
until the user says so again. Agent definitions only ever restrict tools, so they need no trust.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from astro_cli.security.trust_describe import describe_hooks, describe_server, describe_setting
from astro_cli.workspace import MCP_FILE

TRUST_FILE = "trusted-folders.json"
# library.files_path: where downloads are written, outside the workspace if it says so.
# identity, persona, principles and language are placed in the system prompt: a project's own text
# there could drop the rule that text from papers is data, or open astro's prompt tags.
RISKY_KEYS = frozenset({"hooks", "permissions.allow", "allowed_paths", "api_base", "library.files_path",
                        "identity", "persona", "principles", "language",
                        # what the model is told when the history is compacted: prompt text, as identity is
                        "compaction.summary_prompt", "compaction.identity_prompt",
                        # where ADQL (and the researcher's targets) go
                        "catalog.services", "catalog.allowed_urls"})
SKILL_PREFIX = "skill:"
MCP_PREFIX = "mcp:"


def is_risky_key(name: str) -> bool:
    """Can this setting run code, widen access or send traffic (and keys) elsewhere?

    User-only settings are not: a project never sets them, trusted or not (config_schema.USER_ONLY)."""
    from astro_cli.config_schema import USER_ONLY

    if name in USER_ONLY:
        return False
    top = name.split(".")[0]
    return (
        name in RISKY_KEYS
        or top in ("hooks", "mcp", "plugins", "prompt")  # prompt.*: switches that drop prompt sections
        or name.endswith("_url")
        or name.endswith("api_base")
        or name.startswith("permissions.allow")
    )


def fingerprint(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class RiskyItem:
    """One risky project setting: its key, where it is, what it does (whole, maybe several lines), and
    its fingerprint (of the same whole value)."""

    key: str
    where: str
    detail: str
    digest: str


@dataclass
class TrustState:
    """What the project asks for and which of it the user trusts."""

    folder: Path
    items: list[RiskyItem] = field(default_factory=list)
    trusted_digests: dict[str, str] = field(default_factory=dict)
    declined_digests: dict[str, str] = field(default_factory=dict)
    trusted_folder: bool = False  # the user trusted this folder once (astro init, astro trust, a yes)

    def is_trusted(self, key: str) -> bool:
        item = next((i for i in self.items if i.key == key), None)
        return item is not None and self.trusted_digests.get(key) == item.digest

    @property
    def withheld(self) -> list[RiskyItem]:
        return [item for item in self.items if self.trusted_digests.get(item.key) != item.digest]

    @property
    def withheld_keys(self) -> set[str]:
        return {item.key for item in self.withheld}

    @property
    def unanswered(self) -> list[RiskyItem]:
        """Withheld items the user has not yet declined as they are now: the REPL asks about these."""
        return [item for item in self.withheld if self.declined_digests.get(item.key) != item.digest]

    @property
    def changed_since_trust(self) -> bool:
        """Settings withheld although the folder was trusted: they are new or changed since."""
        return self.trusted_folder and bool(self.withheld)

    def skill_tools_trusted(self, skill_path: Path) -> bool:
        return self.is_trusted(skill_key(self.folder, skill_path))

    def mcp_server_trusted(self, name: str) -> bool:
        return self.is_trusted(MCP_PREFIX + name)


def skill_key(folder: Path, skill_path: Path) -> str:
    try:
        rel = skill_path.resolve().relative_to(folder).as_posix()
    except ValueError:
        rel = str(skill_path)
    return SKILL_PREFIX + rel


def config_items(project_flat: Mapping[str, Any], where: str, root: Path | None = None) -> list[RiskyItem]:
    """`root`: the workspace, whose files the project's hooks and MCP servers run are fingerprinted too."""
    return [
        with_files(RiskyItem(key, where, describe_setting(key, value), fingerprint(value)), key, value, root)
        for key, value in sorted(project_flat.items())
        if is_risky_key(key) and value not in (None, [], {}, "")
    ]


def with_files(item: RiskyItem, key: str, value: Any, root: Path | None) -> RiskyItem:
    """The item known by the content of what it runs: the workspace files its hooks or servers execute
    (security/executed.py) are shown and fingerprinted with it, so a changed file asks again."""
    from astro_cli.security.command_files import shell_files
    from astro_cli.security.executed import describe_files, file_contents, setting_files

    found = setting_files(key, value, root) if root is not None else None
    if root is None or found is None or not (found.files or found.unknown):
        return item
    contents = file_contents(found.files, root.resolve())
    digest = fingerprint({"setting": value, "files": contents, "unknown": found.unknown})
    if key == "hooks" and isinstance(value, dict):  # the files under each hook that runs them
        def annotate(command: str) -> str:
            one = shell_files(command, root)
            return describe_files(file_contents(one.files, root.resolve()), one.unknown)

        return RiskyItem(item.key, item.where, describe_hooks(value, annotate) or item.detail, digest)
    return RiskyItem(item.key, item.where, f"{item.detail}\n{describe_files(contents, found.unknown)}", digest)


def skill_items(folder: Path, skills: Iterable[tuple[Path, Sequence[str]]]) -> list[RiskyItem]:
    """Project skills whose `allowed-tools` would pre-approve tools (found by skills/approving.py)."""
    items: list[RiskyItem] = []
    for path, allowed in skills:
        tools = list(allowed)
        key = skill_key(folder, path)
        items.append(RiskyItem(key, key[len(SKILL_PREFIX):], f"allowed-tools {', '.join(tools)}", fingerprint(tools)))
    return items


def mcp_items(folder: Path) -> list[RiskyItem]:
    """Servers of a project `.mcp.json` (Claude Code's file): each one is a command from elsewhere."""
    path = folder / MCP_FILE
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        servers = data.get("mcpServers") if isinstance(data, dict) else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return [RiskyItem(MCP_PREFIX + "*", MCP_FILE, "cannot be read", "unreadable")]
    if not isinstance(servers, dict):
        return []
    items = []
    for name, spec in sorted(servers.items()):
        item = RiskyItem(MCP_PREFIX + str(name), MCP_FILE, describe_server(str(name), spec), fingerprint(spec))
        items.append(with_files(item, "mcp.server", spec, folder))
    return items


class TrustStore:
    """`ASTRO_HOME/trusted-folders.json`: per folder, the fingerprints the user trusted or declined."""

    def __init__(self, home: Path) -> None:
        self.path = home / TRUST_FILE

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return {}  # unreadable trust is no trust: everything risky stays withheld
        folders = data.get("folders") if isinstance(data, dict) else None
        return folders if isinstance(folders, dict) else {}

    def _write(self, folders: dict[str, Any]) -> None:
        from astro_cli.security.writer import write_file

        write_file(self.path, json.dumps({"folders": folders}, indent=2, sort_keys=True))

    def record(self, folder: Path) -> dict[str, Any] | None:
        entry = self._read().get(str(folder.resolve()))
        return entry if isinstance(entry, dict) else None

    def trust(self, folder: Path, items: Iterable[RiskyItem]) -> None:
        folders = self._read()
        folders[str(folder.resolve())] = {
            "trusted_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "trusted": {item.key: item.digest for item in items},
            "declined": {},
        }
        self._write(folders)

    def decline(self, folder: Path, items: Iterable[RiskyItem]) -> None:
        folders = self._read()
        key = str(folder.resolve())
        entry = dict(folders[key]) if isinstance(folders.get(key), dict) else {"trusted": {}}
        declined = dict(entry.get("declined") or {})
        declined.update({item.key: item.digest for item in items})
        entry["declined"] = declined
        entry.setdefault("trusted", {})
        folders[key] = entry
        self._write(folders)

    def revoke(self, folder: Path) -> bool:
        folders = self._read()
        removed = folders.pop(str(folder.resolve()), None) is not None
        if removed:
            self._write(folders)
        return removed

    def folders(self) -> dict[str, dict[str, Any]]:
        return {path: entry for path, entry in sorted(self._read().items()) if isinstance(entry, dict)}


def assess(folder: Path, store: TrustStore, items: list[RiskyItem]) -> TrustState:
    record = store.record(folder) or {}
    trusted, declined = record.get("trusted"), record.get("declined")
    return TrustState(folder.resolve(), items, dict(trusted) if isinstance(trusted, dict) else {},
                      dict(declined) if isinstance(declined, dict) else {}, trusted_folder="trusted_at" in record)


def assess_workspace(root: Path, home: Path, config_path: Path,
                     skills: Iterable[tuple[Path, Sequence[str]]]) -> TrustState:
    """Everything risky the project at `root` asks for, and how much of it the user trusts.

    `skills`: the project's SKILL.md files that name allowed-tools, with those tools
    (skills/approving.py finds them)."""
    from astro_cli.config import read_flat

    items = config_items(read_flat(config_path), str(config_path.relative_to(root)), root)
    items += skill_items(root.resolve(), skills)
    items += mcp_items(root)
    return assess(root, TrustStore(home), items)
