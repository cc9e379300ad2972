"""The cheap claim check of a NEW 1,000-word answer each run, its passages already read (stop 54).

    .venv/bin/python benchmarks/bench_claims_new_answers.py [--runs 41]

The same measurement as `bench_claims.py --timing` (kept under this name, which RESULTS.md cites): each run's answer
holds the claims of claims_set.json with one space widened per claim (the words, numbers and verdicts are the same,
every per-claim cache misses), and the passages stay cached as in a session. CPU from time.process_time, median.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_claims as bench  # noqa: E402


def answer(sentences: list[str], run: int, words: int = 1000) -> str:
    """`bench_claims.answer_of` of these sentences."""
    return bench.answer_of({"claims": [{"claim": s} for s in sentences]}, words, run)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=41)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bench.timing(bench.make_app(Path(tmp) / "ws"), json.loads(bench.SET.read_text()), args.runs)


if __name__ == "__main__":
    main()
