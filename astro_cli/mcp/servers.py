"""Which MCP servers a session may start, read from Claude Code's configuration shapes.

User level, `mcp.servers` in ASTRO_HOME/config.yaml (or a trusted project's .astro/config.yaml):

    mcp: {servers: {NAME: {command, args, env, cwd} | {type: http, url, headers}}}

Project level, `.mcp.json` at the workspace root (`{"mcpServers": {NAME: {...}}}`, the file Claude
Code reads): a server there is a command from elsewhere, so it starts only when the researcher
trusts it (each server has its own fingerprint: one that changes is untrusted again). A trusted
project server replaces a user server of the same name. `${VAR}` and `${VAR:-default}` in `env`,
`headers` and `url` expand from astro's environment, so tokens stay out of files.

Nothing here imports the MCP SDK or starts anything: reading the configuration is cheap.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.security.secrets import is_secret_name
from astro_cli.security.trust import MCP_PREFIX
from astro_cli.workspace import MCP_FILE

if TYPE_CHECKING:
    from astro_cli.app import AppContext

STDIO = "stdio"
HTTP = "http"
HTTP_TYPES = frozenset({"http", "streamable-http", "streamable_http", "streamableHttp"})
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass
class ServerSpec:
    """One configured server: how to reach it, where it was configured, and why it may not start."""

    name: str
    where: str
    transport: str = STDIO
    command: str = ""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    problem: str = ""  # the entry cannot be used (a bad value, a ${VAR} that is not set)
    skipped: str = ""  # the entry is fine but is not started (an untrusted folder, replaced by another)
    secrets: dict[str, str] = field(default_factory=dict)  # expanded values that must never be shown

    @property
    def startable(self) -> bool:
        return not self.problem and not self.skipped

    @property
    def target(self) -> str:
        """What it runs or where it connects, for listings (arguments as configured)."""
        if self.transport == HTTP:
            return self.url
        return " ".join([self.command, *self.args]).strip()


@dataclass
class McpConfig:
    servers: list[ServerSpec] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def startable(self) -> list[ServerSpec]:
        return [spec for spec in self.servers if spec.startable]


class _Unset(Exception):
    """A `${VAR}` without a default names a variable astro's environment does not have."""


def is_configured(app: AppContext) -> bool:
    """Is any MCP server configured here? One settings look-up and one stat: the cost when none is."""
    return bool(app.settings.typed["mcp.servers"]) or (app.workspace.root / MCP_FILE).is_file()


def load_config(app: AppContext, env: Mapping[str, str] | None = None) -> McpConfig:
    """Every configured server, user level first, then the project's `.mcp.json`."""
    env = os.environ if env is None else env
    config = McpConfig()
    allowed = set(app.settings.typed["mcp.project_secrets"] or [])  # user config only (config_schema.USER_ONLY)
    project_config = str(app.workspace.config_path)
    for name, raw in (app.settings.typed["mcp.servers"] or {}).items():
        where = app.settings.source(f"mcp.servers.{name}")
        guard = allowed if where == project_config else None
        config.servers.append(parse_server(str(name), raw, where, env, app.workspace.root, guard))
    project, problem = read_project_servers(app.workspace.root)
    if problem:
        config.problems.append(problem)
    for name, raw in project.items():
        spec = parse_server(name, raw, MCP_FILE, env, app.workspace.root, allowed)
        if not app.trust.mcp_server_trusted(name):
            changed = MCP_PREFIX + name in app.trust.trusted_digests
            why = "it changed since you trusted this folder" if changed else "this folder is not trusted"
            spec = replace(spec, skipped=f"{why}; `astro trust` starts it")
        elif spec.startable:
            for other in config.servers:
                if other.name == name and other.startable:
                    other.skipped = f"replaced by the server of the same name in {MCP_FILE}"
        config.servers.append(spec)
    return config


def read_project_servers(root: Path) -> tuple[dict[str, Any], str]:
    """The `mcpServers` of `<root>/.mcp.json`, and a sentence when the file cannot be used."""
    path = root / MCP_FILE
    if not path.is_file():
        return {}, ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        return {}, f"{MCP_FILE} is not valid JSON (line {exc.lineno}: {exc.msg}); its servers are not started."
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"{MCP_FILE} cannot be read ({exc}); its servers are not started."
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if servers is None:
        return {}, f"{MCP_FILE} has no \"mcpServers\" mapping; it is ignored."
    if not isinstance(servers, dict):
        return {}, f"{MCP_FILE}: \"mcpServers\" should be a mapping of server names; it is ignored."
    return {str(name): spec for name, spec in servers.items()}, ""


