"""Issue 47: a 1,000,000-row result through an asynchronous TAP job, with the real `astro` process.

The TAP stand-in of the tests (tests/catalog_server.py, its UWS job list) serves a Gaia-like
answer of --rows rows (bench_catalog.gaia_like: 11 columns, masks, BINARY2 VOTable as the Gaia
archive sends); `astro catalog query gaia ... --async -n ROWS --json` creates the job, waits,
fetches, writes ECSV and summarises. Measured per run, from getrusage of the astro process: wall
time, CPU (user + sys: the figure load does not inflate) and peak RSS; the file's size; that the job
was deleted. Run: .venv/bin/python benchmarks/bench_catalog_async.py [--rows 1000000] [--runs 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    from benchmarks.bench_catalog import gaia_like, votable_bytes
    from tests.catalog_server import CatalogServer
    from tests.conftest import base_env

    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    started = time.monotonic()
    body = votable_bytes(gaia_like(args.rows))
    print(f"answer: {args.rows:,} rows, {len(body) / 1e6:.1f} MB of VOTable (built in "
          f"{time.monotonic() - started:.1f} s)")
    server = CatalogServer()
    walls, cpus, rss = [], [], []
    try:
        for run in range(args.runs):
            folder = Path(tempfile.mkdtemp(prefix="bench-async-"))
            env = {**base_env(folder), **server.env(), "ASTRO_CATALOG_TIMEOUT": "600"}
            server.answer("gaia", body)
            began = time.monotonic()
            proc = subprocess.Popen([sys.executable, "-m", "astro_cli", "catalog", "query", "gaia",
                                     "SELECT * FROM gaiadr3.gaia_source", "--async", "-n", str(args.rows),
                                     "--json", "--save-as", "big"], env=env, cwd=folder,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            out, err = proc.communicate()
            wall = time.monotonic() - began
            if proc.returncode != 0:
                raise SystemExit(f"astro failed: {err.strip()}")
            payload = json.loads(out)
            usage = _children_usage()
            walls.append(wall)
            cpus.append(usage[0])
            rss.append(usage[1])
            size = (folder / payload["path"]).stat().st_size
            print(f"run {run + 1}: {payload['rows']:,} rows in {wall:.1f} s wall, {usage[0]:.1f} s CPU, peak RSS "
                  f"{usage[1]:.0f} MB; {payload['path']} {size / 1e6:.1f} MB; jobs left on the service: "
                  f"{len(server.jobs)}")
    finally:
        server.close()
    print(f"median of {args.runs}: wall {statistics.median(walls):.1f} s, CPU {statistics.median(cpus):.1f} s, "
          f"peak RSS {statistics.median(rss):.0f} MB; load {os.getloadavg()[0]:.1f}")


_seen = [0.0, 0.0]


def _children_usage() -> tuple[float, float]:
    """(CPU seconds, peak RSS in MB) of the last child, from the cumulative children's figures."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    last = cpu - _seen[0]
    _seen[0] = cpu
    return last, usage.ru_maxrss / 1024  # ru_maxrss: the largest child's, in kB on Linux


if __name__ == "__main__":
    main()
