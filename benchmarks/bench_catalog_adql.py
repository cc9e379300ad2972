"""Issue 47 (stop 50): the real `astro` process against the tests' TAP service that executes ADQL
(tests/adql_server.py: queryparser's ADQL parser, SQLite underneath), not a replay.

1. cross-match: 300 targets in the workspace's data/targets.csv uploaded as TAP_UPLOAD.targets and
   joined within 1" against a Gaia-like table (tests/gaia_field.py: a 0.4" source beside 200 of the
   targets, a 2" one beside all 300, --field more anywhere on the sky); checked: exactly the 200 right pairs.
2. an asynchronous job of --rows rows (bench_catalog.gaia_like: 11 columns, masks) `SELECT * FROM
   gaiadr3.gaia_source` through UWS; checked: every row in the file, the job deleted.
astro's figures are getrusage of the astro process (CPU user + sys, peak RSS); the service runs in this
process's threads, so its work (the SQLite join, the VOTable) is in the wall time but not in astro's CPU.
Run: .venv/bin/python benchmarks/bench_catalog_adql.py [--rows 1000000] [--field 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CROSSMATCH = ("SELECT g.source_id, t.name, DISTANCE(POINT('ICRS', g.ra, g.dec), POINT('ICRS', t.ra, t.dec)) * 3600 "
              "AS sep FROM gaiadr3.gaia_source AS g JOIN TAP_UPLOAD.targets AS t ON 1 = CONTAINS(POINT('ICRS', g.ra, "
              "g.dec), CIRCLE('ICRS', t.ra, t.dec, 1/3600.))")
_seen = [0.0]


def astro(args: list[str], env: dict[str, str], folder: Path) -> tuple[dict[str, object], float, float, float]:
    """Run astro; its JSON, wall seconds, CPU seconds and the largest child's peak RSS (MB)."""
    began = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "astro_cli", *args], env=env, cwd=folder, capture_output=True,
                          text=True, check=False)
    wall = time.monotonic() - began
    if proc.returncode != 0:
        raise SystemExit(f"astro failed: {proc.stderr.strip()}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    last, _seen[0] = cpu - _seen[0], cpu
    return json.loads(proc.stdout), wall, last, usage.ru_maxrss / 1024


def main() -> None:
    from astropy.table import Table

    from benchmarks.bench_catalog import gaia_like
    from tests.adql_server import AdqlServer
    from tests.conftest import base_env
    from tests.gaia_field import crossmatch_field, gaia_table

    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--field", type=int, default=20_000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-adql-"))
    (folder / "ws").mkdir()
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")

    server = AdqlServer(folder / "tap")
    try:
        env = {**base_env(folder), "ASTRO_CATALOG_TIMEOUT": "1800",
               "ASTRO_CATALOG_SERVICES": json.dumps({"gaia": server.service_entry("gaia")})}
        field = crossmatch_field(folder / "ws", 300, args.field)
        server.engine.add_table("gaiadr3.gaia_source", gaia_table(field["points"]))
        payload, wall, cpu, rss = astro(["catalog", "query", "gaia", CROSSMATCH, "--upload", "data/targets.csv",
                                         "--json", "--save-as", "xmatch"], env, folder / "ws")
        table = Table.read(folder / "ws" / str(payload["path"]))
        right = dict(zip(table["name"], table["source_id"].tolist())) == field["expected"]
        print(f"cross-match: 300 targets x {len(field['points']):,} rows: {len(table)} pairs (right: {right}) in "
              f"{wall:.1f} s wall, of which the service {sum(server.busy):.1f} s; astro {cpu:.1f} s CPU, peak RSS "
              f"{rss:.0f} MB; load {os.getloadavg()[0]:.1f}")
    finally:
        server.close()

    server = AdqlServer(folder / "tap-big")
    try:
        env["ASTRO_CATALOG_SERVICES"] = json.dumps({"gaia": server.service_entry("gaia")})
        began = time.monotonic()
        server.engine.add_table("gaiadr3.gaia_source", gaia_like(args.rows))
        print(f"{args.rows:,} rows stored in the service's SQLite in {time.monotonic() - began:.1f} s")
        payload, wall, cpu, rss = astro(["catalog", "query", "gaia", "SELECT * FROM gaiadr3.gaia_source", "--async",
                                         "-n", str(args.rows), "--json", "--save-as", "big"], env, folder / "ws")
        size = (folder / "ws" / str(payload["path"])).stat().st_size
        print(f"async job: {payload['rows']:,} rows in {wall:.1f} s wall, of which the service "
              f"{sum(server.busy):.1f} s; astro {cpu:.1f} s CPU, peak RSS {rss:.0f} "
              f"MB; {payload['path']} {size / 1e6:.1f} MB; jobs left on the service: {len(server.jobs)}; "
              f"load {os.getloadavg()[0]:.1f}")
    finally:
        server.close()


if __name__ == "__main__":
    main()
