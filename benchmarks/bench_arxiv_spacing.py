"""Issue 30: the spacing arXiv sees between requests from several astro processes started together.

Starts the stand-in arXiv (tests/research_server.py) and `processes` x `astro search testing
--source arxiv` at once with arxiv.min_interval=3, several rounds; prints every gap between request
arrivals at the server (not the gaps astro believes it left).

    .venv/bin/python -m benchmarks.bench_arxiv_spacing [processes] [rounds]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.research_server import ResearchServer


def one_round(server: ResearchServer, processes: int, home: Path, workspace: Path) -> list[float]:
    before = len(server.hits("/api/query"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTRO_")}
    env.update(server.env(ASTRO_ARXIV_MIN_INTERVAL="3", ASTRO_HTTP_TIMEOUT="20", ASTRO_HOME=str(home),
                          ASTRO_WORKER="0", NO_COLOR="1"))
    command = [sys.executable, "-m", "astro_cli", "search", "testing", "--source", "arxiv", "--json"]
    started = [subprocess.Popen(command, env=env, cwd=workspace, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL) for _ in range(processes)]
    for process in started:
        process.wait(timeout=300)
    times = sorted(r.at for r in server.hits("/api/query")[before:])
    return [b - a for a, b in zip(times, times[1:])]


def main() -> None:
    processes = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    server = ResearchServer()
    gaps: list[float] = []
    try:
        with tempfile.TemporaryDirectory() as folder:
            for _ in range(rounds):
                gaps += one_round(server, processes, Path(folder) / "home", Path(folder))
    finally:
        server.close()
    print(f"{processes} processes x {rounds} rounds, arxiv.min_interval=3: {len(gaps)} gaps at the server")
    print("gaps (s): " + ", ".join(f"{g:.3f}" for g in gaps))
    print(f"min {min(gaps):.3f}  median {statistics.median(gaps):.3f}  max {max(gaps):.3f}  "
          f"under 3 s: {sum(g < 3.0 for g in gaps)}/{len(gaps)}")


if __name__ == "__main__":
    main()
