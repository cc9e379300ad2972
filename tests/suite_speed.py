"""How the suite spends less machine time without testing less (issue 26); conftest.py calls both.

- `cache_bytecode`: the suite starts a few hundred Python processes running the same code (`astro`,
  its workers, MCP servers, the PDF reader). With PYTHONDONTWRITEBYTECODE set, as in many containers,
  each of them compiles astro_cli's modules from source again (~0.4 CPU-s a cold `astro run`, a
  tenth of it). The suite keeps the compiled files in a cache folder of its own instead
  (PYTHONPYCACHEPREFIX), so the source tree and the tests' workspaces stay free of __pycache__,
  as whoever set the variable wanted.
- `heavy_first`: with `--dist worksteal` each xdist worker starts on half of the collected tests,
  in order, and a worker that runs out takes the back half of the other's queue. A long test that
  starts near the end leaves the other core idle while it runs. Modules that start real processes
  or terminals run first, so the run ends on short in-process tests and both cores finish
  together. Each module stays in one piece and in its own order, so module-scoped fixtures are
  still set up once.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Relative cost of a test by the tier tests/markers.py put it in, measured per test (CPU-s of the
# test and the processes it started; benchmarks/RESULTS.md, issue 26): a test that starts `astro`
# through a terminal or by itself costs most, one that runs in-process least.
TIER_COST = {"pty": 8.0, "heavy": 8.0, "subprocess": 3.0, "slow": 3.0, "postgres": 1.0}
IN_PROCESS_COST = 0.2


def cache_bytecode(rootdir: Path) -> None:
    """Let this process and every Python process the tests start keep compiled bytecode, in a
    cache folder under .pytest_cache, when PYTHONDONTWRITEBYTECODE turned it off."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return  # Python keeps bytecode as usual (or PYTHONPYCACHEPREFIX already says where)
    prefix = Path(os.environ.get("PYTHONPYCACHEPREFIX") or rootdir / ".pytest_cache" / "pycache")
    try:
        prefix.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # a read-only checkout: compile every time, as before
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    sys.pycache_prefix = str(prefix)
    sys.dont_write_bytecode = False


def estimated_cost(item: pytest.Item) -> float:
    """The estimated cost of one test, from its markers."""
    marks = {mark.name for mark in item.iter_markers()}
    return max((cost for tier, cost in TIER_COST.items() if tier in marks), default=IN_PROCESS_COST)


def heavy_first(items: list[pytest.Item]) -> None:
    """Reorder `items` in place: whole modules, the costliest first; ties keep the collected order."""
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    ranked = sorted(modules.values(), key=lambda module: -sum(estimated_cost(item) for item in module))
    items[:] = [item for module in ranked for item in module]