def parse_server(name: str, raw: Any, where: str, env: Mapping[str, str], root: Path,
                 project_secrets: Collection[str] | None = None) -> ServerSpec:
    """One entry in Claude Code's shape; a bad entry becomes a spec with a `problem` sentence.

    `project_secrets` is given for a server the project defined: a secret variable in its URL or a
    header is refused unless named there (or `*`), from the user's own config.
    """
    spec = ServerSpec(name=name, where=where)
    if not name.strip():
        spec.problem = "a server needs a name"
        return spec
    if not isinstance(raw, dict):
        spec.problem = "should be a mapping with a command (stdio) or a url (type: http)"
        return spec
    kind = str(raw.get("type") or (HTTP if "url" in raw and "command" not in raw else STDIO))
    try:
        if kind == STDIO:
            _parse_stdio(spec, raw, env, root)
        elif kind in HTTP_TYPES:
            _parse_http(spec, raw, env, project_secrets)
        elif kind == "sse":
            spec.problem = ("type 'sse' (the deprecated HTTP+SSE transport) is not supported; "
                            "use the server's streamable HTTP endpoint with type: http")
        else:
            spec.problem = f"unknown type '{kind}' (stdio or http)"
    except _Unset as exc:
        spec.problem = str(exc)
    except ValueError as exc:
        spec.problem = str(exc)
    return spec


def _parse_stdio(spec: ServerSpec, raw: dict[str, Any], env: Mapping[str, str], root: Path) -> None:
    command = raw.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ValueError("needs a command to run (or type: http and a url)")
    args = raw.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
        raise ValueError("'args' should be a list of strings")
    spec.transport, spec.command, spec.args = STDIO, command, [str(a) for a in args]
    spec.env = _expand_mapping(raw.get("env"), "env", env, spec.secrets, always_secret=False)
    cwd = raw.get("cwd")
    if cwd is not None:
        if not isinstance(cwd, str):
            raise ValueError("'cwd' should be a folder path")
        spec.cwd = str((root / Path(cwd).expanduser()).resolve())


def _parse_http(spec: ServerSpec, raw: dict[str, Any], env: Mapping[str, str],
                project_secrets: Collection[str] | None) -> None:
    url = raw.get("url")
    if not isinstance(url, str) or not url.strip():
        raise ValueError("needs a url (type: http)")
    if project_secrets is not None:
        _refuse_project_secrets(url, raw.get("headers"), project_secrets)
    spec.transport = HTTP
    spec.url = expand(url, env, "url", spec.secrets, secret=False)
    if not spec.url.startswith(("http://", "https://")):
        raise ValueError(f"url '{url}' should start with http:// or https://")
    spec.headers = _expand_mapping(raw.get("headers"), "headers", env, spec.secrets, always_secret=True)
    for header, value in spec.headers.items():
        if header.lower() in CREDENTIAL_HEADERS or is_secret_name(header):
            spec.secrets[f"{spec.name} header {header}"] = value.split(" ", 1)[-1]  # the token after "Bearer"


def _refuse_project_secrets(url: str, headers: Any, allowed: Collection[str]) -> None:
    """A project-defined server may not carry the user's secrets off the machine unless the user said so."""
    texts = [("url", url)]
    if isinstance(headers, dict):
        texts += [(f"header {key}", str(value)) for key, value in headers.items()]
    for where, text in texts:
        for match in _VARIABLE.finditer(text):
            variable = match.group(1)
            if is_secret_name(variable) and variable not in allowed and "*" not in allowed:
                raise ValueError(
                    f"its {where} would send ${{{variable}}}, a secret, to a server this project defines; astro "
                    f"refuses unless your user config lists it (mcp: {{project_secrets: [{variable}]}})")


def _expand_mapping(value: Any, what: str, env: Mapping[str, str], secrets: dict[str, str],
                    always_secret: bool) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, (str, int, float)) for v in value.values()):
        raise ValueError(f"'{what}' should be a mapping of names to strings")
    return {
        str(key): expand(str(item), env, f"{what}.{key}", secrets, secret=always_secret or is_secret_name(str(key)))
        for key, item in value.items()
    }


def expand(text: str, env: Mapping[str, str], where: str, secrets: dict[str, str], secret: bool) -> str:
    """`${VAR}` and `${VAR:-default}` from `env`; a value that is (or is named like) a secret is remembered."""

    def substitute(match: re.Match[str]) -> str:
        variable, default = match.group(1), match.group(2)
        value = env.get(variable)
        if value is None or (value == "" and default is not None):
            if default is None:
                raise _Unset(f"{where} needs ${{{variable}}}, which is not set in astro's environment")
            value = default
        if secret or is_secret_name(variable):
            secrets[variable] = value
        return value

    return _VARIABLE.sub(substitute, text)
