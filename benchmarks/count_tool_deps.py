"""Issue 45, dependencies handed in: how tools and research/ reach the app, and which tools write their schema.

    .venv/bin/python benchmarks/count_tool_deps.py [--package PATH/astro_cli] [--list]

Counted by reading the source (ast), so another checkout (`git archive COMMIT`) can be counted the same way:
- `ctx.app` in tools: `X.app` inside a function one of whose parameters is annotated `ToolContext` (the
  tool functions, typed or hand-written, and their nested helpers). Slash handlers take a `SlashContext`
  and transcript sections an `AppContext`: neither is counted.
- `ctx.service(...)` in tools, by the same rule (the service locator the issue also names).
- research/ signatures taking the app: functions in astro_cli/research with a parameter annotated
  `AppContext` (the one factory that builds the library from the app counts too).
- hand-written schemas: `Tool(...)` calls with a `parameters=` argument that is not `spec.parameters()`
  (tools/typed.py's own), outside mcp/ (a server's schema is the server's, not ours).
"""

from __future__ import annotations

import argparse
import ast
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "astro_cli"


@dataclass
class Counts:
    app_in_tools: list[str] = field(default_factory=list)
    service_in_tools: list[str] = field(default_factory=list)
    research_app_signatures: list[str] = field(default_factory=list)
    hand_schemas: list[str] = field(default_factory=list)


def _annotation(arg: ast.arg) -> str:
    return ast.unparse(arg.annotation).strip("'\"") if arg.annotation is not None else ""


def _params(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    args = function.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


def _tool_contexts(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {a.arg for a in _params(function) if _annotation(a) == "ToolContext"}


def count_module(path: Path, relative: str, counts: Counts) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    seen: set[tuple[str, int, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if relative.startswith("research/") and any(_annotation(a) == "AppContext" for a in _params(node)):
                counts.research_app_signatures.append(f"{relative}:{node.lineno} {node.name}")
            names = _tool_contexts(node)
            if not names:
                continue
            for inner in ast.walk(node):
                where = (relative, getattr(inner, "lineno", 0), getattr(inner, "col_offset", 0))
                if where in seen:
                    continue
                if (isinstance(inner, ast.Attribute) and inner.attr == "app" and isinstance(inner.value, ast.Name)
                        and inner.value.id in names):
                    seen.add(where)
                    counts.app_in_tools.append(f"{relative}:{inner.lineno} in {node.name}")
                if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                        and inner.func.attr == "service" and isinstance(inner.func.value, ast.Name)
                        and inner.func.value.id in names):
                    seen.add(where)
                    counts.service_in_tools.append(f"{relative}:{inner.lineno} in {node.name}")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Tool"
                and not relative.startswith("mcp/")):
            for keyword in node.keywords:
                if keyword.arg == "parameters" and ast.unparse(keyword.value) != "spec.parameters()":
                    name = next((ast.unparse(k.value) for k in node.keywords if k.arg == "name"), "?")
                    counts.hand_schemas.append(f"{relative}:{node.lineno} {name}")


def count(package: Path) -> Counts:
    counts = Counts()
    for path in sorted(package.rglob("*.py")):
        count_module(path, path.relative_to(package).as_posix(), counts)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--package", type=Path, default=PACKAGE, help="an astro_cli folder of another checkout")
    parser.add_argument("--list", action="store_true", help="print where each one is")
    args = parser.parse_args()
    counts = count(args.package)
    for label, found in (("ctx.app in tools", counts.app_in_tools),
                         ("ctx.service in tools", counts.service_in_tools),
                         ("research/ signatures taking the app", counts.research_app_signatures),
                         ("tools with hand-written schemas", counts.hand_schemas)):
        print(f"{label}: {len(found)}")
        if args.list:
            for item in found:
                print(f"    {item}")


if __name__ == "__main__":
    main()
