"""Starting astro's own Python children, isolated from the workspace's code.

`python -m astro_cli.x` started in the workspace puts the workspace first on `sys.path`: a folder
that ships `astro_cli/__init__.py` (or a `json.py`) would run its code, outside any sandbox and
with no trust asked, the moment astro reads a paper. So every Python child astro starts (the
bounded readers, the background reindex, the warm worker) comes from `python_child()`:

- `sys.executable -I`: no current folder or script folder on `sys.path`, no user site, and every
  `PYTHON*` variable ignored; the environment it gets holds none either (they would reach the
  child's own children). The warm worker is the one twin of its client (`twin=True`): same flags
  and path, but also started from `/`;
- run from `/`, a folder outside any workspace: it gets its paths as absolute arguments (and the
  workspace as `ASTRO_WORKSPACE` where it needs one);
- astro_cli is found where this process found it: its folder goes on `sys.path` only when an
  isolated interpreter would not find that same astro_cli by itself.

tests/security/test_security_children.py parses astro_cli and fails when a child Python starts another way.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

CHILD_CWD = "/"
# Run in the isolated child: take the package folder and module from argv; put that folder first on
# sys.path only when the isolated interpreter would find another astro_cli (or none) without it;
# then run the module as `python -m` would (sys.argv[0] becomes its file).
_BOOTSTRAP = (
    "import importlib.util, os, runpy, sys; root, module = sys.argv[1:3]; sys.argv = [module, *sys.argv[3:]]; "
    "spec = importlib.util.find_spec('astro_cli'); "
    "found = spec is not None and spec.origin and os.path.dirname(os.path.dirname(spec.origin)); "
    "found == root or sys.path.insert(0, root); "
    "runpy.run_module(module, run_name='__main__', alter_sys=True)"
)


@dataclass(frozen=True)
class ChildCommand:
    """What to hand subprocess: `argv`, `cwd` and `env`, all three."""

    argv: list[str]
    cwd: str
    env: dict[str, str]


def package_folder() -> str:
    """The folder that holds the astro_cli this process runs."""
    return str(Path(__file__).resolve().parents[2])


def child_environment(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without PYTHON* variables (PYTHONPATH, PYTHONSTARTUP, PYTHONHOME, ...)."""
    return {name: value for name, value in env.items() if not name.upper().startswith("PYTHON")}


def python_child(module: str, args: Sequence[str], env: Mapping[str, str], twin: bool = False) -> ChildCommand:
    """`python -m module args...` from `/`, isolated from the workspace (paths in `args` must be absolute).

    `twin`: the warm worker, whose forks must behave as the `astro run` that asks them would. It takes
    this interpreter's flags and sys.path (from `env`'s PYTHON* variables, the user's own, as the client
    does) instead of `-I`; `-m` run from `/` puts `/`, not the workspace, first on its sys.path.
    """
    if twin:
        return ChildCommand([sys.executable, "-m", module, *args], CHILD_CWD, dict(env))
    argv = [sys.executable, "-I", "-c", _BOOTSTRAP, package_folder(), module, *args]
    return ChildCommand(argv, CHILD_CWD, child_environment(env))


def workspace_environment(env: Mapping[str, str], workspace: Path) -> dict[str, str]:
    """`env` naming the workspace for a child that runs astro itself (it runs from `/`, not there)."""
    return {**env, "ASTRO_WORKSPACE": str(workspace.resolve())}

