"""Issue 42, stop 54: pseudo-relevance feedback and score fusion, tried beside main's ranking in process.

    .venv/bin/python benchmarks/sweep_feedback.py dev   --dir D VARIANT...
    .venv/bin/python benchmarks/sweep_feedback.py guard --dir G VARIANT...

D: a library built by `diagnose_cosmopaperqa.py --dir D --camels-md` (CosmoPaperQA's development split;
the judge is bench_cosmopaperqa.right). G: the project's six fixture papers with local vectors, as
bench_search_stages.build makes them (the question sets of tests/question_set, the question alone,
top 3). Each VARIANT is patched into passages.py for its run only (the same chunks and vectors):
  base                              main's ranking
  rm3:m=5,n=20,w=0.5[,min=1]        keyword feedback (RM3-style): the fused top m passages give their n most
                                    distinctive words that are not the question's (frequency there by
                                    1/rank, times the library's idf; in at least `min` of them); the
                                    passages holding any are one more BM25 list, fused at weight w
  roc:m=3,b=0.2,w=1 | ...,replace=1 vector feedback (Rocchio): the question's unit vector + b x the mean of
                                    the fused top m vectors, one more vector list at weight w, or
                                    replacing the question's vector list
  rm3+roc:m=5,n=20,w=0.5,mr=3,b=0.2,replace=1   both (mr: the passages of the vector feedback)
  score:norm=minmax|z,v=0.3         a convex combination of the lists' normalised scores instead of
                                    reciprocal rank fusion (v: the vector lists' share; a list that did
                                    not find a chunk gives it its lowest score)
SWEEP_KEYWORDS=1 searches by keywords alone (a library whose vectors are pending, or off).
Prints recall @1/@3/@10 (dev) or the four guard-rail counts, with each question that moved against the
first variant. Results: benchmarks/RESULTS.md "Stop 54 — retrieval". None of these is in astro.
"""

from __future__ import annotations

import csv
import math
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

CODE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(CODE))
sys.path.insert(0, str(CODE / "benchmarks"))
from astro_cli.research.search import passages  # noqa: E402
from astro_cli.research.search.fts import Match, parse_question  # noqa: E402
from astro_cli.research.search.windows import stem  # noqa: E402
from astro_cli.stopwords import STOPWORDS  # noqa: E402

CFG: dict = {"name": "base"}
SHIPPED = dict(passages.LIST_WEIGHTS)
LAST: dict = {}
_orig_text_ranking = passages.text_ranking
_orig_candidates = passages.candidate_lists
_orig_fused = passages._fused
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)


def rec_text_ranking(library, match, limit, paper_ids, exclude=()):
    LAST["paper_ids"], LAST["exclude"], LAST["limit"] = paper_ids, exclude, limit
    return _orig_text_ranking(library, match, limit, paper_ids, exclude)


def feedback_terms(library, phrasings, top, n, min_docs):
    store = library.store
    texts = store.chunk_texts(top)
    asked = {stem(w) for p in phrasings for w in parse_question(p).words}
    weight: Counter = Counter()
    docs: Counter = Counter()
    form: dict = {}
    for r, cid in enumerate(top, 1):
        words = [w.lower() for w in _WORD.findall(texts.get(cid, ""))]
        words = [w for w in words if w not in STOPWORDS and stem(w) not in asked]
        if not words:
            continue
        counts = Counter(stem(w) for w in words)
        for w in words:
            form.setdefault(stem(w), w)
        for s, c in counts.items():
            weight[s] += (1.0 / r) * c / len(words)
            docs[s] += 1
    cands = [s for s in weight if docs[s] >= min_docs]
    if not cands:
        return []
    df = store.document_frequencies([form[s] for s in cands])
    total = store.index_stamp()[1]
    scored = []
    for s in cands:
        d = df.get(form[s], 0)
        idf = math.log(1 + (total - d + 0.5) / (d + 0.5))
        scored.append((weight[s] * idf, form[s]))
    scored.sort(reverse=True)
    return [w for _, w in scored[:n]]


