"""Dependencies handed in (issue 45): a tool declares the services it needs and receives them, its
schema comes from its typed signature, and the library holds its parts, never the app.

The counts are read from the code by benchmarks/count_tool_deps.py (ast; RESULTS.md "Stop 51 —
dependencies handed in"). Each allow-list below is exact, so it can only shrink.
"""

from __future__ import annotations

import ast
import json
import typing
from dataclasses import fields
from pathlib import Path

import pytest

from astro_cli.app import AppContext
from astro_cli.config import load_settings
from astro_cli.tools.base import ToolResult
from astro_cli.tools.context import ToolContext
from astro_cli.tools.typed import ToolDefinitionError, as_tool, tool
from astro_cli.workspace import AstroHome, Workspace
from benchmarks.count_tool_deps import PACKAGE, count
from tests.paths import FIXTURES_DIR

# Where a tool still reaches the whole app, and why (each place says so in a comment). Only ever remove entries.
APP_IN_TOOLS: dict[str, str] = {
    "delegation/subagent.py run_subagent": "the child is an AgentSession, built from the whole app",
    "delegation/subagent.py subagent_tool": "the agents' catalogue and the tools a subagent may use",
    "delegation/subagent.py run_fork_skill": "a forked skill runs as a subagent",
    "delegation/team.py team_manager": "teammates are AgentSessions, built from the whole app",
    "research/library/feature.py _rerank": "outside a session, which model the configuration names",
}
# The tools that still write their JSON schema by hand. Only ever remove entries (it is empty: keep it so).
HAND_WRITTEN_SCHEMAS: set[str] = set()
# The schemas of the tools converted in stop 51, as they were built by hand before (commit d1d1111).
BEFORE = FIXTURES_DIR / "tool_schemas_before_deps.json"


def _app(tmp_path: Path) -> AppContext:
    return AppContext(load_settings([], env={}, flags={"library.embedding_model": "off"}),
                      Workspace(tmp_path), AstroHome(tmp_path / ".home")).install_features()


def test_tools_reach_the_whole_app_only_where_a_comment_says_why():
    counts = count(PACKAGE)
    places = {where.split(":")[0] + " " + where.split(" in ")[1] for where in counts.app_in_tools}
    assert places == set(APP_IN_TOOLS), "a tool declares what it needs (@tool(needs=...)); see docs/architecture.md"
    assert len(counts.app_in_tools) <= 5
    assert counts.service_in_tools == []  # no service locator either: the service is a parameter
    for where in counts.app_in_tools:
        path, line = where.split(" ")[0].split(":")
        above = (PACKAGE / path).read_text(encoding="utf-8").splitlines()[max(0, int(line) - 4):int(line)]
        assert any("on purpose" in text for text in above), f"{where}: say why this tool needs the app"


def test_no_tool_writes_its_schema_by_hand():
    names = {where.split(" ", 1)[1].strip("'\"") for where in count(PACKAGE).hand_schemas}
    assert names == HAND_WRITTEN_SCHEMAS, "derive the schema from a typed signature with @tool (tools/typed.py)"


def test_the_converted_tools_show_the_model_the_schemas_it_saw_before(tmp_path):
    before = json.loads(BEFORE.read_text(encoding="utf-8"))
    app = _app(tmp_path)
    for name, schema in before.items():
        registered = app.tools.get(name)
        assert registered is not None, name
        assert registered.schema() == schema, name
        assert len(json.dumps(registered.schema())) == len(json.dumps(schema)), name  # the same tokens


def test_save_memorys_types_are_the_memory_formats():
    from astro_cli.memory.feature import MemoryType
    from astro_cli.memory.format import MEMORY_TYPES

    assert typing.get_args(MemoryType) == MEMORY_TYPES


def test_the_library_holds_its_parts_and_never_the_app(tmp_path):
    from astro_cli.research.library.papers import LibraryCore, LibraryParts
    from astro_cli.research.library.service import Library

    app = _app(tmp_path)
    library = Library.of(app)
    assert library is Library.of(app)
    held = [*vars(library).values(), *(getattr(library.parts, f.name) for f in fields(LibraryParts))]
    assert not any(isinstance(value, AppContext) for value in held)
    assert library.redactor is app.redactor and library.web is library.web  # the parts, made once by the app
    # Read from the code: the core and the service name no app (the factory `Library.of` builds it from one).
    for module in ("papers.py", "service.py"):
        tree = ast.parse((PACKAGE / "research" / "library" / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in ("LibraryCore", "Library"):
                methods = [n for n in node.body if isinstance(n, ast.FunctionDef) and n.name not in ("of", "from_app")]
                names = {n.attr for m in methods for n in ast.walk(m) if isinstance(n, ast.Attribute)}
                assert not names & {"app", "_app"}, (module, node.name)
    assert "app" not in LibraryCore.__init__.__code__.co_varnames


class Clock:
    """A service of the app's, as a feature registers one."""

    def __init__(self, now: str) -> None:
        self.now = now


def test_a_tool_receives_the_service_it_declares_and_the_model_never_sees_it(tmp_path):
    @tool(needs=Clock)
    def what_time(ctx: ToolContext, clock: Clock, zone: str = "UTC") -> ToolResult:
        """Say the time.

        Args:
            zone: A time zone.
        """
        return ToolResult(f"{clock.now} {zone}")

    app = AppContext(load_settings([], env={}, flags={}), Workspace(tmp_path), AstroHome(tmp_path / ".home"))
    app.services.provide(Clock, lambda: Clock("12:00"))  # what a feature's install does
    made = as_tool(what_time)
    assert list(made.parameters["properties"]) == ["zone"]  # the service is not an argument
    result = made.run(ToolContext(app=app, session_id="s"), {"zone": "CET", "clock": "forged"})
    assert isinstance(result, ToolResult) and result.content == "12:00 CET"
    assert app.service(Clock) is app.service(Clock)  # one per app, made by the provided factory


def test_a_need_without_its_parameter_fails_when_the_tool_is_defined():
    with pytest.raises(ToolDefinitionError, match="needs Clock: give it exactly one parameter annotated Clock"):
        @tool(needs=Clock)
        def untimed(ctx: ToolContext, zone: str) -> ToolResult:
            """Say nothing."""
            return ToolResult(zone)
