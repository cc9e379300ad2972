"""Small helpers shared by the benchmark scripts: medians of whole-process runs."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASTRO = [sys.executable, "-m", "astro_cli"]


def timed_run(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[float, str]:
    started = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr[-500:]}")
    return elapsed, out.stdout


def median_of(values: list[float]) -> float:
    return statistics.median(values)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without the user's ASTRO_* settings; runs stay in-process (no warm worker)
    unless a benchmark turns it on (bench_oneshot.py)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTRO_")}
    env["ASTRO_WORKER"] = "0"
    env.update(extra)
    return env
