"""What the trust question shows for each risky setting: exactly what would run or be sent.

Nothing is shortened: a hook's whole command (a 525-character line hides `; curl … | sh` in its
last characters), an MCP server's whole command line, its `env`, `cwd`, URL and every header,
with `${VAR}` references shown by name, never expanded. The fingerprint covers the same whole
value, so what the researcher reads is what is trusted. A secret variable that a project server
would put in its URL or a header is flagged, since astro refuses to send it unless the user config
allows it (`mcp.project_secrets`). The text is escaped for the terminal by the UI that prints it.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from typing import Any

from astro_cli.security.secrets import is_secret_name

VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def describe_setting(key: str, value: Any) -> str:
    """One risky config setting, whole; several lines where it has several parts."""
    if key == "hooks" and isinstance(value, dict):
        return describe_hooks(value) or _text(value)
    if key == "library.database_url":
        shown = re.sub(r"(://[^:/@\s]*:)[^@\s]+@", r"\1***@", str(value))  # never a password on screen
        return f"{shown} (the paper library's text, your notes and your searches would go there)"
    if key == "library.files_path":
        return f"{value} (downloaded papers would be written there)"
    if key.endswith("_url") or key.endswith("api_base"):
        return f"{value} (requests, and the keys sent with them, would go there)"
    if key == "mcp.servers" and isinstance(value, dict):
        return "\n".join(describe_server(str(name), spec) for name, spec in value.items())
    if key in ("identity", "persona", "principles", "language"):
        return f"replaces the {key} of the system prompt with:\n{_text(value)}"
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return _text(value)


def describe_hooks(hooks: dict[str, Any], annotate: Callable[[str], str] | None = None) -> str:
    """Each hook's event, its whole command and, from `annotate`, lines about what the command runs."""
    lines = []
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            if not isinstance(group, dict):
                continue
            matcher = group.get("matcher")
            when = f"{event} (tools matching {matcher!r})" if matcher not in (None, "", "*") else str(event)
            for entry in group.get("hooks") or []:
                if not isinstance(entry, dict) or not entry.get("command"):
                    continue
                extras = []
                if entry.get("timeout") is not None:
                    extras.append(f"timeout {entry['timeout']} s")
                if entry.get("pass_env"):
                    names = entry["pass_env"] if isinstance(entry["pass_env"], list) else [entry["pass_env"]]
                    extras.append(f"given the secrets {', '.join(map(str, names))}")
                extra = f" ({'; '.join(extras)})" if extras else ""
                lines.append(f"{when} runs{extra}:\n  {entry['command']}")
                notes = annotate(str(entry["command"])) if annotate is not None else ""
                if notes:
                    lines.append(notes)
    return "\n".join(lines)


def describe_server(name: str, spec: Any) -> str:
    """An MCP server: the command line with its env and cwd, or the URL with every header, as written."""
    if not isinstance(spec, dict):
        return f"MCP server {name}: {_text(spec)}"
    lines = []
    if spec.get("url") is not None or str(spec.get("type", "")).endswith("http"):
        lines.append(f"MCP server {name} connects to {spec.get('url')}")
        headers = _mapping(spec.get("headers"))
        for header, value in headers.items():
            lines.append(f"  header {header}: {value}")
        secrets = sorted({v for text in [_text(spec.get("url", "")), *map(_text, headers.values())]
                          for v in VARIABLE.findall(text) if is_secret_name(v)})
        if secrets:
            lines.append(f"  would send your secret(s) {', '.join(secrets)}: refused unless your user config "
                         "lists them in 'mcp.project_secrets'")
    else:
        raw_args = spec.get("args")
        args: list[Any] = raw_args if isinstance(raw_args, list) else []
        command = [str(spec.get("command", "")), *map(str, args)]
        lines.append(f"MCP server {name} runs:\n  {shlex.join(command)}")
    env = _mapping(spec.get("env"))
    for variable, value in env.items():
        lines.append(f"  env {variable}={value}")
    if spec.get("cwd") is not None:
        lines.append(f"  in folder {spec['cwd']}")
    return "\n".join(lines)


def _mapping(value: Any) -> dict[str, Any]:
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else {}