def patched_candidates(library, phrasings, lists):
    out = _orig_candidates(library, phrasings, lists)
    name = CFG["name"]
    if "rm3" not in name and "roc" not in name:
        return out
    every = {**lists, **out}
    m = max(int(CFG.get("m", 0)), int(CFG.get("mr", CFG.get("m", 0))))
    first = _orig_fused(library, every, m)
    ranked = [cid for cid, _ in first]
    if not ranked:
        return out
    if "rm3" in name:
        top = ranked[: int(CFG["m"])]
        terms = feedback_terms(library, phrasings, top, int(CFG["n"]), int(CFG.get("min", 1)))
        LAST.setdefault("terms", []).append(terms)
        if terms:
            ranking = _orig_text_ranking(library, Match(tuple((t,) for t in terms)), LAST["limit"],
                                         LAST["paper_ids"], LAST["exclude"])
            if ranking:
                out["bm25:rm3"] = ranking
    if "roc" not in name:
        return out
    top = ranked[: int(CFG.get("mr", CFG.get("m")))]
    import numpy as np

    from astro_cli.research.search.embed import embed_texts

    store = library.store
    model = library.embedding_model
    index = store.vector_index(model) if model else None
    if index is None:
        return out
    pos = {int(c): i for i, c in enumerate(index.chunk_ids)}
    rows = [pos[c] for c in top if c in pos]
    if not rows:
        return out
    (q,) = embed_texts(library, [phrasings[0]])
    q = np.asarray(q, dtype=np.float32)
    q /= np.linalg.norm(q) or 1.0
    moved = q + float(CFG["b"]) * index.matrix[rows].mean(axis=0)
    ranking = store.without_kinds(store.vector_ranking(model, moved.tolist(), LAST["limit"], LAST["paper_ids"]),
                                  LAST["exclude"])
    if CFG.get("replace"):
        lists.pop("vector", None)
        out["vector"] = ranking
    else:
        out["vector:rocchio"] = ranking
    return out


def _norm(ranking, how):
    scores = [s for _, s in ranking]
    if not scores:
        return {}
    if how == "minmax":
        lo, hi = min(scores), max(scores)
        return {c: (s - lo) / (hi - lo) if hi > lo else 1.0 for c, s in ranking}
    mu = statistics.fmean(scores)
    sd = statistics.pstdev(scores) or 1.0
    return {c: (s - mu) / sd for c, s in ranking}


def patched_fused(library, lists, k):
    if CFG["name"] != "score":
        return _orig_fused(library, lists, k)
    how, v = CFG.get("norm", "minmax"), float(CFG.get("v", 0.5))
    vec = [n for n in lists if n.startswith("vector")]
    key = [n for n in lists if not n.startswith("vector")]
    wsum = lambda names: sum(passages.LIST_WEIGHTS.get(n, 1.0) for n in names) or 1.0  # noqa: E731
    scores: dict = {}
    floor = {}
    for n in lists:
        normed = _norm(lists[n], how)
        share = (v / wsum(vec) if n in vec else (1 - v) / wsum(key)) if vec and key else 1.0 / wsum(lists)
        w = share * passages.LIST_WEIGHTS.get(n, 1.0)
        floor[n] = (w, min(normed.values()) if normed else 0.0)
        for c, s in normed.items():
            scores.setdefault(c, {})[n] = w * s
    total = {}
    for c, parts in scores.items():  # a list that did not find the chunk gives it that list's lowest score
        total[c] = sum(parts.get(n, floor[n][0] * floor[n][1]) for n in lists)
    return sorted(total.items(), key=lambda p: (-p[1], p[0]))[:k]


passages.text_ranking = rec_text_ranking
passages.candidate_lists = patched_candidates
passages._fused = patched_fused


def weigh():
    """The variant's list weight, over the weights the code ships (kept as they were at start)."""
    passages.LIST_WEIGHTS.clear()
    passages.LIST_WEIGHTS.update(SHIPPED)
    if "w" in CFG:
        passages.LIST_WEIGHTS["bm25:rm3" if "rm3" in CFG["name"] else "vector:rocchio"] = float(CFG["w"])


def select(spec):
    """Make `spec` the variant of the searches that follow."""
    CFG.clear()
    CFG.update(parse(spec))
    LAST.clear()
    weigh()


