"""Issue 20: the group library on PostgreSQL. Indexing, bulk loading, search under concurrency, and ten
people adding papers at once.

    .venv/bin/python benchmarks/bench_group_library.py [--chunks 100000] [--runs 5] [--query-runs 3]

A throw-away PostgreSQL server (the system's binaries, durable settings: fsync on) on 127.0.0.1,
started and removed by the script (tests/pg_cluster.py).
1. Indexing: parse_paper on the three fixture papers (two PDFs, the emcee LaTeX), forced each run,
   into PostgreSQL and into SQLite; medians.
2. Bulk load: N chunks synthesized from the fixture texts (as bench_library.py does), 100 per
   synthetic paper, COPY'd into `chunks` (the tsvector column and its GIN index fill as they go),
   then VACUUM ANALYZE; time, rows and megabytes.
3. Search: the real search_library (rag_search's code) answering twelve questions about the papers,
   with 1 client and with 10 clients at once (10 processes, each its own connection); the first pass
   of each client warms its word-frequency cache (as a session does), then --query-runs passes are
   timed: median and 95th percentile of every query.
4. Ten `astro library add` processes at once (the real command, parse included), against the arXiv
   stand-in of tests/research_server.py: the same paper ten times, then ten different papers (the
   fixture PDFs served under ten ids). Rows, chunks, wall time and exit codes.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from astro_cli.research.library.service import Library  # noqa: E402
from benchmarks.bench_library import QUESTIONS, synthesize  # noqa: E402
from tests.library_support import add_paper, make_app  # noqa: E402
from tests.pg_cluster import Cluster, system_bindir  # noqa: E402
from tests.pg_support import MEMBER, MEMBER_PASSWORD, member_url, new_database, pg_app  # noqa: E402

PAPERS = ("1001.0012", "1111.2011", "1202.3665")


def bench_indexing(root: Path, url: str, runs: int) -> dict[str, float]:
    from astro_cli.research.library.parse import parse_paper

    out = {}
    for name, app in (("sqlite", make_app(root / "index-sqlite")), ("postgresql", pg_app(root / "index-pg", url))):
        for paper_id in PAPERS:
            add_paper(app, paper_id)
        walls = []
        for _ in range(runs):
            started = time.perf_counter()
            for paper_id in PAPERS:
                parse_paper(Library.of(app), paper_id, force=True)
            walls.append(time.perf_counter() - started)
        out[name] = statistics.median(walls)
        if name == "postgresql":
            out["corpus"] = [r["text"] for p in PAPERS for r in app_store(app).chunks_of(p)]
        app.close()
    return out


def app_store(app):  # noqa: ANN001, ANN201
    return Library.of(app).store


def bulk_load(url: str, chunks: list[str]) -> dict[str, float]:
    import psycopg

    per_paper = 100
    started = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        from astro_cli.research.library.storage import pg_schema

        pg_schema.migrate(conn)
        with conn.transaction(), conn.cursor() as cursor:
            with cursor.copy("COPY papers (id, arxiv_id, title, added_at, added_by) FROM STDIN") as copy:
                for n in range(len(chunks) // per_paper + 1):
                    copy.write_row((f"synth.{n:05d}", f"synth.{n:05d}", f"Synthetic paper {n}",
                                    "2026-01-01T00:00:00+00:00", "bench"))
            with cursor.copy("COPY chunks (paper_id, section, page, ord, text) FROM STDIN") as copy:
                for n, text in enumerate(chunks):
                    copy.write_row((f"synth.{n // per_paper:05d}", f"{(n % per_paper) // 10 + 1} Section",
                                    (n % per_paper) // 8 + 1, n % per_paper, text))
        loaded = time.perf_counter() - started
        conn.execute("VACUUM ANALYZE chunks")
        conn.execute("VACUUM ANALYZE papers")
        total = time.perf_counter() - started
        sizes = conn.execute(
            "SELECT pg_total_relation_size('chunks'), pg_relation_size('chunks_tsv'), "
            "pg_database_size(current_database())").fetchone()
    return {"load": loaded, "total": total, "chunks_mb": sizes[0] / 1e6, "gin_mb": sizes[1] / 1e6,
            "database_mb": sizes[2] / 1e6, "rows": len(chunks)}


def _client(args: tuple[str, str, int, int]) -> list[float]:
    """One member's process: a warm-up pass, then `runs` timed passes over the questions (ms)."""
    url, root, runs, start_at = args
    from astro_cli.research.search.passages import search_library

    app = pg_app(Path(root), url)
    for question in QUESTIONS:  # word frequencies looked up once, as in a session
        search_library(Library.of(app), question, k=8)
    while time.time() < start_at:  # all clients start their timed passes together
        time.sleep(0.005)
    times = []
    for _ in range(runs):
        for question in QUESTIONS:
            started = time.perf_counter()
            search_library(Library.of(app), question, k=8)
            times.append((time.perf_counter() - started) * 1000)
    app.close()
    return times


