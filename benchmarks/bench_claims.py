"""Issue 43: are claims checked as quantities? The labelled set of benchmarks/data/claims_set.json.

    .venv/bin/python benchmarks/bench_claims.py              # the development half
    .venv/bin/python benchmarks/bench_claims.py --held-out   # the held-out half (measured once)
    .venv/bin/python benchmarks/bench_claims.py --timing     # CPU of the cheap check of a new 1,000-word answer
    .venv/bin/python benchmarks/bench_claims.py --probes     # stop 50's paraphrases of the development half
    .venv/bin/python benchmarks/bench_claims.py --claims benchmarks/data/claims_set_52.json --held-out   # stop 52's set
    .venv/bin/python benchmarks/bench_claims.py --claims benchmarks/data/claims_set_53.json --held-out   # stop 53's set (held out)
    .venv/bin/python benchmarks/bench_claims.py --probes benchmarks/data/claims_probes_kinds.json  # stop 52's kinds
    .venv/bin/python benchmarks/bench_claims.py --probes benchmarks/data/claims_probes_bounds.json  # stop 53's bounds

Each claim is checked alone, as a one-sentence answer, against a ledger that took in the passages the set
lists (framed as get_paper_content frames them, read back by the real ledger). Reported: unsupported claims
called supported (target 0), faithful claims flagged (target at most 1 per 20), uncited literature claims
not reported (target 0).
"""

from __future__ import annotations

import argparse
import html
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from astro_cli.citations.check import check_answer  # noqa: E402
from astro_cli.citations.grounding import ground  # noqa: E402
from astro_cli.citations.ledger import CitationLedger  # noqa: E402
from astro_cli.research.records import PaperRef, Passage  # noqa: E402
from tests.library_support import make_app  # noqa: E402

SET = ROOT / "benchmarks" / "data" / "claims_set.json"
PROBES = ROOT / "benchmarks" / "data" / "claims_probes.json"
SET52 = ROOT / "benchmarks" / "data" / "claims_set_52.json"


def ledger_of(data: dict[str, object], papers: list[str]) -> CitationLedger:
    ledger = CitationLedger()
    ledger.loaded = True
    passages: dict[str, str] = data["passages"]  # type: ignore[assignment]
    for paper in papers:
        shown = [(h, text) for h, text in passages.items() if h.split(":")[0] == paper]
        frames = [f'<paper-text source="{paper}" handle="{html.escape(h)}">\n{text}\n</paper-text>' for h, text in shown]
        records = [Passage(h, PaperRef(paper, arxiv_id=paper), text).as_dict() for h, text in shown]
        ledger.ingest("get_paper_content", {"id": paper}, "\n\n".join(frames),
                      {"sources": [{"id": paper, "arxiv_id": paper}], "passages": records}, True)
    return ledger


def status_of(app: object, ledger: CitationLedger, text: str) -> tuple[str, str]:
    checked = check_answer(app, ledger, text, False, 0.0)  # type: ignore[arg-type]
    grounding = ground(ledger, text, checked)
    if not grounding.claims:
        return "none", ""
    first = grounding.claims[0]
    return first.status, first.reason


def measure(app: object, data: dict[str, object], papers: list[str]) -> dict[str, object]:
    ledger = ledger_of(data, papers)
    items = [c for c in data["claims"] if c["paper"] in papers]  # type: ignore[union-attr,index]
    false_supported, flagged, missed, faithful, uncited_total, changed = [], [], [], 0, 0, 0
    for item in items:
        status, reason = status_of(app, ledger, item["claim"])
        if item["label"] == "supported":
            faithful += 1
            if status != "supported":
                flagged.append((item["kind"], status, reason, item["claim"]))
        elif item["label"] == "unsupported":
            changed += 1
            if status == "supported":
                false_supported.append((item["kind"], item["claim"]))
        elif item["label"] == "uncited":
            uncited_total += 1
            if status != "uncited":
                missed.append((item["kind"], status, item["claim"]))
    return {"claims": len(items), "faithful": faithful, "unsupported": changed, "uncited": uncited_total,
            "false_supported": false_supported, "flagged": flagged, "missed": missed}


