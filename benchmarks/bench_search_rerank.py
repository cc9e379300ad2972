"""Issue 30: what re-ranking by a real model (`library.rerank`) does to rag_search's top 3. Opt-in.

    .venv/bin/python benchmarks/bench_search_rerank.py [--threads 2] [--ctx 8192] [--sets held-out,new papers]
        [--kinds paraphrased,literal] [--limit N]

The six fixture papers in one hybrid library (as bench_search_stages.py builds it); for each question of
the held-out sets, rag_search's candidates (the question and its second phrasing, the first
rerank.POOL passages), then rerank.rerank with a `complete` that is astro's own model call (agent.model.open_model
through litellm) to Qwen2.5-Coder-1.5B on llama.cpp's server (benchmarks/local_model_setup.py: the same
install and cache as bench_local_model.py). Reports the top-3 hit rate before and after, the questions
that moved, and the time per re-ranking request. A 1.5B model is the weakest a session would use: a
lower bound for what the session's own model does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_search_stages import LOCAL, build  # noqa: E402
from benchmarks.local_model_setup import DEFAULT_CACHE, LocalServer, install  # noqa: E402
from tests.question_set import HELDOUT, HELDOUT_PAPERS, QUESTIONS, answered, load_questions  # noqa: E402

MODEL_NAME = "openai/qwen2.5-coder-1.5b-instruct"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--sets", default="held-out,new papers")
    parser.add_argument("--kinds", default="paraphrased,literal")
    parser.add_argument("--limit", type=int, default=0, help="at most this many questions per set and kind")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    os.environ.update(ASTRO_API_KEY="sk-local", LITELLM_LOCAL_MODEL_COST_MAP="True")
    all_sets = {"tuning": QUESTIONS, "held-out": HELDOUT, "new papers": HELDOUT_PAPERS}
    sets = {name: load_questions(all_sets[name]) for name in args.sets.split(",")}
    kinds = args.kinds.split(",")
    print("command: .venv/bin/python benchmarks/bench_search_rerank.py " + " ".join(sys.argv[1:]), flush=True)
    installed = install(args.cache, log=lambda line: print(line, flush=True))
    root = Path(tempfile.mkdtemp(prefix="astro-bench-rerank-"))
    try:
        with LocalServer(installed, args.ctx, args.threads, root / "server.log") as server:
            run(root, server.url, sets, kinds, args.limit)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run(root: Path, url: str, sets: dict, kinds: list[str], limit: int) -> None:
    from astro_cli.agent.factory import resolve_model
    from astro_cli.litellm_model.adapter import LLM
    from astro_cli.research.library.service import Library
    from astro_cli.research.search.passages import search_library
    from astro_cli.research.search.rerank import POOL, rerank

    app = build(root / "hybrid", **{"library.embedding_model": LOCAL, "model": MODEL_NAME, "api_base": url + "/v1",
                                    "max_tokens": 256})
    llm = LLM(resolve_model(app))
    seconds: list[float] = []

    def complete(messages):  # noqa: ANN001, ANN202 - rerank.Complete
        began = time.perf_counter()
        reply = llm.complete(messages)
        seconds.append(time.perf_counter() - began)
        return reply.text or "", reply.usage

    for name, questions in sets.items():
        for kind in kinds:
            chosen = [q for q in questions if q.kind == kind][: limit or None]
            before = after = 0
            for q in chosen:
                phrasings = [q.question, q.second] if q.second else [q.question]
                hits = search_library(Library.of(app), phrasings, k=POOL).hits
                reranked = rerank(complete, phrasings, hits, 3)
                was, now = answered(hits, q, top=3), answered(reranked.hits, q, top=3)
                before, after = before + was, after + now
                if was != now or reranked.note:
                    print(f"  {'gained' if now else 'lost' if was else 'unchanged'}: {q.question}"
                          f"{' (' + reranked.note + ')' if reranked.note else ''}", flush=True)
            print(f"{name} {kind}: top 3 {before}/{len(chosen)} -> re-ranked {after}/{len(chosen)}", flush=True)
    if seconds:
        print(f"re-ranking requests: {len(seconds)}, median {statistics.median(seconds):.1f} s, "
              f"max {max(seconds):.1f} s", flush=True)
    app.close()


if __name__ == "__main__":
    main()
