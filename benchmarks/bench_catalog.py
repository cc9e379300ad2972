"""Issue 33: a 100,000-row catalogue result, written to disk and summarised for the model.

Builds a Gaia-like answer (source_id, designation, ra, dec, parallax and errors, proper motions,
G, BP-RP, radial velocity; 10% of parallaxes and 70% of radial velocities masked), serves it as a
TAP VOTable (BINARY2, as the Gaia archive sends) from a server on 127.0.0.1, and measures:
  - write: results.write of the table as ECSV (the default), FITS and CSV, median of 5, wall and CPU
    time (this machine is shared: CPU time is the figure load does not inflate);
  - summary: summary.summarize, its tokens (tiktoken cl100k_base, litellm's tokenizer);
  - end to end: run_query through pyvo (HTTP, VOTable parse, write, summary), median of 3;
  - memory: tracemalloc's peak during write + summary, against the table's own size.
Run: .venv/bin/python benchmarks/bench_catalog.py [--rows 100000]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def gaia_like(rows: int) -> Any:
    import numpy as np
    from astropy.table import MaskedColumn, Table

    rng = np.random.default_rng(33)
    ids = rng.integers(10**17, 7 * 10**18, rows, dtype=np.int64)
    table = Table()
    table["source_id"] = ids
    table["designation"] = [f"Gaia DR3 {i}" for i in ids]
    table["ra"] = rng.uniform(132.5, 133.2, rows)
    table["dec"] = rng.uniform(11.5, 12.2, rows)
    parallax = rng.normal(1.1, 0.6, rows)
    table["parallax"] = MaskedColumn(parallax, mask=rng.random(rows) < 0.1, unit="mas")
    table["parallax_error"] = MaskedColumn(np.abs(rng.normal(0.1, 0.05, rows)).astype("f4"),
                                           mask=table["parallax"].mask, unit="mas")
    table["pmra"] = MaskedColumn(rng.normal(-11, 2, rows), mask=table["parallax"].mask, unit="mas / yr")
    table["pmdec"] = MaskedColumn(rng.normal(-3, 2, rows), mask=table["parallax"].mask, unit="mas / yr")
    table["phot_g_mean_mag"] = rng.uniform(8, 21, rows).astype("f4")
    table["phot_g_mean_mag"].unit = "mag"
    table["bp_rp"] = MaskedColumn(rng.normal(1.2, 0.5, rows).astype("f4"), mask=rng.random(rows) < 0.05, unit="mag")
    table["radial_velocity"] = MaskedColumn(rng.normal(34, 5, rows).astype("f4"), mask=rng.random(rows) < 0.7,
                                            unit="km / s")
    return table


def votable_bytes(table: Any) -> bytes:
    from astropy.io.votable import from_table
    from astropy.io.votable.tree import Info

    votable = from_table(table)
    votable.resources[0].type = "results"
    votable.resources[0].infos.append(Info(name="QUERY_STATUS", value="OK"))
    votable.get_first_table().format = "binary2"
    out = io.BytesIO()
    votable.to_xml(out)
    return out.getvalue()


def serve(payload: bytes) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-votable+xml")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def tokens(text: str) -> int:
    from astro_cli.agent.tokens import _cl100k, estimate

    encoder = _cl100k()
    return len(encoder.encode(text)) if encoder is not None else estimate(text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    from astro_cli.catalog.results import CHUNK_ROWS, Provenance, write
    from astro_cli.catalog.summary import summarize
    from astro_cli.security.writer import Place

    table = gaia_like(args.rows)
    size_mb = sum(table[c].data.nbytes + getattr(table[c], "mask", table[c].data[:0]).nbytes
                  for c in table.colnames) / 1e6
    provenance = Provenance("gaia", "http://127.0.0.1/", "SELECT ...", "2026-01-01T00:00:00Z", len(table), False,
                            "Gaia DR3", "2023A&A...674A...1G")
    folder = Path(tempfile.mkdtemp(prefix="bench-catalog-"))
    print(f"rows: {len(table):,}, columns: {len(table.colnames)}, table in memory: {size_mb:.1f} MB; "
          f"load: {os.getloadavg()[0]:.2f} (1-minute), {os.cpu_count()} CPUs")
    for ext in (".ecsv", ".fits", ".csv"):
        times, cpu = [], []
        for _ in range(5):
            copy = table.copy()
            started, used = time.perf_counter(), time.process_time()
            path = write(copy, Place.of(folder, f"result{ext}"), provenance)
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - used)
        print(f"write {ext:6} wall median {statistics.median(times):.3f} s (min {min(times):.3f}, max {max(times):.3f}), "
              f"CPU median {statistics.median(cpu):.3f} s; {path.stat().st_size / 1e6:.1f} MB on disk")
    started = time.perf_counter()
    text = summarize(table, ["header line (file, query, citation)"])
    took = time.perf_counter() - started
    print(f"summary: {tokens(text)} tokens, {len(text)} characters, {took:.3f} s")
    copy = table.copy()
    tracemalloc.start()
    write(copy, Place.of(folder, "traced.ecsv"), provenance)
    summarize(table, ["header"])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"memory: tracemalloc peak of ECSV write + summary, beyond the table itself: {peak / 1e6:.1f} MB "
          f"({peak / 1e6 / size_mb:.2f}x the table; the rows are formatted {CHUNK_ROWS:,} at a time)")

    server = serve(votable_bytes(table))
    os.environ["ASTRO_HOME"] = str(folder / "home")
    os.environ["ASTRO_CATALOG_SERVICES"] = f'{{"gaia": {{"url": "http://127.0.0.1:{server.server_port}/gaia"}}}}'
    (folder / "project").mkdir()
    from astro_cli.bootstrap import build_app
    from astro_cli.catalog.run import Request, limits, run_query
    from astro_cli.catalog.services import service_named

    app = build_app(workspace=folder / "project")
    ends, cpu_ends = [], []
    for _ in range(3):
        started, used = time.perf_counter(), time.process_time()
        outcome = run_query(app, service_named(app.settings, "gaia"),
                            Request("gaia", adql="SELECT * FROM gaiadr3.gaia_source", max_rows=args.rows + 1),
                            limits(app), "astro-bench", lambda rel: Place.of(app.workspace.root, rel),
                            lambda path: True)
        ends.append(time.perf_counter() - started)
        cpu_ends.append(time.process_time() - used)
    print(f"end to end through pyvo (HTTP on 127.0.0.1, VOTable parse, ECSV write, summary): wall median "
          f"{statistics.median(ends):.2f} s (min {min(ends):.2f}), CPU median {statistics.median(cpu_ends):.2f} s; "
          f"{outcome.rows:,} rows, summary "
          f"{tokens(outcome.summary)} tokens")
    server.shutdown()
    app.close()


if __name__ == "__main__":
    main()
