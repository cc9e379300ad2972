"""Move flat test modules into folders that mirror astro_cli/ (issue 45), and mend what the move breaks.

    python -m tests.mirror --dry-run     # print the moves and rewrites, change nothing
    python -m tests.mirror               # git mv, then rewrite; run again: nothing left to do

Each `tests/test_*.py` at the root goes to the folder of the package it tests, by two explicit tables:
OVERRIDES (one file) before PREFIXES (a family, by how the name after `test_` begins, the longest
prefix first). A file neither names stays where it is and is listed, so a new family needs a row.
Three folders mirror no package: `cli/` (the commands, `main`, and astro_cli's top-level modules),
`structure/` (rules over the whole package) and `docs/` (the docs run as written).

What a move breaks, and how it is mended in every tracked text file (benchmarks/RESULTS.md, a log of
past runs, is left as written):
- a module path `tests.test_x` (one test importing another, benchmarks importing a test) becomes
  `tests.<folder>.test_x`; a file path `tests/test_x.py` (docs, comments, commands) becomes
  `tests/<folder>/test_x.py`, and a glob `tests/test_x_*.py` too when all it matches share a folder;
- `Path(__file__)...` in a module at the root becomes a constant of tests/paths.py (REPO_ROOT,
  TESTS_DIR, FIXTURES_DIR), which names the same folder from any depth; ruff then sorts the import;
- each folder gets an `__init__.py`: test modules import each other as `tests.x.y`, and pytest's
  rootdir-based import names a module by its packages.
Support modules (fake servers, helpers, conftest.py) stay at the root: they serve every folder, the
benchmarks import them by name, and their import paths stay as other branches wrote them.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.paths import REPO_ROOT

# Folders of tests/ that mirror no astro_cli package (see the module docstring).
EXTRA_FOLDERS = ("cli", "structure", "docs")

# A family of test modules -> its folder: how the name after `test_` begins (`library_pdf` takes
# test_library_pdfruns and test_library_pdf_x); the longest matching prefix wins.
PREFIXES: dict[str, str] = {
    "arxiv_query": "research/sources",
    "attachments": "cli",
    "background": "tasks",
    "bibtex": "research/bibtex",
    "catalog": "catalog",
    "citations": "citations",
    "claim": "citations",
    "claude_stream": "ui",
    "cloud_unchanged": "agent",
    "commands": "cli",
    "compact": "compact",
    "config": "cli",
    "crash_resume": "store",
    "crossref": "research/sources",
    "current_model": "agent",
    "debug_log": "cli",
    "declared_imports": "structure",
    "docs": "docs",
    "doctor": "doctor",
    "everyday": "cli",
    "first_run": "ui",
    "found": "research",
    "frontmatter": "cli",
    "grounding": "citations",
    "group_library": "research/library",
    "handle": "citations",
    "hooks": "hooks",
    "keys": "cli",
    "library": "research/library",
    "library_default_embed": "research/search",
    "library_embed": "research/search",
    "library_fts": "research/search",
    "library_indexer": "research/search",
    "library_latex": "research/text",
    "library_local_embed": "research/search",
    "library_pdf": "research/text",
    "library_questions": "research/search",
    "library_search": "research/search",
    "library_synonyms": "research/search",
    "litellm": "litellm_model",
    "local_model": "agent",
    "local_servers": "agent",
    "loop": "agent",
    "mcp": "mcp",
    "memory": "memory",
    "nudges": "tasks",
    "paper_graph": "research/sources",
    "pids": "cli",
    "plot": "plots",
    "process_exit": "cli",
    "profiles": "agent",
    "prompt": "prompt",
    "quantities": "citations",
    "query_trails": "research/sources",
    "recovery": "tasks",
    "render": "ui",
    "repl": "ui",
    "research": "research/sources",
    "run": "cli",
    "search": "research/search",
    "security": "security",
    "services": "cli",
    "session_model": "agent",
    "skills": "skills",
    "small_model": "agent",
    "store": "store",
    "structure": "structure",
    "subagent": "delegation",
    "tasks": "tasks",
    "team": "delegation",
    "text_calls": "agent",
    "tool": "tools",
    "turn_interrupter": "agent",
    "tutorial": "docs",
    "typed_tools": "tools",
    "usage": "agent",
    "worker": "worker",
}

# One file whose family says the wrong folder, or that belongs to no family: its stem -> its folder.
OVERRIDES: dict[str, str] = {
    "test_everyday_repl": "ui",
    "test_faults_fuzz": "cli",
    "test_faults_interrupts": "agent",
    "test_faults_latex": "research/text",
    "test_faults_library": "research/library",
    "test_faults_provider": "agent",
    "test_faults_sessions": "store",
    "test_faults_state": "store",
    "test_plugin_commands": "cli",
    "test_prompt_docs_example": "docs",
    "test_research_cli": "research",
    "test_research_download": "research/library",
}

# Text files whose paths into tests/ are mended; a log of past runs keeps what was run then.
TEXT_SUFFIXES = (".py", ".md", ".toml", ".cfg", ".ini", ".txt", ".yaml", ".yml", ".sh")
TEXT_NAMES = ("Makefile", "run")
LEFT_AS_WRITTEN = ("benchmarks/RESULTS.md",)

# `Path(__file__)` spelled from a module at the root of tests/ -> the constant of tests/paths.py.
FILE_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r'Path\(__file__\)(?:\.resolve\(\))?\.parent\s*/\s*"fixtures"'), "FIXTURES_DIR"),
    (re.compile(r"Path\(__file__\)(?:\.resolve\(\))?\.parents\[1\]"), "REPO_ROOT"),
    (re.compile(r"Path\(__file__\)(?:\.resolve\(\))?\.parent\.parent\b"), "REPO_ROOT"),
    (re.compile(r"Path\(__file__\)(?:\.resolve\(\))?\.parent\b(?!\.parent)"), "TESTS_DIR"),
)
# Modules at the root that define the constants or move the tests: never rewritten.
OWN_MODULES = ("paths.py", "mirror.py")


@dataclass
class Plan:
    """What one run does: moves (stem -> folder), files it cannot place, and rewritten texts."""

    moves: dict[str, str] = field(default_factory=dict)
    unplaced: list[str] = field(default_factory=list)
    rewrites: dict[Path, str] = field(default_factory=dict)


def folder_for(stem: str) -> str | None:
    """The folder (relative to tests/) a test module belongs in, or None when no rule names it."""
    if stem in OVERRIDES:
        return OVERRIDES[stem]
    name = stem.removeprefix("test_")
    matches = [prefix for prefix in PREFIXES if name.startswith(prefix)]
    return PREFIXES[max(matches, key=len)] if matches else None


def placed_modules(tests: Path) -> dict[str, str]:
    """Test modules already in a folder: stem -> folder (relative to tests/, with slashes)."""
    return {path.stem: path.parent.relative_to(tests).as_posix()
            for path in tests.rglob("test_*.py") if path.parent != tests and "fixtures" not in path.parts}


def plan(root: Path = REPO_ROOT) -> Plan:
    """Decide every move and rewrite from the files as they are; change nothing."""
    tests = root / "tests"
    result = Plan()
    placed = placed_modules(tests)
    for path in sorted(tests.glob("test_*.py")):
        folder = folder_for(path.stem)
        if folder is None or path.stem in placed:  # no rule, or a module of that name already placed
            result.unplaced.append(path.name)
        else:
            result.moves[path.stem] = folder
    where = {**placed, **result.moves}
    for path in tracked_texts(root):
        if path.parent == tests and path.name in OWN_MODULES:
            continue
        relative = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        new = rewrite_references(text, where)
        if path.parent == tests and path.suffix == ".py" and path.name not in OWN_MODULES:
            new = rewrite_file_paths(new)
        if new != text and relative not in LEFT_AS_WRITTEN:
            result.rewrites[path] = new
    return result


def tracked_texts(root: Path) -> list[Path]:
    """The text files git tracks (fixtures are data, never rewritten), the ones a move may break."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True, check=True)
    found = []
    for name in filter(None, listed.stdout.split("\0")):
        path = root / name
        data = name.startswith("tests/fixtures/") and path.suffix != ".md"  # PROVENANCE.md names tests
        if not data and (path.suffix in TEXT_SUFFIXES or path.name in TEXT_NAMES) and path.is_file():
            found.append(path)
    return found


