"""Issue 30: each search stage on the tuning set (issue 15's) and the held-out set, top-3 hit rates.

    .venv/bin/python benchmarks/bench_search_stages.py [--missed] [--hybrid-only] [--first-256]

Stages: BM25 and hybrid (the local MiniLM, the default since issue 30), each alone, with the ranking
of three-word runs (fts.literal_runs) and with the synonym table, for the question alone and through
rag_search with the model's second phrasing; and how often the answer is among the first 15
(rerank.POOL: what a re-ranking model reading them could reach at best). The tuning set is tests/fixtures/questions/library_questions.json (the synonym
table was written against it); the held-out set, heldout_questions.json, was written before any
search and never tuned on; heldout_papers_questions.json asks about three papers no stage was tuned
on. All six papers are in one library.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from astro_cli.research.library.parse import parse_paper  # noqa: E402
from astro_cli.research.library.service import Library  # noqa: E402
from astro_cli.research.search import embed  # noqa: E402
from astro_cli.research.search.passages import search_library  # noqa: E402
from astro_cli.research.search.rerank import POOL  # noqa: E402
from tests.library_support import add_paper, make_app  # noqa: E402
from tests.question_set import HELDOUT, HELDOUT_PAPERS, QUESTIONS, load_questions, score  # noqa: E402

# The three papers the tuning set asks about, and three no stage was tuned on (one library: every
# question is searched over all six papers).
PAPERS = ("1001.0012", "1111.2011", "1202.3665", "1604.08036", "1703.09710", "1905.09831")
LOCAL = "local:all-MiniLM-L6-v2"


def build(root: Path, **settings: object):  # noqa: ANN201
    app = make_app(root, **settings)
    for paper_id in PAPERS:
        add_paper(app, paper_id)
        parse_paper(Library.of(app), paper_id, vectors="now")
    return app


def report(label: str, app, sets: dict, search, top: int = 3) -> None:  # noqa: ANN001
    cells = []
    for name, questions in sets.items():
        for kind in ("literal", "paraphrased"):
            chosen = [q for q in questions if q.kind == kind]
            result = score(chosen, lambda q: search(app, q), top=top)
            cells.append(f"{name} {kind} {result.found}/{result.total}")
            if "--missed" in sys.argv and result.missed:
                cells.append("  missed: " + " | ".join(result.missed))
    print(f"{label}{'' if top == 3 else f' (answer in the top {top})'}: " + "; ".join(cells), flush=True)


def main() -> None:
    sets = {"tuning": load_questions(QUESTIONS), "held-out": load_questions(HELDOUT),
            "new papers": load_questions(HELDOUT_PAPERS)}
    root = Path(tempfile.mkdtemp(prefix="astro-bench-stages-"))
    print("command: .venv/bin/python benchmarks/bench_search_stages.py " + " ".join(sys.argv[1:]))
    try:
        configurations = [("bm25", {"library.embedding_model": "off"}), ("hybrid", {"library.embedding_model": LOCAL})]
        if "--hybrid-only" in sys.argv:
            configurations = configurations[1:]
        if "--first-256" in sys.argv:  # vectors of each chunk's first 256 tokens, as before issue 30's change
            embed.WHOLE_PASSAGES = False
        for label, settings in configurations:
            began = time.perf_counter()
            app = build(root / label, **settings)
            print(f"{label}: indexed in {time.perf_counter() - began:.1f} s", flush=True)
            for synonyms, runs in ((False, False), (False, True), (True, True)):
                tag = f"{label}{' + literal runs' if runs else ''}{' + synonyms' if synonyms else ''}"
                report(f"{tag}, the question alone", app, sets,
                       lambda a, q, s=synonyms, r=runs: search_library(Library.of(a), q.question, k=3, synonyms=s,
                                                                        literal_runs=r).hits)
                report(f"{tag}, rag_search with the model's second phrasing", app, sets,
                       lambda a, q, s=synonyms, r=runs: search_library(
                           Library.of(a), [q.question, q.second] if q.second else q.question, k=3, synonyms=s,
                           literal_runs=r).hits)
            # What a re-ranker reading the first POOL candidates could reach at best (rerank.py).
            report(f"{label} + literal runs, the question alone", app, sets,
                   lambda a, q: search_library(Library.of(a), q.question, k=POOL).hits, top=POOL)
            report(f"{label} + literal runs, rag_search with the model's second phrasing", app, sets,
                   lambda a, q: search_library(Library.of(a), [q.question, q.second] if q.second else q.question,
                                               k=POOL).hits, top=POOL)
            app.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
