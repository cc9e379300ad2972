"""Markers the suite applies itself, from what a test uses (conftest.py calls `apply_markers`).

- `postgres`: the test uses a real PostgreSQL cluster (a fixture of tests/pg_support.py).
- `pty`: it drives a real process through a pseudo-terminal (pexpect).
- `heavy` (set by hand): CPU-heavy in-process work, left out of `make test-fast` with the above.
- `waits` (set by hand): a test whose point is a real timeout or retry delay (seconds idle), left out too.
- `subprocess`: it starts a real process (astro, a shell, a server): through a fixture such as
  `run_astro`, or in its own body or a helper it calls.

The last two are read from the code a test runs: its function, the fixtures it requests, and the
test-suite helpers those call (followed by name, within tests/). A new test that starts a process
gets the marker without anyone remembering to add it, so `make test-fast` stays fast.
"""

from __future__ import annotations

import dis
import importlib
import types
from collections.abc import Callable, Iterable
from typing import Any

import pytest

POSTGRES_FIXTURES = frozenset({"pg_server", "pgvector_server", "pg_url"})
# Names whose use in the code means a real process starts.
PTY_NAMES = frozenset({"pexpect", "openpty"})
PROCESS_NAMES = frozenset({"subprocess", "Popen", "pexpect", "check_output", "create_subprocess_exec"})
MARKERS = {
    "subprocess": "starts a real process (astro, a shell, a server); applied automatically",
    "postgres": "uses a real PostgreSQL cluster; applied automatically",
    "pty": "drives a real process through a pseudo-terminal (pexpect); applied automatically",
    "cold_start": "runs `astro run` in its own process, never through the shared warm worker",
    "heavy": "CPU-heavy in-process work (a local model over a corpus, long generated runs); not in test-fast",
    "waits": "waits out a real timeout or retry delay on purpose (seconds idle, little CPU); not in test-fast",
    "slow": "end-to-end tests that start the astro process",
}


def _code_objects(code: types.CodeType) -> Iterable[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _function_of(obj: Any) -> types.FunctionType | None:
    obj = getattr(obj, "__wrapped__", obj)
    obj = getattr(obj, "__func__", obj)
    return obj if isinstance(obj, types.FunctionType) else None


class CodeScan:
    """Which names a function's code uses, following the suite's own helpers it calls."""

    def __init__(self) -> None:
        self._names: dict[types.CodeType, frozenset[str]] = {}

    def names(self, function: Callable[..., Any]) -> frozenset[str]:
        func = _function_of(function)
        if func is None:
            return frozenset()
        return self._names_of(func, set())

    def _names_of(self, func: types.FunctionType, seen: set[types.CodeType]) -> frozenset[str]:
        code = func.__code__
        if code in self._names:
            return self._names[code]
        if code in seen:
            return frozenset()
        seen.add(code)
        found: set[str] = set()
        for inner in _code_objects(code):
            imported = _local_imports(inner)
            # Globals and attributes, and locals too (`pexpect = pytest.importorskip("pexpect")`).
            for name in (*inner.co_names, *inner.co_varnames):
                found.add(name)
                helper = _function_of(imported.get(name, func.__globals__.get(name)))
                if helper is not None and (helper.__module__ or "").startswith("tests"):
                    found |= self._names_of(helper, seen)
                elif isinstance(func.__globals__.get(name), type) and _is_suite_class(func.__globals__[name]):
                    for member in vars(func.__globals__[name]).values():
                        method = _function_of(member)
                        if method is not None:
                            found |= self._names_of(method, seen)
        result = frozenset(found)
        self._names[code] = result
        return result


def _local_imports(code: types.CodeType) -> dict[str, Any]:
    """What a function imports from the suite's own modules in its body (`from tests.worker_support
    import new_worker`), by name: followed like a module-level helper."""
    found: dict[str, Any] = {}
    module = None
    for instruction in dis.get_instructions(code):
        if instruction.opname == "IMPORT_NAME":
            name = str(instruction.argval)
            module = importlib.import_module(name) if name.startswith("tests.") else None
        elif instruction.opname == "IMPORT_FROM" and module is not None:
            found[str(instruction.argval)] = getattr(module, str(instruction.argval), None)
    return found


def _is_suite_class(cls: type) -> bool:
    return (cls.__module__ or "").startswith("tests")


def apply_markers(items: list[pytest.Item]) -> None:
    scan = CodeScan()
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        used: set[str] = set()
        functions: list[Callable[..., Any]] = []
        if isinstance(item, pytest.Function):
            functions.append(item.function)
            info = getattr(item, "_fixtureinfo", None)
            for name in fixtures:
                for definition in (getattr(info, "name2fixturedefs", {}) or {}).get(name, ()):
                    functions.append(definition.func)
        for function in functions:
            used |= scan.names(function)
        if fixtures & POSTGRES_FIXTURES:
            item.add_marker(pytest.mark.postgres)
        if used & PTY_NAMES:
            item.add_marker(pytest.mark.pty)
        if used & PROCESS_NAMES or fixtures & POSTGRES_FIXTURES:
            item.add_marker(pytest.mark.subprocess)
