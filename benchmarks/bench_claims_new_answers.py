"""The cheap claim check of a NEW 1,000-word answer each run, its passages already read (stop 54).

    .venv/bin/python benchmarks/bench_claims_new_answers.py [--runs 41]

`bench_claims.py --timing` checks the same answer 41 times, so whatever is cached per claim text is free from the
second run on; a session checks each answer once. Here each run's answer holds the same claims of claims_set.json
with one space widened per claim (the words, numbers and verdicts are the same, every per-claim cache misses), and
the passages stay cached as in a session. CPU from time.process_time, median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_claims as bench  # noqa: E402


def answer(sentences: list[str], run: int, words: int = 1000) -> str:
    out, count, n = [], 0, 0
    while count < words:
        sentence = sentences[n % len(sentences)]
        out.append(sentence.replace(" ", " " * (2 + run), 1))
        count += len(sentence.split())
        n += 1
    return " ".join(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=41)
    args = parser.parse_args()
    data = json.loads(bench.SET.read_text())
    sentences = [c["claim"] for c in data["claims"]]
    with tempfile.TemporaryDirectory() as tmp:
        app = bench.make_app(Path(tmp) / "ws")
        ledger = bench.ledger_of(data, list(data["papers"]))
        for run in range(3):  # warm: imports, the passages' caches
            text = answer(sentences, 1000 + run)
            bench.ground(ledger, text, bench.check_answer(app, ledger, text, False, 0.0))
        cpu, claims = [], 0
        for run in range(args.runs):
            text = answer(sentences, run)
            started = time.process_time()
            claims = len(bench.ground(ledger, text, bench.check_answer(app, ledger, text, False, 0.0)).claims)
            cpu.append(time.process_time() - started)
    print(f"cheap check of a new 1,000-word answer each run ({claims} claims): {statistics.median(cpu) * 1000:.1f} ms "
          f"CPU, median of {args.runs} (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
