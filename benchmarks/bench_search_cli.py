"""Issue 30: `astro library search` as a researcher runs it (a new process each time) on a 20-paper library.

    .venv/bin/python benchmarks/bench_search_cli.py [--runs 5] [--warm] [--papers 20]

The library: the three fixture papers indexed with the local model's vectors, and 17 more papers
made of the same files under other ids, their vectors copied chunk by chunk (the same number of
chunks and vectors a real 20-paper library has, without 15 minutes of embedding). Times the whole
command, BM25 alone (library.embedding_model off) and hybrid (the default), median of --runs.
--warm: the same commands served by a warm worker started for the benchmark (`astro worker start`
in a runtime folder of its own; one search first, unmeasured, so the worker learns its modules),
and a check that it prints the same hits as the in-process search.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from astro_cli.research.library.parse import parse_paper  # noqa: E402
from astro_cli.research.library.service import Library  # noqa: E402
from tests.library_support import FILES, META, add_paper, make_app  # noqa: E402

QUESTION = "How much light do these close-in giants bounce back?"


def build(root: Path, papers: int = 20) -> int:
    app = make_app(root, **{"library.embedding_model": None})
    store = Library.of(app).store
    originals = ["1001.0012", "1111.2011", "1202.3665"]
    for paper_id in originals:
        add_paper(app, paper_id)
        parse_paper(Library.of(app), paper_id, vectors="now")
    for n in range(max(0, papers - len(originals))):
        source = originals[n % 3]
        key, path = FILES[source]
        target = app.workspace.papers_dir / f"copy{n}{path.suffix}"
        shutil.copyfile(path, target)
        new_id = f"copy{n}"
        meta = {k: v for k, v in META[source].items() if k not in ("arxiv_id", "bibcode", "doi", "url")}
        Library.of(app).upsert_paper({**meta, "id": new_id, key: str(target)})
        parse_paper(Library.of(app), new_id, vectors="none")
        vectors = {ord_: vec for ord_, _model, vec in store.vectors_of(source)}
        ids = store.chunk_ids(new_id)  # ord -> chunk id
        store.store_vectors([ids[o] for o in sorted(ids)], [vectors[o] for o in sorted(ids)], "local:all-MiniLM-L6-v2")
    count = store.chunk_count()
    app.close()
    return count


def search(root: Path, env: dict[str, str], question: str = QUESTION) -> str:
    done = subprocess.run([sys.executable, "-m", "astro_cli", "library", "search", question, "--json"],
                          cwd=root, env=env, capture_output=True, text=True, check=True)
    assert '"hits"' in done.stdout
    return done.stdout


def time_search(root: Path, env: dict[str, str], runs: int, question: str = QUESTION) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        search(root, env, question)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def warm(root: Path, env: dict[str, str], runs: int, question: str = QUESTION) -> None:
    runtime = Path(tempfile.mkdtemp(prefix="aw-", dir="/tmp"))
    on = {k: v for k, v in env.items() if k != "ASTRO_WORKER"}
    on["ASTRO_RUNTIME_DIR"] = str(runtime)
    astro = [sys.executable, "-m", "astro_cli"]
    try:
        subprocess.run([*astro, "worker", "start"], cwd=root, env=on, check=True, capture_output=True, timeout=300)
        for label, extra in (("BM25 (vectors off)", {"ASTRO_LIBRARY_EMBEDDING_MODEL": "off"}),
                             ("hybrid (default local model)", {})):
            same = search(root, {**on, **extra}, question) == search(root, {**env, **extra}, question)  # also the unmeasured first one
            median = time_search(root, {**on, **extra}, runs, question)
            print(f"astro library search through the warm worker, {label}: median {median:.2f} s"
                  f" (same hits as in-process: {'yes' if same else 'NO'})")
        status = subprocess.run([*astro, "worker", "status"], cwd=root, env=on, capture_output=True, text=True)
        print(status.stdout.strip())
    finally:
        subprocess.run([*astro, "worker", "stop"], cwd=root, env=on, capture_output=True, timeout=120)
        shutil.rmtree(runtime, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warm", action="store_true", help="also through a warm worker")
    parser.add_argument("--papers", type=int, default=20, help="papers in the library (3 fixtures, the rest copies)")
    parser.add_argument("--question", default=QUESTION, help="the question searched (default: the issue-30 one)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="astro-bench-cli-")) / "ws"
    try:
        chunks = build(root, args.papers)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ASTRO_")}
        env.update(ASTRO_HOME=str(root / ".home"), ASTRO_WORKER="0")
        print(f"command: .venv/bin/python benchmarks/bench_search_cli.py --runs {args.runs}"
              + (" --warm" if args.warm else "") + f" --papers {args.papers}"
              + (f" --question {args.question!r}" if args.question != QUESTION else ""))
        print(f"library: {max(args.papers, 3)} papers, {chunks} chunks; load average {os.getloadavg()[0]:.1f}")
        bm25 = time_search(root, {**env, "ASTRO_LIBRARY_EMBEDDING_MODEL": "off"}, args.runs, args.question)
        print(f"astro library search, BM25 (vectors off): median {bm25:.2f} s")
        hybrid = time_search(root, env, args.runs, args.question)
        print(f"astro library search, hybrid (default local model): median {hybrid:.2f} s")
        if args.warm:
            warm(root, env, args.runs, args.question)
        print(f"load average at the end {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