def rewrite_references(text: str, where: dict[str, str]) -> str:
    """Module paths, file paths and globs naming a flat test module -> its folder."""

    def module(match: re.Match[str]) -> str:
        stem = match.group(1)
        return f"tests.{where[stem].replace('/', '.')}.{stem}" if stem in where else match.group(0)

    def file(match: re.Match[str]) -> str:
        stem = match.group(1)
        return f"tests/{where[stem]}/{stem}.py" if stem in where else match.group(0)

    def glob(match: re.Match[str]) -> str:
        folders = {folder for stem, folder in where.items() if stem.startswith(match.group(1))}
        return f"tests/{folders.pop()}/{match.group(1)}*.py" if len(folders) == 1 else match.group(0)

    def names(match: re.Match[str]) -> str:  # `from tests import test_x, helpers`: one line per package
        indent, listed = match.group(1), [name.strip() for name in match.group(2).split(",")]
        packages: dict[str, list[str]] = {}
        for name in listed:
            stem = name.split(" as ")[0].strip()
            packages.setdefault(f"tests.{where[stem].replace('/', '.')}" if stem in where else "tests", []).append(name)
        return "\n".join(f"{indent}from {package} import {', '.join(members)}" for package, members in packages.items())

    text = re.sub(r"^([ \t]*)from tests import ([\w ,]+?)(?=[ \t]*(?:#|$))", names, text, flags=re.MULTILINE)
    text = re.sub(r"(?<![\w.])tests\.(test_\w+)\b", module, text)
    text = re.sub(r"(?<![\w/])tests/(test_\w+)\.py\b", file, text)
    return re.sub(r"(?<![\w/])tests/(test_\w*)\*\.py", glob, text)


