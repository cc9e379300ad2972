"""`astro mcp`: list the MCP servers with their status and tools, add one to the user config, remove one.

`list` is the one command besides a model session that starts servers: it connects to each startable
server to show whether it works and what tools it offers, then stops them. A project server of an
untrusted folder is listed as skipped and never started.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional

import typer

from astro_cli.bootstrap import UserError, build_app, print_warnings, user_errors
from astro_cli.commands.defaults import command_group

app = command_group("list")  # `astro mcp` alone: `astro mcp list`
NAME = re.compile(r"^[A-Za-z0-9_-]+$")


@app.command("list")
def list_servers(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the MCP servers: status (each is started to check it), where configured, tools and their cost."""
    from rich.console import Console
    from rich.text import Text

    from astro_cli.mcp.manager import mcp_manager
    from astro_cli.mcp.report import NO_SERVERS, render
    from astro_cli.mcp.servers import is_configured
    from astro_cli.mcp.state import FAILED
    from astro_cli.security.visible import visible, visible_json

    with user_errors():
        ctx = build_app()
        try:
            print_warnings(ctx)
            console = Console(highlight=False, soft_wrap=True)
            if not is_configured(ctx):
                if as_json:
                    typer.echo("[]")
                else:
                    console.print(Text(NO_SERVERS))
                return
            manager = mcp_manager(ctx)
            manager.start()
            manager.wait_started()
            if as_json:
                typer.echo(visible_json([_server_json(state) for state in manager.servers], indent=2))
            else:
                render(manager, console)
                for notice in manager.take_notices():
                    console.print(Text(visible(notice), style="yellow"))
        finally:
            ctx.close()
        if any(state.status == FAILED for state in manager.servers):  # as `git remote -v` would not: scripts check
            raise typer.Exit(1)


def _server_json(state: Any) -> dict[str, Any]:
    from astro_cli.mcp.tools import tool_name

    spec = state.spec
    return {
        "name": state.name, "status": state.status, "reason": state.reason, "configured_in": spec.where,
        "transport": spec.transport, "runs": spec.target, "server": state.server_version,
        "startup_seconds": state.startup_seconds,
        "tools": [{"name": tool_name(state.name, t.name), "server_name": t.name, "description": t.description}
                  for t in state.tools],
    }


@app.command(
    "add",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def add_server(
    name: str = typer.Argument(..., help="The server's name (its tools become mcp__NAME__TOOL)."),
    target: Optional[list[str]] = typer.Argument(None, help="COMMAND ARGS... (after --), or the URL with --transport http."),
    transport: str = typer.Option("stdio", "--transport", "-t", help="stdio (a command) or http (a URL)."),
    env: Optional[list[str]] = typer.Option(None, "--env", "-e", help="KEY=VALUE for a stdio server (repeatable); "
                                            "'${VAR}' is read from astro's environment at start."),
    header: Optional[list[str]] = typer.Option(None, "--header", "-H", help="'Name: value' for an http server "
                                               "(repeatable); 'Bearer ${TOKEN}' keeps the token out of the file."),
) -> None:
    """Add a server to the user config (ASTRO_HOME/config.yaml): `astro mcp add ads -- uvx ads-mcp`."""
    from astro_cli.config import read_yaml_file
    from astro_cli.mcp.servers import parse_server

    with user_errors():
        ctx = build_app()
        try:
            if not NAME.match(name):
                raise UserError(f"'{name}' cannot be a server name: use letters, digits, '-' and '_'.")
            entry = _entry(transport, target or [], env or [], header or [])
            spec = parse_server(name, entry, "", {}, ctx.workspace.root)
            if spec.problem and "not set in astro's environment" not in spec.problem:
                raise UserError(f"MCP server '{name}' {spec.problem}.")
            if spec.transport == "stdio":
                from astro_cli.commands.hooks_cmd import startup_problem

                problem = startup_problem(spec.command, ctx.workspace.root)
                if problem:
                    raise UserError(f"MCP server '{name}' cannot start: {problem}; install it or give its full "
                                    "path. Nothing was added.")
            path = ctx.home.config_path
            data = read_yaml_file(path) if path.is_file() else {}
            servers = _servers_of(data, path)
            if name in servers:
                raise UserError(f"{path} already has an MCP server '{name}'; `astro mcp remove {name}` removes it.")
            servers[name] = entry
            _write_yaml(path, data)
            typer.echo(f"Added MCP server '{name}' to {path}: {spec.target}")
            typer.echo("It starts with the next session; `astro mcp list` checks it now. Its tools ask permission "
                       f"before they run (`--allow 'mcp__{name}__*'` pre-approves them).")
        finally:
            ctx.close()


@app.command("remove")
def remove_server(name: str = typer.Argument(..., help="The server's name.")) -> None:
    """Remove a server from the user config."""
    from astro_cli.config import read_yaml_file
    from astro_cli.mcp.servers import read_project_servers

    with user_errors():
        ctx = build_app()
        try:
            path = ctx.home.config_path
            data = read_yaml_file(path) if path.is_file() else {}
            servers = _servers_of(data, path)
            if name not in servers:
                project, _ = read_project_servers(ctx.workspace.root)
                where = " (it is in this project's .mcp.json: edit that file)" if name in project else ""
                raise UserError(f"{path} has no MCP server '{name}'{where}.")
            del servers[name]
            _write_yaml(path, data)
            typer.echo(f"Removed MCP server '{name}' from {path}.")
        finally:
            ctx.close()


def _entry(transport: str, target: list[str], env: list[str], header: list[str]) -> dict[str, Any]:
    if transport in ("http", "streamable-http"):
        if len(target) != 1:
            raise UserError("An http server needs exactly one URL: astro mcp add NAME URL --transport http")
        if env:
            raise UserError("--env is for stdio servers; an http server takes --header.")
        entry: dict[str, Any] = {"type": "http", "url": target[0]}
        if header:
            entry["headers"] = dict(_pair(item, ":", "--header 'Name: value'") for item in header)
        return entry
    if transport != "stdio":
        raise UserError(f"Unknown transport '{transport}': stdio or http.")
    if not target:
        raise UserError("Give the command after --: astro mcp add NAME -- COMMAND ARGS...")
    if header:
        raise UserError("--header is for http servers; a stdio server takes --env.")
    entry = {"command": target[0], "args": target[1:]}
    if env:
        entry["env"] = dict(_pair(item, "=", "--env KEY=VALUE") for item in env)
    return entry


def _pair(text: str, separator: str, usage: str) -> tuple[str, str]:
    key, found, value = text.partition(separator)
    if not found or not key.strip():
        raise UserError(f"'{text}' is not of the form {usage}.")
    return key.strip(), value.strip()


def _servers_of(data: dict[str, Any], path: Path) -> dict[str, Any]:
    mcp = data.setdefault("mcp", {})
    if not isinstance(mcp, dict):
        raise UserError(f"{path}: 'mcp' should be a mapping; fix it by hand first.")
    servers = mcp.setdefault("servers", {})
    if not isinstance(servers, dict):
        raise UserError(f"{path}: 'mcp.servers' should be a mapping; fix it by hand first.")
    return servers


def _write_yaml(path: Path, data: dict[str, Any]) -> None:
    """Write the whole file at once (a temporary file renamed over it): a crash leaves the old one."""
    import yaml

    from astro_cli.security.writer import write_file

    write_file(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
