"""Issue 42: choose the fusion (its lists, weights and constant) by measurement, not by guess.

    .venv/bin/python benchmarks/sweep_fusion.py [--dev-dir DIR] [--stages-dir DIR]

Every ranking list search_library fuses (BM25, the three-word runs, the vectors; with their
scores) is recorded once per question, then each fusion rule is replayed on the recorded lists:
reciprocal rank fusion with other constants and weights, and a section-path list search_library does
not fuse (extra_lists). Sets: CosmoPaperQA's development split (the library of
diagnose_cosmopaperqa.py; the judge is bench_cosmopaperqa.right), the project's question sets over
six papers (tests/question_set: tuning, held-out, new papers; literal and paraphrased, the question
alone as the command line asks it) and the tuning set over its own three papers. Replaying a rule costs
no search, so a grid of rules takes seconds; the rule chosen is then checked by the real benchmarks.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

Lists = dict[str, list[tuple[int, float]]]
Case = tuple[Lists, set[int]]


def extra_lists(library: Any, question: str, lists: Lists) -> Lists:
    """A list search_library does not fuse, made from the recorded candidates: the rarity of the
    question's words in each candidate's section path (tried in stop 50, not kept)."""
    from astro_cli.research.library.section_paths import section_paths
    from astro_cli.research.search.fts import parse_question
    from astro_cli.research.search.windows import idf, stem

    ids = sorted({cid for items in lists.values() for cid, _ in items})
    rows = library.store.hit_rows(ids)
    weights = idf(library.store.document_frequencies(parse_question(question).words), library.store.index_stamp()[1])
    paths: dict[str, dict[str, str]] = {}
    scored = []
    for r in rows:
        pid = r["paper_id"] or ""
        if pid not in paths:
            heads = [h for (h,) in library.store.db.execute(
                "SELECT DISTINCT section FROM chunks WHERE paper_id = ? ORDER BY ord", (pid,)).fetchall() if h]
            paths[pid] = section_paths(heads)
        have = {stem(w) for w in re.findall(r"[^\W_]+", paths[pid].get(r["section"] or "", r["section"] or ""))}
        score = sum(w for s, w in weights.items() if s in have)
        if score > 0:
            scored.append((r["id"], score))
    return {"path": sorted(scored, key=lambda p: (-p[1], p[0]))}


def record(library: Any, question: str) -> Lists:
    """The lists search_library fuses for one question (captured at its fusion step)."""
    from astro_cli.research.search import passages

    seen: list[Lists] = []
    original = passages._fused

    def spy(lib: Any, lists: Lists, k: int) -> list[tuple[int, float]]:
        seen.append({name: list(items) for name, items in lists.items()})
        return original(lib, lists, k)

    passages._fused = spy  # type: ignore[assignment]
    try:
        passages.search_library(library, question, k=10)
    finally:
        passages._fused = original  # type: ignore[assignment]
    return seen[0] if seen else {}


def rrf(lists: Lists, k: float, weights: dict[str, float]) -> list[int]:
    scores: dict[int, float] = {}
    literal: dict[int, int] = {}
    for name, items in lists.items():
        kind = name.split(":")[0]
        w = weights.get(kind, 1.0)
        for rank, (cid, _) in enumerate(items, 1):
            scores[cid] = scores.get(cid, 0.0) + w / (k + rank)
            if kind == "literal":
                literal.setdefault(cid, rank)
    return [cid for cid, _ in sorted(scores.items(), key=lambda p: (-round(p[1], 12), literal.get(p[0], 999), p[0]))]


def normalised(items: list[tuple[int, float]], how: str) -> dict[int, float]:
    """A list's own scores on [0, 1]: a list sure of its first (a wide gap) gives the rest little."""
    if not items:
        return {}
    scores = [s for _, s in items]
    high, low = max(scores), min(scores)
    if how == "max":
        return {cid: (s / high if high > 0 else 0.0) for cid, s in items}
    span = high - low
    return {cid: ((s - low) / span if span > 0 else 1.0) for cid, s in items}


def convex(lists: Lists, how: str, weights: dict[str, float]) -> list[int]:
    """Scores fused, not ranks: the sum of each list's normalised score times its kind's weight
    (a convex combination of BM25 and cosine when the weights of the kinds sum to one)."""
    total: dict[int, float] = {}
    for name, items in lists.items():
        w = weights.get(name.split(":")[0], 0.0)
        if not w:
            continue
        for cid, s in normalised(items, how).items():
            total[cid] = total.get(cid, 0.0) + w * s
    return [cid for cid, _ in sorted(total.items(), key=lambda p: (-round(p[1], 12), p[0]))]


