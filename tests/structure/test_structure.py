"""The structure, read from the imports: top level and inside functions alike.

Features describe, the UI renders: no feature package imports `astro_cli.ui` (not even for a type).
No import circle at all: neither among the imports that run nor when the imports under
`if TYPE_CHECKING:` (types for annotations) are counted too. The loop and its extensions meet
through the `SessionView` / `TurnView` protocols of `agent/extensions.py`, not each other's classes.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import REPO_ROOT

PACKAGE = REPO_ROOT / "astro_cli"
FEATURES = ("skills", "memory", "tasks", "compact", "delegation", "research", "citations", "mcp", "hooks", "plots")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imports_of(name: str, path: Path, modules: dict[str, Path], types_too: bool = False) -> set[str]:
    """The astro_cli modules `name` imports anywhere in its code (a package's own `__init__` is not followed);
    with `types_too`, also those imported only for annotations."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree) if types_too else runtime_nodes(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:  # `from astro_cli.research import ads` imports a module
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {target for target in found if target in modules and target != name}


def runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node that runs: all but the bodies of `if TYPE_CHECKING:` (annotations only)."""
    found: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return found


def import_graph(types_too: bool = False) -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(name, path, modules, types_too) for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_reader_sees_imports_inside_functions_and_finds_a_circle(tmp_path: Path) -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [{"a", "b", "c"}]
    modules = all_modules()
    skills_feature = imports_of("astro_cli.skills.feature", modules["astro_cli.skills.feature"], modules)
    assert "astro_cli.skills.slash" in skills_feature  # imported inside install(): still an arrow


def test_no_feature_imports_the_ui() -> None:
    offenders = sorted(
        f"{name} imports {target}"
        for name, targets in import_graph(types_too=True).items()
        if name.split(".")[1:2] and name.split(".")[1] in FEATURES
        for target in targets
        if target == "astro_cli.ui" or target.startswith("astro_cli.ui.")
    )
    assert offenders == []


def test_no_import_circle_among_the_imports_that_run() -> None:
    assert [sorted(c) for c in circles(import_graph())] == []


def test_no_import_circle_even_counting_imports_for_annotations() -> None:
    assert [sorted(c) for c in circles(import_graph(types_too=True))] == []
