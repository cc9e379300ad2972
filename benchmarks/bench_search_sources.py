"""CPU time of `astro search` against the stand-in services (tests/research_server.py), so the cost of
reading the sources from the registry (the features installed before the search) shows:
`python benchmarks/bench_search_sources.py [ASTRO_CLI_PARENT]`.

Runs `python -m astro_cli search testing --source arxiv --json` seven times in a child process and
prints the median CPU time of the child (user + system, from getrusage: the machine is shared, so
not wall time). ASTRO_CLI_PARENT, when given, is put first on PYTHONPATH (an older checkout to compare)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile

from tests.research_server import CLIENT_TIMEOUT, ResearchServer

COMMAND = ["search", "testing", "--source", "arxiv", "--json"]


def main(parent: str | None) -> None:
    server = ResearchServer()
    times = []
    try:
        with tempfile.TemporaryDirectory() as home:
            env = {**os.environ, **server.env(ASTRO_HTTP_TIMEOUT=CLIENT_TIMEOUT), "ASTRO_HOME": home}
            if parent:
                env["PYTHONPATH"] = parent
            for _ in range(7):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                done = subprocess.run([sys.executable, "-m", "astro_cli", *COMMAND], env=env, cwd=home,
                                      capture_output=True, text=True, check=False)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if done.returncode != 0:
                    raise SystemExit(done.stderr)
                times.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    finally:
        server.close()
    times.sort()
    print(f"astro {' '.join(COMMAND)}: CPU median {times[3]:.3f} s (min {times[0]:.3f}, max {times[-1]:.3f})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
