"""tests/ mirrors the package (issue 45): a test module lives in the folder of the package it tests.

A new `tests/test_*.py` at the root fails here: move it with `python -m tests.mirror` (add a row to
its tables when no rule names it). FLAT_ALLOWED is a list that only shrinks. The script itself is run
on a small git repository of its own: moves, the imports and paths it mends, and a second run that
finds nothing to do.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests import mirror
from tests.paths import REPO_ROOT, TESTS_DIR

# Test modules that may still sit at the root of tests/ (none): entries may only go.
FLAT_ALLOWED: frozenset[str] = frozenset()
PACKAGE = REPO_ROOT / "astro_cli"


def test_no_test_module_sits_flat_at_the_root() -> None:
    flat = sorted(path.name for path in TESTS_DIR.glob("test_*.py"))
    assert [name for name in flat if name not in FLAT_ALLOWED] == [], (
        "move them into the folder of the package they test: python -m tests.mirror")


def test_the_allowed_list_only_shrinks() -> None:
    assert [name for name in sorted(FLAT_ALLOWED) if not (TESTS_DIR / name).exists()] == []


def test_every_test_folder_mirrors_a_package_and_is_a_package() -> None:
    folders = {path.parent for path in TESTS_DIR.rglob("test_*.py")} - {TESTS_DIR}
    folders = {folder for folder in folders if "fixtures" not in folder.relative_to(TESTS_DIR).parts}
    strays = sorted(folder.relative_to(TESTS_DIR).as_posix() for folder in folders
                    if not is_mirror(folder.relative_to(TESTS_DIR).as_posix()))
    assert strays == []
    missing = sorted({(parent / "__init__.py").relative_to(REPO_ROOT).as_posix()
                      for folder in folders for parent in (folder, *folder.parents)
                      if parent.is_relative_to(TESTS_DIR) and not (parent / "__init__.py").exists()})
    assert missing == []  # tests import each other as tests.<folder>.<module>


def test_every_rule_of_the_script_names_a_mirror_folder() -> None:
    targets = {*mirror.PREFIXES.values(), *mirror.OVERRIDES.values()}
    assert sorted(target for target in targets if not is_mirror(target)) == []


def test_test_module_names_are_unique() -> None:
    """One name, one module: `tests.test_x` is rewritten by name, and a name says which file failed."""
    seen: dict[str, list[str]] = {}
    for path in TESTS_DIR.rglob("test_*.py"):
        seen.setdefault(path.name, []).append(path.relative_to(TESTS_DIR).as_posix())
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def is_mirror(folder: str) -> bool:
    return folder in mirror.EXTRA_FOLDERS or (PACKAGE / folder / "__init__.py").is_file()


# The sample's own text, spelled so that the script never rewrites it here (this file is flat when it runs).
HERE = "Path(__" + "file__)"
ONE, TWO = "test_memory_zeta_one", "test_memory_zeta_two"
TWO_SOURCE = f"""\"\"\"Uses tests/{ONE}.py.\"\"\"

from __future__ import annotations

from pathlib import Path

from tests import {ONE}
from tests.{ONE} import CLOCK

NOTE = {HERE}.parent / "fixtures" / "note.txt"


def read() -> tuple[int, int, str]:
    return CLOCK, {ONE}.CLOCK, NOTE.read_text()
"""


def test_the_script_moves_mends_and_then_has_nothing_to_do(tmp_path: Path) -> None:
    """The real script, real git and real ruff, on a repository with two flat tests, a doc and an odd file."""
    repo = tmp_path / "repo"
    (repo / "tests" / "fixtures").mkdir(parents=True)
    (repo / "docs").mkdir()
    (repo / "tests" / "__init__.py").write_text("")
    (repo / "tests" / "paths.py").write_text((TESTS_DIR / "paths.py").read_text())
    (repo / "tests" / "fixtures" / "note.txt").write_text("kept\n")
    (repo / "tests" / f"{ONE}.py").write_text("CLOCK = 3\n")
    (repo / "tests" / f"{TWO}.py").write_text(TWO_SOURCE)
    (repo / "tests" / "test_zz_unknown.py").write_text("")
    (repo / "docs" / "memory.md").write_text(f"See `tests/test_memory_zeta*.py` and tests/{TWO}.py.\n")
    run(repo, "git", "init", "-q")
    run(repo, "git", "add", "-A")

    result = mirror.plan(repo)
    assert result.moves == {ONE: "memory", TWO: "memory"}
    assert result.unplaced == ["test_zz_unknown.py"]
    mirror.apply(result, repo)

    moved = repo / "tests" / "memory" / f"{TWO}.py"
    assert sorted(p.relative_to(repo).as_posix() for p in (repo / "tests").rglob("*.py")) == [
        "tests/__init__.py", "tests/memory/__init__.py", f"tests/memory/{ONE}.py", f"tests/memory/{TWO}.py",
        "tests/paths.py", "tests/test_zz_unknown.py"]
    assert (repo / "docs" / "memory.md").read_text() == (
        f"See `tests/memory/test_memory_zeta*.py` and tests/memory/{TWO}.py.\n")
    probe = f"from tests.memory.{TWO} import read; print(read())"
    assert run(repo, sys.executable, "-c", probe).stdout == "(3, 3, 'kept\\n')\n"
    assert HERE not in moved.read_text() and f"tests/memory/{ONE}.py" in moved.read_text()
    assert run(repo, sys.executable, "-m", "ruff", "check", "--select", "I,F", "tests").returncode == 0

    again = mirror.plan(repo)
    assert (again.moves, again.rewrites, again.unplaced) == ({}, {}, ["test_zz_unknown.py"])


def run(cwd: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
