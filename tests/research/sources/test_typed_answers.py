"""Issue 45: no source parser's signature takes or returns an untyped JSON dict.

The services' answers are typed where they come in (sources/answers.py: TypedDicts of the keys
astro reads, values `object`). A signature with `dict[str, Any]` or `Mapping[str, Any]` would let
any key and any value through unchecked again. `NOT_YET` lists the modules still converted by the
records/ledger branch of the same issue; the list can only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

import astro_cli.research.sources as sources_package

SOURCES = Path(sources_package.__file__).parent
UNTYPED = ("dict[str, Any]", "Mapping[str, Any]")
NOT_YET: set[str] = set()


def _untyped_signatures(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        args = node.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        annotations = [a.annotation for a in params if a is not None and a.annotation is not None]
        annotations += [node.returns] if node.returns is not None else []
        if any(kind in ast.unparse(a) for a in annotations for kind in UNTYPED):
            found.append(f"{path.name}:{node.lineno} {node.name}")
    return found


def test_source_parsers_take_and_give_typed_answers() -> None:
    found = [hit for path in sorted(SOURCES.glob("*.py")) if path.name not in NOT_YET
             for hit in _untyped_signatures(path)]
    assert found == []


def test_not_yet_lists_only_modules_that_still_need_it() -> None:
    """A module converted leaves NOT_YET (so the guard covers it from then on)."""
    assert all(_untyped_signatures(SOURCES / name) for name in NOT_YET)