def parse(spec):
    name, _, rest = spec.partition(":")
    cfg = {"name": name}
    for part in filter(None, rest.split(",")):
        a, _, b = part.partition("=")
        cfg[a] = b
    return cfg


def run_dev(library, rows, right):
    at_all, times = [], []
    for row in rows:
        paper = "1807.06209" if "1807.06209" in row["source file "] else "2010.00619"
        t = time.process_time()
        result = library.search(row["question"], k=50)
        times.append(time.process_time() - t)
        at = next((r for r, h in enumerate(result.hits, 1) if h.source == paper and right(h.text, row)), None)
        at_all.append(at)
    got = [sum(1 for a in at_all if a and a <= k) for k in (1, 3, 10)]
    return f"{got[0]}/{got[1]}/{got[2]}", at_all, statistics.median(times)


def run_guard(library, sets, search_library, flat):
    out, per = [], {}
    for name, qs in sets:
        got: dict = {}
        for q in qs:
            result = search_library(library, q.question, k=3)
            wanted = [flat(a) for a in q.answers]
            ok = any(any(a in flat(h.text) for a in wanted) for h in result.hits[:3])
            per[(name, q.question)] = ok
            g = got.setdefault(q.kind, [0, 0])
            g[0] += ok
            g[1] += 1
        out.append((name, got))

    def tot(names, kind):
        a = sum(g[kind][0] for n, g in out if n in names)
        b = sum(g[kind][1] for n, g in out if n in names)
        return f"{a}/{b}"

    summary = (f"held-out lit {tot({'held-out', 'new papers'}, 'literal')}, para {tot({'held-out', 'new papers'}, 'paraphrased')}; "
               f"tuning lit {tot({'tuning'}, 'literal')}, para {tot({'tuning'}, 'paraphrased')}")
    return summary, per


def main():
    mode, rest = sys.argv[1], sys.argv[2:]
    if len(rest) < 2 or rest[0] != "--dir" or mode not in ("dev", "guard"):
        raise SystemExit("usage: sweep_feedback.py dev|guard --dir DIR VARIANT...")
    root, specs = Path(rest[1]), rest[2:]
    if mode == "dev":
        os.environ.update(ASTRO_HOME=str(root / "home"), ASTRO_WORKER="0",
                          ASTRO_LIBRARY_EMBEDDING_MODEL="off" if os.environ.get("SWEEP_KEYWORDS")
                          else "local:all-MiniLM-L6-v2")
        os.chdir(root / "ws")
        from bench_cosmopaperqa import DATA, right

        from astro_cli.commands.library_context import library_app
        from astro_cli.research.library.service import Library
        library = Library.of(library_app())
        rows = list(csv.DictReader((DATA / "dev.tsv").open(), delimiter="\t"))
        base = None
        for spec in specs:
            select(spec)
            summary, ats, med = run_dev(library, rows, right)
            base = base or ats
            moved = " ".join(f"Q{i+1} {b or '-'}->{a or '-'}" for i, (a, b) in enumerate(zip(ats, base)) if a != b)
            print(f"DEV {spec:40s} {summary}  cpu/q {med:.3f}s  moves: {moved}", flush=True)
    else:
        from bench_search_stages import LOCAL

        from astro_cli.research.library.service import Library
        from astro_cli.research.search.passages import search_library
        from tests.library_support import make_app
        from tests.question_set import HELDOUT, HELDOUT_PAPERS, QUESTIONS, _flat, load_questions
        model = "off" if os.environ.get("SWEEP_KEYWORDS") else LOCAL  # keywords alone: vectors pending or off
        library = Library.of(make_app(root, **{"library.embedding_model": model}))
        sets = [(n, load_questions(p)) for n, p in (("tuning", QUESTIONS), ("held-out", HELDOUT),
                                                     ("new papers", HELDOUT_PAPERS))]
        base = None
        for spec in specs:
            select(spec)
            summary, per = run_guard(library, sets, search_library, _flat)
            base = base or per
            moved = "; ".join(f"{'+' if per[q] else '-'}{q[0]}:{q[1][:50]}" for q in per if per[q] != base[q])
            print(f"GUARD {spec:40s} {summary}  moves: {moved}", flush=True)


if __name__ == "__main__":
    main()