def answer_of(data: dict[str, object], words: int, run: int = 0) -> str:
    """A `words`-word answer of the set's claims, new for each `run`: one space of each claim is widened by `run`
    (the words, numbers and verdicts are the same, but every cache keyed by a claim's text misses, as for the first
    check of a new answer in a session)."""
    sentences = [c["claim"] for c in data["claims"]]  # type: ignore[union-attr,index]
    out, count, n = [], 0, 0
    while count < words:
        sentence = sentences[n % len(sentences)]
        out.append(sentence.replace(" ", " " * (2 + run), 1))
        count += len(sentence.split())
        n += 1
    return " ".join(out)


def timing(app: object, data: dict[str, object], runs: int) -> None:
    """CPU of the cheap check (ids and claims, no network) of a NEW 1,000-word answer each run, its passages read
    and cached as in a session (stop 54: re-checking one answer measured its per-claim caches, not a check)."""
    ledger = ledger_of(data, list(data["papers"]))  # type: ignore[arg-type]
    for run in range(3):  # warm: imports, the passages' caches
        text = answer_of(data, 1000, 1000 + run)
        ground(ledger, text, check_answer(app, ledger, text, False, 0.0))  # type: ignore[arg-type]
    cpu, claims = [], 0
    for run in range(runs):
        text = answer_of(data, 1000, run)
        started = time.process_time()
        checked = check_answer(app, ledger, text, False, 0.0)  # type: ignore[arg-type]
        claims = len(ground(ledger, text, checked).claims)
        cpu.append(time.process_time() - started)
    print(f"cheap check of a new 1,000-word answer each run ({claims} claims): {statistics.median(cpu) * 1000:.1f} ms "
          f"CPU, median of {runs} (load average {os.getloadavg()[0]:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--held-out", action="store_true", help="measure the held-out half (once, at the end)")
    parser.add_argument("--timing", action="store_true")
    parser.add_argument("--probes", nargs="?", const=str(PROBES), default=None, metavar="FILE",
                        help="the paraphrases of claims_probes.json, or of FILE (development)")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--claims", type=Path, default=SET, help="the labelled set (default: claims_set.json)")
    args = parser.parse_args()
    data = json.loads(args.claims.read_text())
    half = "held_out" if args.held_out else "development"
    if args.probes:  # checked against the development half's passages; an uncited probe belongs to no paper
        first = data["split"]["development"][0]
        probes = json.loads(Path(args.probes).read_text())["claims"]
        data = {**data, "claims": [{**c, "paper": c["paper"] or first, "kind": c.get("kind", "probe")} for c in probes]}
        # a probe of a stop-52 paper (development since stop 53) reads that set's passages
        more = json.loads(SET52.read_text())
        if args.claims != SET52 and any(c["paper"] in more["papers"] for c in data["claims"]):  # type: ignore[union-attr]
            data["passages"] = {**data["passages"], **more["passages"]}  # type: ignore[dict-item]
            data["split"] = {**data["split"], "development": [*data["split"]["development"],  # type: ignore[dict-item]
                                                              *more["split"]["development"]]}
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp) / "ws")
        if args.timing:
            timing(app, data, args.runs)
            return
        result = measure(app, data, data["split"][half])
    print(f"{half} half ({', '.join(data['split'][half])}): {result['claims']} claims")
    print(f"  unsupported claims reported supported: {len(result['false_supported'])} of {result['unsupported']}")
    print(f"  faithful claims flagged: {len(result['flagged'])} of {result['faithful']}")
    print(f"  uncited literature claims not reported: {len(result['missed'])} of {result['uncited']}")
    for kind, claim in result["false_supported"]:
        print(f"  FALSE SUPPORTED [{kind}] {claim}")
    for kind, status, reason, claim in result["flagged"]:
        print(f"  FLAGGED [{kind}] {status}: {reason} :: {claim}")
    for kind, status, claim in result["missed"]:
        print(f"  MISSED [{kind}] {status} :: {claim}")


if __name__ == "__main__":
    main()