def rrf_plus(lists: Lists, share: float) -> list[int]:
    """Today's rank fusion plus `share` of the scores' (min-max, vectors and BM25 alike, window at half)."""
    ranked = rrf(lists, 10, {"window": 0.5, "path": 0.0})
    rank_score = {cid: 0.0 for cid in ranked}
    for name, items in lists.items():
        w = {"window": 0.5, "path": 0.0}.get(name.split(":")[0], 1.0)
        for rank, (cid, _) in enumerate(items, 1):
            rank_score[cid] += w / (10 + rank)
    for name, items in lists.items():
        w = {"bm25": 0.5, "vector": 0.5, "window": 0.25}.get(name.split(":")[0], 0.0)
        for cid, s in normalised(items, "minmax").items():
            rank_score[cid] += share * w * s
    return [cid for cid, _ in sorted(rank_score.items(), key=lambda p: (-round(p[1], 12), p[0]))]


def rrf_confident(lists: Lists, c: float) -> list[int]:
    """Rank fusion where a list sure of its first few (a wide score gap from its 1st to its 5th) counts more."""
    scores: dict[int, float] = {}
    for name, items in lists.items():
        w = {"window": 0.5, "path": 0.0}.get(name.split(":")[0], 1.0)
        if len(items) >= 5 and items[0][1] > 0:
            w *= 1 + c * max(0.0, (items[0][1] - items[4][1]) / abs(items[0][1]))
        for rank, (cid, _) in enumerate(items, 1):
            scores[cid] = scores.get(cid, 0.0) + w / (10 + rank)
    return [cid for cid, _ in sorted(scores.items(), key=lambda p: (-round(p[1], 12), p[0]))]


def dev_cases(directory: Path) -> list[tuple[Lists, set[int]]]:
    from bench_cosmopaperqa import DATA, right

    from astro_cli.commands.library_context import library_app
    from astro_cli.research.library.service import Library

    os.environ.update(ASTRO_HOME=str(directory / "home"), ASTRO_WORKER="0",
                      ASTRO_LIBRARY_EMBEDDING_MODEL="local:all-MiniLM-L6-v2")
    os.chdir(directory / "ws")
    library = Library.of(library_app())
    cases = []
    for row in csv.DictReader((DATA / "dev.tsv").open(), delimiter="\t"):
        paper = "1807.06209" if "1807.06209" in row["source file "] else "2010.00619"
        lists = record(library, row["question"])
        lists.update(extra_lists(library, row["question"], lists))

        ids = sorted({cid for items in lists.values() for cid, _ in items})
        good = {r["id"] for r in library.store.hit_rows(ids) if r["paper_id"] == paper and right(r["text"], row)}
        cases.append((lists, good))
    return cases


def stage_cases(directory: Path) -> dict[str, list[tuple[Lists, set[int]]]]:
    from bench_search_stages import LOCAL, PAPERS

    from astro_cli.research.library.parse import parse_paper
    from astro_cli.research.library.service import Library
    from tests.library_support import add_paper, make_app
    from tests.question_set import HELDOUT, HELDOUT_PAPERS, QUESTIONS, _flat, load_questions

    fresh = not directory.exists()
    app = make_app(directory, **{"library.embedding_model": LOCAL})
    library = Library.of(app)
    if fresh:
        for paper_id in PAPERS:
            add_paper(app, paper_id)
            parse_paper(library, paper_id, vectors="now")
    out: dict[str, list[tuple[Lists, set[int]]]] = {}
    for name, path in (("tuning", QUESTIONS), ("held-out", HELDOUT), ("new papers", HELDOUT_PAPERS)):
        for q in load_questions(path):
            lists = record(library, q.question)
            lists.update(extra_lists(library, q.question, lists))

            ids = sorted({cid for items in lists.values() for cid, _ in items})
            wanted = [_flat(a) for a in q.answers]
            good = {r["id"] for r in library.store.hit_rows(ids) if any(a in _flat(r["text"]) for a in wanted)}
            out.setdefault(f"{name} {q.kind}", []).append((lists, good))
    return out


