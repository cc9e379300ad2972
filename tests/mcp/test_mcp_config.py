"""MCP configuration and naming without starting a server: Claude Code's shapes, `${VAR}` expansion,
where each server was configured, tool names providers accept, and permission patterns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astro_cli.agent.extensions import loop_extensions
from astro_cli.agent.permissions import PermissionPolicy, matches
from astro_cli.bootstrap import build_app
from astro_cli.mcp.servers import load_config, parse_server
from astro_cli.mcp.state import RemoteTool
from astro_cli.mcp.tools import build_tools, input_schema, key_argument, tool_name
from astro_cli.slash import slash_commands
from astro_cli.tools.base import Tool
from tests.helpers import trust_workspace, write_config


@pytest.fixture
def app_at(tmp_path, monkeypatch):
    """build_app for the test workspace, with ASTRO_HOME beside it (built after the files are written)."""
    home = tmp_path / "astro-home"
    monkeypatch.setenv("ASTRO_HOME", str(home))
    for key in ("ASTRO_MCP_SERVERS", "ASTRO_WORKSPACE"):
        monkeypatch.delenv(key, raising=False)
    workspace = tmp_path / "project"
    workspace.mkdir()
    apps = []

    def build():
        app = build_app(workspace=workspace)
        apps.append(app)
        return app

    build.home, build.workspace = home, workspace
    yield build
    for app in apps:
        app.close()


def test_claude_code_shapes_parse_into_stdio_and_http_servers(tmp_path):
    env = {"ADS_TOKEN": "ads-secret-123456", "FIELD": ""}
    stdio = parse_server("ads", {"command": "uvx", "args": ["ads-mcp", 3], "env": {"ADS_API_TOKEN": "${ADS_TOKEN}",
                                 "FIELD": "${FIELD:-M31}"}}, "config.yaml", env, tmp_path)
    assert (stdio.transport, stdio.command, stdio.args) == ("stdio", "uvx", ["ads-mcp", "3"])
    assert stdio.env == {"ADS_API_TOKEN": "ads-secret-123456", "FIELD": "M31"}
    assert stdio.secrets == {"ADS_TOKEN": "ads-secret-123456"}
    http = parse_server("web", {"url": "https://${HOST:-mcp.example.org}/mcp",
                                "headers": {"Authorization": "Bearer ${ADS_TOKEN}", "Accept": "text/plain"}},
                        ".mcp.json", env, tmp_path)
    assert (http.transport, http.url) == ("http", "https://mcp.example.org/mcp")
    assert http.headers["Authorization"] == "Bearer ads-secret-123456" and http.startable
    assert "ads-secret-123456" in http.secrets.values()


@pytest.mark.parametrize(("raw", "problem"), [
    ("uvx ads-mcp", "should be a mapping with a command"),
    ({"args": ["x"]}, "needs a command to run"),
    ({"command": "x", "args": "--verbose"}, "'args' should be a list of strings"),
    ({"command": "x", "env": {"TOKEN": "${NOT_SET_HERE}"}}, "env.TOKEN needs ${NOT_SET_HERE}, which is not set"),
    ({"type": "http"}, "needs a url"),
    ({"type": "http", "url": "ftp://example.org"}, "should start with http:// or https://"),
    ({"type": "sse", "url": "https://example.org/sse"}, "type 'sse' (the deprecated HTTP+SSE transport)"),
    ({"type": "websocket", "url": "wss://x"}, "unknown type 'websocket'"),
])
def test_a_bad_entry_is_one_sentence_and_is_never_started(tmp_path, raw, problem):
    spec = parse_server("bad", raw, "config.yaml", {}, tmp_path)
    assert problem in spec.problem and not spec.startable


def test_servers_of_every_layer_are_merged_by_name_and_say_where_they_came_from(app_at):
    write_config(app_at.home / "config.yaml", {"mcp": {"servers": {"ads": {"command": "ads-mcp"},
                                                                   "simbad": {"command": "simbad-mcp"}}}})
    write_config(app_at.workspace / ".astro" / "config.yaml",
                 {"mcp": {"servers": {"simbad": {"command": "simbad-mcp", "args": ["--mirror", "cds"]}}}})
    untrusted = load_config(app_at())
    assert [(s.name, s.target) for s in untrusted.servers] == [("ads", "ads-mcp"), ("simbad", "simbad-mcp")]

    trust_workspace(app_at.workspace, app_at.home)
    config = load_config(app_at())
    where = {s.name: (s.target, Path(s.where).parent.name) for s in config.servers}
    assert where == {"ads": ("ads-mcp", "astro-home"), "simbad": ("simbad-mcp --mirror cds", ".astro")}


def test_a_trusted_project_server_replaces_a_user_server_of_the_same_name(app_at):
    write_config(app_at.home / "config.yaml", {"mcp": {"servers": {"ads": {"command": "user-ads"}}}})
    (app_at.workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"ads": {"command": "project-ads"}}}))
    untrusted = load_config(app_at())
    assert [(s.target, s.startable) for s in untrusted.servers] == [("user-ads", True), ("project-ads", False)]
    trust_workspace(app_at.workspace, app_at.home)
    trusted = load_config(app_at())
    assert [(s.target, s.startable) for s in trusted.servers] == [("user-ads", False), ("project-ads", True)]
    assert trusted.servers[0].skipped == "replaced by the server of the same name in .mcp.json"


def test_a_broken_mcp_json_is_reported_not_fatal(app_at):
    (app_at.workspace / ".mcp.json").write_text('{"mcpServers": {"ads": ')
    config = load_config(app_at())
    assert config.servers == [] and config.problems[0].startswith(".mcp.json is not valid JSON (line 1")


def test_tool_names_follow_claude_code_and_stay_within_provider_limits():
    assert tool_name("ads", "search_papers") == "mcp__ads__search_papers"
    assert tool_name("my server", "get.object") == "mcp__my_server__get_object"
    long = tool_name("a-very-long-server-name-for-the-group", "query_the_archive_with_a_long_tool_name")
    assert len(long) == 64 and long.startswith("mcp__a-very-long-server-name")
    assert long != tool_name("a-very-long-server-name-for-the-group", "query_the_archive_with_a_long_tool_name2")


def test_tools_keep_the_server_schema_and_need_permission():
    remote = [
        RemoteTool("cone search", "Search a cone. Returns sources.", {"$schema": "x", "type": "object", "properties": {
            "radius": {"type": "number"}, "target": {"type": "string"}}, "required": ["target"]}),
        RemoteTool("cone_search", "", {}),  # the same name once cleaned: left out with a sentence
        RemoteTool("status", "", {}, title="Archive status"),
    ]
    tools, problems = build_tools("cat", remote, lambda *a: None, 60.0, 1000)
    assert [t.name for t in tools] == ["mcp__cat__cone_search", "mcp__cat__status"]
    assert "both become mcp__cat__cone_search" in problems[0]
    cone, status = tools
    assert cone.summary == "Search a cone." and status.description == "Archive status"
    assert cone.needs_permission and not cone.read_only and cone.key_argument == "target"
    assert "$schema" not in cone.parameters and cone.parameters["required"] == ["target"]
    assert input_schema({}) == {"type": "object", "properties": {}}
    assert key_argument({"properties": {"n": {"type": "integer"}}}) is None


def test_permission_patterns_name_a_server_and_deny_wins():
    assert matches("mcp__ads__search", ["mcp__ads__*"]) and matches("mcp__ads__search", ["mcp__ads"])
    assert not matches("mcp__adsx__search", ["mcp__ads"]) and not matches("mcp__adsx__search", ["mcp__ads__*"])
    assert matches("mcp__ads__search", ["mcp__*__search"]) and not matches("run_bash", ["mcp__*"])
    tool = Tool("mcp__ads__search", "Search.", {"type": "object", "properties": {}}, run=lambda c, a: "",
                needs_permission=True)
    assert PermissionPolicy(allow={"mcp__ads__*"}).check(tool, {}).allowed
    denied = PermissionPolicy(allow={"mcp__ads__*"}, deny={"mcp__ads"}).check(tool, {})
    assert not denied.allowed and "permissions.deny" in denied.reason
    assert not PermissionPolicy(allow={"mcp__simbad__*"}).check(tool, {}).allowed


def test_without_servers_only_the_slash_command_is_installed(app_at):
    from astro_cli.mcp.feature import McpExtension
    from astro_cli.mcp.manager import McpManager

    app = app_at().install_features()
    assert "mcp" in slash_commands(app)
    assert not any(isinstance(ext, McpExtension) for ext in loop_extensions(app).new())
    assert McpManager not in app.services  # no manager, no thread


def test_tool_order_may_name_mcp_tools_before_their_server_is_up():
    from astro_cli.tools.registry import ToolRegistry

    registry = ToolRegistry([Tool("read_file", "Read.", {}, run=lambda c, a: "")])
    order = ["mcp__ads__search", "<unlisted-tools>"]
    assert [t.name for t in registry.ordered(order)] == ["read_file"]
    registry.register(Tool("mcp__ads__search", "Search.", {}, run=lambda c, a: ""))
    assert [t.name for t in registry.ordered(order)] == ["mcp__ads__search", "read_file"]
