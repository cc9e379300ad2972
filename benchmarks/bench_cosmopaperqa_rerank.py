"""Issue 42: re-ranking (`library.rerank`) on CosmoPaperQA's development split, with the local model.

    .venv/bin/python benchmarks/bench_cosmopaperqa_rerank.py [--dir DIR] [--every 4] [--threads 2]

The library of diagnose_cosmopaperqa.py (both papers, vectors made; built there first), each chosen
question searched in this process for rerank.POOL candidates, then rerank.rerank with astro's own
model call to Qwen2.5-Coder-1.5B on llama.cpp's server (benchmarks/local_model_setup.py, cache
ASTRO_BENCH_CACHE). A subset, every Nth question from the first, chosen before any was run: the whole
split costs more machine time than a shared machine allows. Reports @1/@3 before and after, the
questions that moved, and the seconds and tokens of each re-ranking request.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cosmopaperqa import DATA, right  # noqa: E402
from diagnose_cosmopaperqa import build  # noqa: E402

from benchmarks.local_model_setup import DEFAULT_CACHE, LocalServer, install  # noqa: E402

MODEL_NAME = "openai/qwen2.5-coder-1.5b-instruct"


def at(hits: list, paper: str, row: dict[str, str]) -> int | None:  # noqa: ANN001
    return next((n for n, hit in enumerate(hits, 1) if hit.source == paper and right(hit.text, row)), None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", type=Path, default=Path("/tmp/cosmopaperqa-diagnose"))
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    print("command: .venv/bin/python benchmarks/bench_cosmopaperqa_rerank.py " + " ".join(sys.argv[1:]), flush=True)
    env = build(args.dir, keywords=False)
    installed = install(args.cache, log=lambda line: print(line, flush=True))
    with LocalServer(installed, args.ctx, args.threads, args.dir / "server.log") as server:
        os.environ.update(env)
        os.environ.update(ASTRO_API_KEY="sk-local", LITELLM_LOCAL_MODEL_COST_MAP="True", ASTRO_MODEL=MODEL_NAME,
                          ASTRO_API_BASE=server.url + "/v1", ASTRO_MAX_TOKENS="256")
        os.chdir(args.dir / "ws")
        run(args.every)


def run(every: int) -> None:
    from astro_cli.agent.factory import resolve_model
    from astro_cli.commands.library_context import library_app
    from astro_cli.litellm_model.adapter import LLM
    from astro_cli.research.library.service import Library
    from astro_cli.research.search.passages import search_library
    from astro_cli.research.search.rerank import POOL, rerank

    app = library_app()
    llm = LLM(resolve_model(app))
    library = Library.of(app)
    seconds: list[float] = []
    tokens: list[int] = []

    def complete(messages):  # noqa: ANN001, ANN202 - rerank.Complete
        began = time.perf_counter()
        reply = llm.complete(messages)
        seconds.append(time.perf_counter() - began)
        tokens.append(int(getattr(reply.usage, "input_tokens", 0) or 0))
        return reply.text or "", reply.usage

    rows = list(csv.DictReader((DATA / "dev.tsv").open(), delimiter="\t"))
    counts = {"before@1": 0, "before@3": 0, "after@1": 0, "after@3": 0}
    chosen = list(range(0, len(rows), every))
    for n in chosen:
        row = rows[n]
        paper = "1807.06209" if "1807.06209" in row["source file "] else "2010.00619"
        hits = search_library(library, row["question"], k=POOL).hits
        reranked = rerank(complete, [row["question"]], hits, POOL)
        was, now = at(hits, paper, row), at(reranked.hits, paper, row)
        for name, rank in (("before", was), ("after", now)):
            counts[f"{name}@1"] += bool(rank and rank <= 1)
            counts[f"{name}@3"] += bool(rank and rank <= 3)
        print(f"Q{n + 1}: rank {was} -> {now} ({seconds[-1] if seconds else 0:.0f} s)"
              f"{' ' + reranked.note if reranked.note else ''}", flush=True)
    total = len(chosen)
    print(f"{total} questions: @1 {counts['before@1']}/{total} -> {counts['after@1']}/{total}, "
          f"@3 {counts['before@3']}/{total} -> {counts['after@3']}/{total}")
    if seconds:
        print(f"re-ranking requests: {len(seconds)}, median {statistics.median(seconds):.1f} s, max {max(seconds):.1f} s,"
              f" input tokens median {statistics.median(tokens):.0f}", flush=True)


if __name__ == "__main__":
    main()
