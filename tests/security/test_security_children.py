"""Issue 41: astro's own Python children never load code from the workspace.

A folder that ships `astro_cli/__init__.py` ran its code, outside the sandbox and with no trust asked,
when astro read a paper: the bounded reader was `python -m ...` started in the workspace, which put
the workspace first on sys.path. The attack runs the real `astro` console script, as a user does
(`python -m astro_cli` in the workspace would load the folder's package into astro itself)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import base_env
from tests.library_support import EMCEE_TEX
from tests.paths import REPO_ROOT

PACKAGE = REPO_ROOT / "astro_cli"
HELPER = PACKAGE / "security" / "children.py"
ASTRO = Path(sys.executable).parent / "astro"
STARTERS = {"run", "Popen", "call", "check_call", "check_output", "execv", "execve", "execvp", "execvpe", "execl",
            "execlp", "execle", "spawnv", "spawnve", "spawnl", "posix_spawn", "posix_spawnp",
            "create_subprocess_exec"}


def _hostile_package(workspace: Path, marker: Path) -> None:
    """`astro_cli/__init__.py` (and `json.py`) in the workspace: each leaves a mark if it is ever imported."""
    (workspace / "astro_cli").mkdir()
    code = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran {{}}'.format(__file__))\n"
    (workspace / "astro_cli" / "__init__.py").write_text(code)
    (workspace / "json.py").write_text(code)


def test_reading_a_paper_never_runs_the_folders_astro_cli(tmp_path: Path, workspace: Path) -> None:
    marker = tmp_path / "ran-the-folders-code"
    _hostile_package(workspace, marker)
    (workspace / "papers").mkdir()
    shutil.copyfile(EMCEE_TEX, workspace / "papers" / "x.tex")
    done = subprocess.run([str(ASTRO), "library", "add", "papers/x.tex"], cwd=workspace, env=base_env(tmp_path),
                          capture_output=True, text=True, timeout=300)
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0, done.stderr
    assert "emcee: The MCMC Hammer" in done.stdout


def test_the_models_download_never_runs_the_folders_astro_cli(tmp_path: Path, workspace: Path, fake,
                                                              astro_env: dict[str, str]) -> None:
    """download_paper, with no --allow: the PDF's metadata is read in the bounded child."""
    from tests.research_server import ResearchServer

    marker = tmp_path / "ran-the-folders-code"
    _hostile_package(workspace, marker)
    server = ResearchServer()
    try:
        fake.add({"tool_calls": [{"name": "download_paper", "arguments": {"id": "arXiv:1001.0012"}}]},
                 {"text": "Downloaded."})
        done = subprocess.run([str(ASTRO), "run", "get 1001.0012"], cwd=workspace, env={**astro_env, **server.env()},
                              capture_output=True, text=True, timeout=300)
    finally:
        server.close()
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0, done.stderr
    assert (workspace / "papers" / "1001.0012.pdf").is_file()
    assert "error" not in fake.bodies()[1]["messages"][-1]["content"].lower()


def _starts_a_process(node: ast.Call) -> bool:
    func = node.func
    return isinstance(func, ast.Attribute) and func.attr in STARTERS


def _mentions_executable(node: ast.AST, tainted: set[str]) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in ("executable", "_base_executable") \
                and isinstance(sub.value, ast.Name) and sub.value.id == "sys":
            return True
        if isinstance(sub, ast.Name) and sub.id in tainted:
            return True
    return False


def _violations(source: str) -> list[int]:
    """Lines where a process is started with an argv built from sys.executable (directly, or through a
    name assigned from it in the same function)."""
    tree = ast.parse(source)
    found = []
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        tainted: set[str] = set()
        for node in ast.walk(scope):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None \
                    and _mentions_executable(node.value, tainted):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                tainted |= {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
        for node in ast.walk(scope):
            if isinstance(node, ast.Call) and _starts_a_process(node) \
                    and any(_mentions_executable(arg, tainted) for arg in [*node.args, *(k.value for k in node.keywords)]):
                found.append(node.lineno)
    return sorted(set(found))


def test_every_child_python_is_started_by_the_one_helper() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == HELPER:
            continue
        offenders += [f"{path.relative_to(PACKAGE.parent)}:{line}" for line in _violations(path.read_text())]
    assert not offenders, ("these start a Python child without security/children.py's python_child() "
                           f"(it would import the workspace's code): {offenders}")


def test_the_structure_check_catches_a_direct_start() -> None:
    """The check itself: the old spellings of bounded.py and reindex.py are caught."""
    direct = "import subprocess, sys\ndef f(m):\n    command = [sys.executable, '-m', m]\n    subprocess.run(command)\n"
    inline = "import subprocess, sys\nsubprocess.Popen([sys.executable, '-m', 'astro_cli'], cwd='.')\n"
    helper = ("import subprocess\nfrom astro_cli.security.children import python_child\n"
              "child = python_child('astro_cli', [], {})\nsubprocess.run(child.argv, cwd=child.cwd, env=child.env)\n")
    assert _violations(direct) == [4] and _violations(inline) == [2] and _violations(helper) == []
