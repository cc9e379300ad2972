"""Issue 9: paper indexing throughput and rag_search latency over a library of 100,000 chunks.

    .venv/bin/python benchmarks/bench_library.py [--chunks 100000] [--runs 5] [--query-runs 5]

1. Indexing: parse_paper (PDF text with PDFium, sections, chunks, one transaction into SQLite and
   its FTS5 index) on the two real PDFs of tests/fixtures/papers (12 + 8 pages), forced each run;
   pages per second from the median run. The LaTeX source (emcee) is timed the same way.
2. Search: a throw-away workspace with N chunks synthesized from the fixture texts (runs of real
   sentences of the three papers, recombined, ~library.chunk_chars each, 100 per synthetic paper),
   bulk-inserted through the real schema (triggers fill the FTS5 index). Then the real
   search_library (the code behind rag_search and `astro library search`) answers twelve questions
   about the papers, --query-runs times each: median and 95th percentile, all papers and with a
   one-paper filter. Wall time and the process's CPU time are both reported (the machine is shared).
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from astro_cli.research.library.parse import parse_paper  # noqa: E402
from astro_cli.research.library.service import Library  # noqa: E402
from astro_cli.research.search.passages import search_library  # noqa: E402
from tests.library_support import add_paper, make_app  # noqa: E402

QUESTIONS = [
    "How does the radiative time scale with temperature compared to the advective time?",
    "Which planets are the two biggest outliers in day-side temperature?",
    "what acceptance fraction should the sampler have",
    "Bond albedo of hot Jupiters from optical secondary eclipses",
    "heat redistribution efficiency and stratospheric temperature inversions",
    "autocorrelation time of the ensemble sampler",
    "stretch move affine invariant",
    "critical exponents of the quantum rotor model on a Bethe lattice",
    "night-side effective temperature from thermal phase variations",
    "Spitzer eclipse depths at 3.6 micron",
    "how many walkers should I use",
    "upper critical dimension",
]


def timed(fn) -> tuple[float, float]:  # noqa: ANN001
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def bench_indexing(root: Path, runs: int) -> dict[str, float]:
    app = make_app(root / "index")
    for paper_id in ("1001.0012", "1111.2011", "1202.3665"):
        add_paper(app, paper_id)
    pdf_walls, pdf_cpus, tex_walls = [], [], []
    pages = 12 + 8
    for _ in range(runs):
        wall_a, cpu_a = timed(lambda: parse_paper(Library.of(app), "1001.0012", force=True))
        wall_b, cpu_b = timed(lambda: parse_paper(Library.of(app), "1111.2011", force=True))
        pdf_walls.append(wall_a + wall_b)
        pdf_cpus.append(cpu_a + cpu_b)
        tex_walls.append(timed(lambda: parse_paper(Library.of(app), "1202.3665", force=True))[0])
    corpus = [row["text"] for row in app.db.query("SELECT text FROM chunks ORDER BY paper_id, ord")]
    app.close()
    wall, cpu = statistics.median(pdf_walls), statistics.median(pdf_cpus)
    return {"pages": pages, "pdf_wall": wall, "pdf_cpu": cpu, "pages_per_s": pages / wall,
            "pages_per_cpu_s": pages / cpu, "tex_wall": statistics.median(tex_walls), "corpus": corpus}


def synthesize(corpus: list[str], count: int, size: int, seed: int = 9) -> list[str]:
    """Chunks made of runs of real sentences from the fixture papers, recombined at random."""
    sentences = [s.strip() for text in corpus for s in re.split(r"(?<=[.!?])\s+", text) if len(s.strip()) > 20]
    rng = random.Random(seed)
    chunks = []
    for _ in range(count):
        parts, length = [], 0
        while length < size * 0.8:
            start = rng.randrange(len(sentences))
            run = sentences[start : start + rng.randint(1, 4)]
            parts.extend(run)
            length += sum(len(s) + 1 for s in run)
        chunks.append(" ".join(parts)[: size + 200])
    return chunks


def build_library(root: Path, chunks: list[str]) -> tuple[object, float]:
    app = make_app(root / "big")
    db = app.db
    per_paper = 100
    started = time.perf_counter()
    with db.lock:
        db.execute("BEGIN IMMEDIATE")
        papers = [(f"synth.{n:05d}", f"synth.{n:05d}", f"Synthetic paper {n}", "2026-01-01T00:00:00+00:00")
                  for n in range(len(chunks) // per_paper + 1)]
        db.db.conn.executemany("INSERT INTO papers (id, arxiv_id, title, added_at) VALUES (?, ?, ?, ?)", papers)
        db.db.conn.executemany(
            "INSERT INTO chunks (paper_id, section, page, ord, text) VALUES (?, ?, ?, ?, ?)",
            [(f"synth.{n // per_paper:05d}", f"{(n % per_paper) // 10 + 1} Section", (n % per_paper) // 8 + 1,
              n % per_paper, text) for n, text in enumerate(chunks)],
        )
        db.execute("COMMIT")
    return app, time.perf_counter() - started


def bench_search(app, runs: int, papers: list[str] | None) -> dict[str, float]:  # noqa: ANN001
    """First pass: each question new (its words' document frequencies are looked up). Then --query-runs
    passes: the steady state of a session, where those counts are cached until the index changes."""
    first, walls, cpus, found = [], [], [], 0
    for question in QUESTIONS:
        first.append(timed(lambda q=question: search_library(Library.of(app), q, k=8, papers=papers))[0] * 1000)
    for _ in range(runs):
        for question in QUESTIONS:
            wall, cpu = timed(lambda q=question: search_library(Library.of(app), q, k=8, papers=papers))
            walls.append(wall * 1000)
            cpus.append(cpu * 1000)
    for question in QUESTIONS:
        found += bool(search_library(Library.of(app), question, k=8, papers=papers).hits)
    walls.sort()
    return {"first": statistics.median(first), "median": statistics.median(walls),
            "p95": walls[int(len(walls) * 0.95) - 1], "cpu_median": statistics.median(cpus), "answered": found,
            "n": len(walls)}


def bench_fused(app, runs: int) -> dict[str, float]:  # noqa: ANN001
    """rag_search with two phrasings (the paraphrased questions of the issue-15 set and the second
    phrasing a model adds): three BM25 rankings (each phrasing, and both together) fused."""
    from tests.question_set import load_questions

    pairs = [[q.question, q.second] for q in load_questions() if q.second]
    for pair in pairs:  # first pass: word frequencies looked up and cached, as in a session
        search_library(Library.of(app), pair, k=8)
    walls = []
    for _ in range(runs):
        for pair in pairs:
            walls.append(timed(lambda p=pair: search_library(Library.of(app), p, k=8))[0] * 1000)
    walls.sort()
    return {"median": statistics.median(walls), "p95": walls[int(len(walls) * 0.95) - 1], "n": len(walls)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5, help="indexing runs")
    parser.add_argument("--query-runs", type=int, default=5, help="passes over the twelve questions")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="astro-bench-library-"))
    try:
        index = bench_indexing(root, args.runs)
        chunks = synthesize(index["corpus"], args.chunks, 1500)
        app, build = build_library(root, chunks)
        size_mb = (app.workspace.db_path.stat().st_size) / 1e6
        everything = bench_search(app, args.query_runs, None)
        one_paper = bench_search(app, args.query_runs, ["synth.00042"])
        fused = bench_fused(app, args.query_runs)
        app.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    command = (f".venv/bin/python benchmarks/bench_library.py --chunks {args.chunks} --runs {args.runs} "
               f"--query-runs {args.query_runs}")
    print(f"command: {command}")
    print(f"indexing, 2 real PDFs ({index['pages']} pages), median of {args.runs}: "
          f"{index['pdf_wall']:.3f} s wall = {index['pages_per_s']:.0f} pages/s "
          f"({index['pages_per_cpu_s']:.0f} pages per CPU-second)")
    print(f"indexing, emcee LaTeX source (41 kB), median of {args.runs}: {index['tex_wall'] * 1000:.0f} ms")
    print(f"library: {args.chunks:,} synthesized chunks, bulk insert + FTS5 index {build:.1f} s "
          f"({args.chunks / build:,.0f} chunks/s), database {size_mb:.0f} MB")
    for label, stats in (("all papers", everything), ("one-paper filter", one_paper)):
        print(f"rag_search, {label}, {stats['n']} queries: median {stats['median']:.1f} ms, "
              f"p95 {stats['p95']:.1f} ms, CPU median {stats['cpu_median']:.1f} ms; first time each question: "
              f"median {stats['first']:.1f} ms ({stats['answered']}/{len(QUESTIONS)} questions returned passages)")
    print(f"rag_search, two phrasings fused, {fused['n']} queries: median {fused['median']:.1f} ms, "
          f"p95 {fused['p95']:.1f} ms")


if __name__ == "__main__":
    main()
