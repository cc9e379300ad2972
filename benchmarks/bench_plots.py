"""Issue 33: plot_table on a 100,000-row catalogue table, and what astro's start pays for matplotlib.

    .venv/bin/python benchmarks/bench_plots.py [--rows N] [--runs N]

A synthetic Gaia-like ECSV (ra, dec, bp_rp, phot_g_mean_mag, parallax with units; 2% of bp_rp masked)
is written to a temporary workspace; plot_table runs in-process through its tool function for each
kind, `--runs` times; the medians are printed, with the time to read the table alone and CPU time.
Each kind draws past plots.max_points (20,000): the CMD and scatter as a density map, the sky as a
random sample. Then `astro --version` and building the app with every feature installed are checked
to import neither matplotlib nor PIL (matplotlib is imported by the first plot only).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import median_of  # noqa: E402

KINDS = [
    {"kind": "cmd"},
    {"kind": "sky"},
    {"kind": "histogram", "x": "phot_g_mean_mag"},
    {"kind": "scatter", "x": "bp_rp", "y": "phot_g_mean_mag + 5*log10(parallax/100)"},
]


def write_table(path: Path, rows: int) -> None:
    import numpy as np
    from astropy import units as u
    from astropy.table import MaskedColumn, Table

    rng = np.random.default_rng(33)
    colour = rng.normal(1.0, 0.4, rows)
    table = Table()
    table["ra"] = rng.uniform(0, 360, rows) * u.deg
    table["dec"] = np.degrees(np.arcsin(rng.uniform(-1, 1, rows))) * u.deg
    table["bp_rp"] = MaskedColumn(colour, unit=u.mag, mask=rng.random(rows) < 0.02)
    table["phot_g_mean_mag"] = (12 + 2.5 * colour + rng.normal(0, 1.5, rows)) * u.mag
    table["parallax"] = rng.lognormal(0, 0.7, rows) * u.mas
    table.write(path, format="ascii.ecsv")


def measure(rows: int, runs: int) -> None:
    from astro_cli.bootstrap import build_app
    from astro_cli.tools.context import ToolContext
    from astro_cli.tools.table_read import read_table

    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "ws"
        (workspace / "data").mkdir(parents=True)
        os.environ["ASTRO_HOME"] = str(Path(tmp) / "home")
        table = workspace / "data" / "big.ecsv"
        write_table(table, rows)
        print(f"table: {rows:,} rows, {table.stat().st_size / 1e6:.1f} MB ECSV")
        reads = []
        for _ in range(runs):
            started = time.perf_counter()
            read_table(table, "data/big.ecsv")
            reads.append(time.perf_counter() - started)
        print(f"read the table alone: median {median_of(reads):.2f} s")
        app = build_app(workspace=workspace).install_features()
        ctx = ToolContext(app=app, session_id="bench")
        plot_table = app.tools.get("plot_table")
        assert plot_table is not None
        for args in KINDS:
            walls, cpus, content = [], [], ""
            for _ in range(runs):
                cpu, started = time.process_time(), time.perf_counter()
                result = plot_table.run(ctx, {"table": "data/big.ecsv", "output": f"{args['kind']}.png", **args})
                assert not isinstance(result, str)
                walls.append(time.perf_counter() - started)
                cpus.append(time.process_time() - cpu)
                content = result.content
            mode = result.data["mode"] if not isinstance(result, str) and result.data else "?"
            print(f"{args['kind']:>9}: median {median_of(walls):.2f} s wall, {median_of(cpus):.2f} s CPU ({mode}); "
                  f"{content.splitlines()[2]}")
        app.close()


def startup_imports() -> None:
    code = ("import sys, tempfile, os; from pathlib import Path; from astro_cli.bootstrap import build_app; "
            "d = tempfile.mkdtemp(); os.environ['ASTRO_HOME'] = d + '/home'; "
            "build_app(workspace=Path(d)).install_features(); "
            "print('matplotlib' in sys.modules, 'PIL' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    print(f"app built with every feature: matplotlib imported, PIL imported = {out.stdout.strip()}")
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "astro_cli", "--version"], capture_output=True,
                         text=True, check=True)
    print(f"`astro --version` imports matplotlib: {'matplotlib' in out.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f}")
    measure(options.rows, options.runs)
    startup_imports()
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