def three_cases(directory: Path) -> dict[str, list[Case]]:
    """The issue-15 tuning set over its three papers (what test_library_questions asserts)."""
    from astro_cli.research.library.parse import parse_paper
    from astro_cli.research.library.service import Library
    from tests.library_support import add_paper, make_app
    from tests.question_set import _flat, load_questions

    fresh = not directory.exists()
    app = make_app(directory, **{"library.embedding_model": "local:all-MiniLM-L6-v2"})
    library = Library.of(app)
    if fresh:
        for paper_id in ("1001.0012", "1111.2011", "1202.3665"):
            add_paper(app, paper_id)
            parse_paper(library, paper_id, vectors="now")
    out: dict[str, list[Case]] = {}
    for q in load_questions():
        lists = record(library, q.question)
        lists.update(extra_lists(library, q.question, lists))
        ids = sorted({cid for items in lists.values() for cid, _ in items})
        wanted = [_flat(a) for a in q.answers]
        good = {r["id"] for r in library.store.hit_rows(ids) if any(a in _flat(r["text"]) for a in wanted)}
        out.setdefault(f"three papers {q.kind}", []).append((lists, good))
    return out


def hits(cases: list[tuple[Lists, set[int]]], rule: Callable[[Lists], list[int]], top: int) -> int:
    return sum(1 for lists, good in cases if set(rule(lists)[:top]) & good)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dev-dir", type=Path, default=Path("/tmp/cosmopaperqa-diagnose"))
    parser.add_argument("--stages-dir", type=Path, default=Path("/tmp/astro-sweep-stages"))
    parser.add_argument("--three-dir", type=Path, default=Path("/tmp/astro-sweep-three"))
    parser.add_argument("--dev-only", action="store_true")
    parser.add_argument("--scores", action="store_true", help="fusion of normalised scores, not of ranks")
    parser.add_argument("--scores2", action="store_true", help="rank fusion helped by the lists' scores")
    args = parser.parse_args()
    stages = {} if args.dev_only else {**stage_cases(args.stages_dir), **three_cases(args.three_dir)}
    here = os.getcwd()
    dev = dev_cases(args.dev_dir)
    os.chdir(here)
    grid: list[tuple[str, Callable[[Lists], list[int]]]] = []
    for k in (60, 20, 10):
        for ww in (0.0, 0.5, 1.0, 1.5):
            for wp in (0.0, 0.3, 0.5, 1.0):
                for wv in (1.0, 0.7):
                    grid.append((f"rrf k={k} window={ww} path={wp} vector={wv}",
                                 lambda lists, k=k, ww=ww, wp=wp, wv=wv: rrf(lists, k, {"window": ww, "path": wp,
                                                                                        "vector": wv})))
    if args.scores:
        grid = [("rrf k=10 window=0.5 (today)", lambda lists: rrf(lists, 10, {"window": 0.5, "path": 0.0}))]
        for how in ("minmax", "max"):
            for wv in (0.3, 0.5, 0.7):
                for ww in (0.0, 0.5):
                    for wl in (0.0, 0.5):
                        weights = {"bm25": 1 - wv, "vector": wv, "window": ww * (1 - wv), "literal": wl * (1 - wv)}
                        grid.append((f"{how} vector={wv} window={ww} literal={wl}",
                                     lambda lists, h=how, w=weights: convex(lists, h, w)))
    if args.scores2:
        grid = [("rrf k=10 window=0.5 (today)", lambda lists: rrf(lists, 10, {"window": 0.5, "path": 0.0}))]
        for share in (0.05, 0.1, 0.2):
            grid.append((f"rrf + {share} x scores", lambda lists, v=share: rrf_plus(lists, v)))
        for c in (1.0, 2.0):
            grid.append((f"rrf, list weight x (1 + {c} x gap 1st-5th)", lambda lists, v=c: rrf_confident(lists, v)))
    print("rule | dev @1 @3 @10 | " + " | ".join(stages) + " (top 3)")
    for label, rule in grid:
        d = [hits(dev, rule, t) for t in (1, 3, 10)]
        s = [hits(c, rule, 3) for c in stages.values()]
        print(f"{label} | {d[0]} {d[1]} {d[2]} | " + " | ".join(f"{x}/{len(c)}" for x, c in zip(s, stages.values())),
              flush=True)


if __name__ == "__main__":
    main()
