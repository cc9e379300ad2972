"""Issue 30: each search stage on the tuning set (issue 15's) and the held-out set, top-3 hit rates.

    .venv/bin/python benchmarks/bench_search_stages.py

Stages: BM25; BM25 with the synonym table; hybrid (the local MiniLM, the default since issue 30);
hybrid with synonyms; and through rag_search the model's second phrasing (and its hypothetical
passage, HyDE). The tuning set is tests/fixtures/questions/library_questions.json (the synonym
table was written against it); the held-out set, heldout_questions.json, was written before any
search and never tuned on.
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
from astro_cli.research.search.passages import search_library  # noqa: E402
from tests.library_support import add_paper, make_app  # noqa: E402
from tests.question_set import HELDOUT, QUESTIONS, load_questions, score  # noqa: E402

PAPERS = ("1001.0012", "1111.2011", "1202.3665")
LOCAL = "local:all-MiniLM-L6-v2"


def build(root: Path, **settings: object):  # noqa: ANN201
    app = make_app(root, **settings)
    for paper_id in PAPERS:
        add_paper(app, paper_id)
        parse_paper(Library.of(app), paper_id, vectors="now")
    return app


def report(label: str, app, sets: dict, search) -> None:  # noqa: ANN001
    cells = []
    for name, questions in sets.items():
        for kind in ("literal", "paraphrased"):
            chosen = [q for q in questions if q.kind == kind]
            result = score(chosen, lambda q: search(app, q))
            cells.append(f"{name} {kind} {result.found}/{result.total}")
            if "--missed" in sys.argv and result.missed:
                cells.append("  missed: " + " | ".join(result.missed))
    print(f"{label}: " + "; ".join(cells), flush=True)


def main() -> None:
    sets = {"tuning": load_questions(QUESTIONS), "held-out": load_questions(HELDOUT)}
    root = Path(tempfile.mkdtemp(prefix="astro-bench-stages-"))
    print("command: .venv/bin/python benchmarks/bench_search_stages.py")
    try:
        for label, settings in (("bm25", {"library.embedding_model": "off"}), ("hybrid", {"library.embedding_model": LOCAL})):
            began = time.perf_counter()
            app = build(root / label, **settings)
            print(f"{label}: indexed in {time.perf_counter() - began:.1f} s", flush=True)
            for synonyms in (False, True):
                tag = f"{label}{' + synonyms' if synonyms else ''}"
                report(f"{tag}, the question alone", app, sets,
                       lambda a, q, s=synonyms: search_library(Library.of(a), q.question, k=3, synonyms=s).hits)
                report(f"{tag}, rag_search with the model's second phrasing", app, sets,
                       lambda a, q, s=synonyms: search_library(Library.of(a), [q.question, q.second] if q.second else q.question,
                                                               k=3, synonyms=s).hits)
            app.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