def rewrite_file_paths(source: str) -> str:
    """`Path(__file__)` spellings of the root of tests/ -> tests/paths.py's constants, imported."""
    used: set[str] = set()
    for pattern, constant in FILE_PATTERNS:
        source, count = pattern.subn(constant, source)
        if count:
            used.add(constant)
    if not used:
        return source
    line = f"from tests.paths import {', '.join(sorted(used))}\n"
    lines = source.splitlines(keepends=True)
    # After the first import (ruff then sorts it in): above any module-level code that uses the constant.
    first = next((node for node in ast.parse(source).body if isinstance(node, ast.Import | ast.ImportFrom)), None)
    lines.insert(first.end_lineno or first.lineno if first else 0, line)
    return "".join(lines)


def apply(result: Plan, root: Path = REPO_ROOT) -> None:
    """git mv each module, write the rewritten texts at their new places, add the folders' __init__.py."""
    tests = root / "tests"
    for folder in sorted(set(result.moves.values()) | set(placed_modules(tests).values())):
        for depth in range(1, folder.count("/") + 2):
            marker = tests.joinpath(*folder.split("/")[:depth], "__init__.py")
            if not marker.exists():
                marker.parent.mkdir(parents=True, exist_ok=True)
                marker.write_text("")
                git(root, "add", str(marker.relative_to(root)))
    moved: dict[Path, Path] = {}
    tracked = set(subprocess.run(["git", "ls-files", "-z", "tests"], cwd=root, capture_output=True, text=True,
                                 check=True).stdout.split("\0"))
    for stem, folder in result.moves.items():
        source, target = tests / f"{stem}.py", tests / folder / f"{stem}.py"
        if source.relative_to(root).as_posix() in tracked:
            git(root, "mv", str(source.relative_to(root)), str(target.relative_to(root)))
        else:  # a file not yet committed moves all the same
            source.rename(target)
        moved[source] = target
    changed = []
    for path, text in result.rewrites.items():
        destination = moved.get(path, path)
        destination.write_text(text, encoding="utf-8")
        changed.append(destination)
    sort_imports([path for path in changed if path.suffix == ".py"], root)


def sort_imports(paths: list[Path], root: Path) -> None:
    """Let ruff place the new import where isort would, and drop a `Path` import left unused."""
    if paths:
        subprocess.run([sys.executable, "-m", "ruff", "check", "--quiet", "--fix", "--select", "I001,F401",
                        *map(str, paths)], cwd=root, check=False)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True)


def report(result: Plan, root: Path, dry_run: bool) -> None:
    verb = "would move" if dry_run else "moved"
    for stem, folder in sorted(result.moves.items(), key=lambda item: (item[1], item[0])):
        print(f"{verb} tests/{stem}.py -> tests/{folder}/{stem}.py")
    for path in sorted(result.rewrites):
        print(f"{'would rewrite' if dry_run else 'rewrote'} {path.relative_to(root)}")
    for name in result.unplaced:
        print(f"unplaced: tests/{name} (no rule in tests/mirror.py names it, or its name is taken)")
    print(f"{len(result.moves)} to move, {len(result.rewrites)} to rewrite, {len(result.unplaced)} unplaced")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dry-run", action="store_true", help="print what would be done, change nothing")
    options = parser.parse_args(argv)
    result = plan(REPO_ROOT)
    if not options.dry_run:
        apply(result, REPO_ROOT)
    report(result, REPO_ROOT, options.dry_run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
