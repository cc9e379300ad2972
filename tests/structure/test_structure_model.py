"""The model port (agent/model.py) and its one adapter (astro_cli/litellm_model/), held.

Read from the code (ast): no module outside the adapter's package imports litellm, by an import
statement anywhere (inside functions too) or by `importlib.import_module`/`__import__` with a
literal name; and the adapter's package is imported only by the modules ALLOWED names, each with
its reason. An entry that no longer matches fails too, so the list can only shrink.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.structure import test_structure

PACKAGE = test_structure.PACKAGE
ADAPTER = "astro_cli.litellm_model"
LITELLM = re.compile(r"litellm(\..+)?")

# importer -> why it may reach into the adapter past the port. Only ever remove entries.
ALLOWED: dict[str, str] = {
    "astro_cli.agent.open_model": "the port's factory and its warm-up doors: the adapter is imported here",
    "astro_cli.agent.tokens": "the token counter uses litellm's model-aware counter once litellm is loaded",
    "astro_cli.main": "the process entry sets litellm's environment defaults before anything may import it",
    "astro_cli.research.search.embed": "remote embeddings go through the adapter's other door (embedding.py)",
    "astro_cli.worker.preload": "the warm worker imports litellm before it forks and redoes its effects in a child",
    "astro_cli.worker.server": "the warm worker's preload of litellm (without adopting it)",
}


def _names_imported(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            called = ast.unparse(node.func)
            if called.endswith(("import_module", "__import__")) and isinstance(node.args[0].value, str):
                names.append(node.args[0].value)
    return names


def _outside_adapter() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name, path in test_structure.all_modules().items():
        if name == ADAPTER or name.startswith(ADAPTER + "."):
            continue
        found[name] = _names_imported(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_only_the_adapter_imports_litellm() -> None:
    offenders = [f"{module} imports {name}" for module, names in _outside_adapter().items()
                 for name in names if LITELLM.fullmatch(name)]
    assert not offenders, ("litellm is the adapter's (astro_cli/litellm_model/); reach a model through "
                           "agent/open_model.py:\n" + "\n".join(offenders))


def test_the_adapter_is_reached_through_the_port_unless_allowed() -> None:
    reaching = {module for module, names in _outside_adapter().items()
                if any(name == ADAPTER or name.startswith(ADAPTER + ".") for name in names)}
    new = sorted(reaching - set(ALLOWED))
    assert not new, "these modules import the litellm adapter past the Model port:\n" + "\n".join(new)
    stale = sorted(set(ALLOWED) - reaching)
    assert not stale, "these no longer reach the adapter; remove them from ALLOWED:\n" + "\n".join(stale)


def test_the_check_sees_an_import_inside_a_function_and_by_name(tmp_path: Path) -> None:
    code = "def f():\n    import litellm.utils\n\nimportlib.import_module('litellm')\n"
    assert [n for n in _names_imported(ast.parse(code)) if LITELLM.fullmatch(n)] == ["litellm.utils", "litellm"]
