"""Stop 42: the cost of reading what a hook or MCP server runs, and of starting an isolated child.

`.venv/bin/python -m benchmarks.bench_children` from the repository: (1) `python3 -m astro_cli` as an MCP
server with this repository as the workspace (a 400-file package, the worst case at hand): reading the
paths it runs (security/command_files.py) and fingerprinting them (executed.file_contents); (2) starting
a bounded reader the old way (`python -m` from the current folder) and through `python_child()`.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from astro_cli.security.children import python_child
from astro_cli.security.command_files import argv_files
from astro_cli.security.executed import file_contents


def files_cost(root: Path, runs: int = 7) -> str:
    reads, digests = [], []
    count = 0
    for _ in range(runs):
        start = time.perf_counter()
        found = argv_files(["python3", "-m", "astro_cli"], root)
        middle = time.perf_counter()
        file_contents(found.files, root)
        reads.append(middle - start)
        digests.append(time.perf_counter() - middle)
        count = len(found.files)
    return (f"{count} paths: read median {statistics.median(reads) * 1000:.0f} ms, "
            f"fingerprint median {statistics.median(digests) * 1000:.0f} ms")


def child_cost(runs: int = 9) -> str:
    module, args = "astro_cli.research.text.pdf_worker", ["--help"]
    child = python_child(module, args, os.environ)

    def clock(argv: list[str], cwd: str, env: dict[str, str]) -> float:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
            times.append(time.perf_counter() - start)
        return statistics.median(times) * 1000

    old = clock([sys.executable, "-m", module, *args], os.getcwd(), dict(os.environ))  # the old way, measured
    new = clock(child.argv, child.cwd, child.env)
    return f"start a reader: old `python -m` {old:.0f} ms, python_child {new:.0f} ms (medians)"


if __name__ == "__main__":
    print(files_cost(Path(".").resolve()))
    print(child_cost())
