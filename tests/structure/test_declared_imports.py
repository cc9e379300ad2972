"""Every library astro_cli imports is declared in pyproject.toml (issue 27: anyio and python-dotenv
were imported but not declared, so an install that left them out broke at the first MCP server)."""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import packages_distributions

import tomllib

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
# Imported but not a dependency, each with its reason.
NOT_DEPENDENCIES = {
    "xllamacpp": "llama.cpp's server: the offline first run downloads it into the user cache, and only the "
                 "server child (local_model/serve.py) imports it from there",
}


def imported_top_level_names() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "astro_cli").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.partition(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.partition(".")[0])
    return {name for name in names if name not in sys.stdlib_module_names and name != "astro_cli"}


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")
            for requirement in project["dependencies"]}


def test_every_imported_library_is_a_declared_dependency():
    distributions = packages_distributions()
    missing = sorted(
        f"{name} ({', '.join(distributions.get(name, ['not installed']))})"
        for name in imported_top_level_names() - set(NOT_DEPENDENCIES)
        if not {d.lower().replace("_", "-") for d in distributions.get(name, [])} & declared()
    )
    assert missing == []