def bench_search(url: str, root: Path, clients: int, runs: int) -> dict[str, float]:
    start_at = time.time() + 8 + clients  # after every client has connected and warmed up
    jobs = [(url, str(root / f"client{n}"), runs, start_at) for n in range(clients)]
    with multiprocessing.get_context("spawn").Pool(clients) as pool:
        results = pool.map(_client, jobs)
    times = sorted(t for result in results for t in result)
    return {"median": statistics.median(times), "p95": times[int(len(times) * 0.95) - 1], "n": len(times)}


def bench_adds(url: str, root: Path, ids: list[str]) -> dict[str, float]:
    """Ten real `astro library add` processes at once, each in its own workspace (a member)."""
    from tests.conftest import base_env
    from tests.research_server import ResearchServer

    server = ResearchServer()
    for paper_id in set(ids):
        server.pdfs.setdefault(paper_id, server.pdfs["1001.0012" if hash(paper_id) % 2 else "1111.2011"])
    procs = []
    started = time.perf_counter()
    for n, paper_id in enumerate(ids):
        workspace = root / f"member{n}"
        workspace.mkdir(parents=True, exist_ok=True)
        env = {**base_env(root / f"home{n}"), **server.env(), "ASTRO_LIBRARY_URL": url,
               "ASTRO_LIBRARY_MEMBER": f"member{n}", "PGPASSWORD": MEMBER_PASSWORD}
        env = {k: v for k, v in env.items() if k != "ASTRO_HOME"} | {"ASTRO_HOME": str(root / f"home{n}")}
        procs.append(subprocess.Popen([sys.executable, "-m", "astro_cli", "library", "add", paper_id, "--no-source"],
                                      cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    outputs = [p.communicate(timeout=600) for p in procs]
    wall = time.perf_counter() - started
    server.close()
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT count(*) FROM papers WHERE id = ANY(%s)", (list(set(ids)),)).fetchone()[0]
        chunks = conn.execute("SELECT count(*) FROM chunks WHERE paper_id = ANY(%s)", (list(set(ids)),)).fetchone()[0]
        dupes = conn.execute("SELECT count(*) FROM (SELECT paper_id, ord FROM chunks GROUP BY 1, 2 HAVING count(*) > 1) d"
                             ).fetchone()[0]
    failed = [(p.returncode, err.strip().splitlines()[-1:]) for p, (_out, err) in zip(procs, outputs) if p.returncode]
    return {"wall": wall, "rows": rows, "chunks": chunks, "duplicates": dupes, "failed": failed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5, help="indexing runs")
    parser.add_argument("--query-runs", type=int, default=3, help="timed passes over the twelve questions per client")
    args = parser.parse_args()
    bindir = system_bindir()
    if bindir is None:
        sys.exit("PostgreSQL's binaries are not installed (apt-get install postgresql).")
    root = Path(tempfile.mkdtemp(prefix="astro-bench-group-"))
    cluster = Cluster(bindir, durable=True).start()
    try:
        cluster.create_role(MEMBER, MEMBER_PASSWORD)
        version = cluster.admin("SHOW server_version")[0][0]
        index = bench_indexing(root, member_url(cluster, new_database(cluster)), args.runs)
        big = member_url(cluster, new_database(cluster))
        load = bulk_load(big, synthesize(index["corpus"], args.chunks, 1500))
        one = bench_search(big, root / "one", 1, args.query_runs)
        ten = bench_search(big, root / "ten", 10, args.query_runs)
        adds = member_url(cluster, new_database(cluster))
        same = bench_adds(adds, root / "same", ["1001.0012"] * 10)
        different = bench_adds(adds, root / "different", [f"2601.{n:05d}" for n in range(10)])
    finally:
        cluster.remove()
    print(f"command: .venv/bin/python benchmarks/bench_group_library.py --chunks {args.chunks} --runs {args.runs} "
          f"--query-runs {args.query_runs}   (PostgreSQL {version}, {os.cpu_count()} cores)")
    print(f"indexing the three fixture papers (two PDFs, one LaTeX), median of {args.runs}: "
          f"PostgreSQL {index['postgresql']:.2f} s, SQLite {index['sqlite']:.2f} s")
    print(f"bulk load: {load['rows']:,} chunks by COPY {load['load']:.1f} s ({load['rows'] / load['load']:,.0f} chunks/s), "
          f"with VACUUM ANALYZE {load['total']:.1f} s; chunks table {load['chunks_mb']:.0f} MB "
          f"(GIN index {load['gin_mb']:.0f} MB), database {load['database_mb']:.0f} MB")
    for label, stats in (("1 client", one), ("10 clients at once", ten)):
        print(f"search, {label}, {stats['n']} queries: median {stats['median']:.1f} ms, p95 {stats['p95']:.1f} ms")
    for label, stats in (("the same paper", same), ("ten different papers", different)):
        print(f"10 x `astro library add` of {label}: {stats['wall']:.1f} s wall, {stats['rows']} row(s), "
              f"{stats['chunks']} chunks, {stats['duplicates']} duplicated chunk(s), failures: {stats['failed'] or 'none'}")


if __name__ == "__main__":
    main()
