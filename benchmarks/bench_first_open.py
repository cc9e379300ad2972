"""Several astro processes opening a brand-new workspace database at one moment (stop 41's CI failure).

    .venv/bin/python benchmarks/bench_first_open.py [--rounds 60] [--processes 4] [--code DIR]

Each round makes an empty folder and starts --processes Python processes that import
astro_cli.store.db, wait for one shared instant, then open `astro.db` there (the first thing two
`astro library add` in a fresh folder do). Prints how many opens failed and how long an open took
(median and slowest, seconds). --code runs another checkout's astro_cli (an older commit, to
compare).
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

OPENER = """
import json, sys, time
sys.path.insert(0, sys.argv[3])
from astro_cli.store.db import Database
start = float(sys.argv[2])
while time.time() < start:
    pass
began = time.perf_counter()
try:
    Database(sys.argv[1]).close()
    print(json.dumps({"ok": True, "seconds": time.perf_counter() - began}))
except Exception as exc:
    folder = sys.argv[1].rsplit("/", 1)[0]
    print(json.dumps({"ok": False, "seconds": time.perf_counter() - began,
                      "error": str(exc).replace(folder, "<folder>")}))
"""


def one_round(processes: int, code: Path) -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as folder:
        start = time.time() + 0.8  # after every process has imported the module
        running = [subprocess.Popen([sys.executable, "-c", OPENER, str(Path(folder) / "astro.db"), str(start),
                                     str(code)], stdout=subprocess.PIPE, text=True) for _ in range(processes)]
        return [json.loads(proc.communicate(timeout=120)[0]) for proc in running]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose astro_cli is measured")
    args = parser.parse_args()
    outcomes = [outcome for _ in range(args.rounds) for outcome in one_round(args.processes, args.code.resolve())]
    failed = [o for o in outcomes if not o["ok"]]
    seconds = [float(str(o["seconds"])) for o in outcomes if o["ok"]]
    print(f"{args.code}: {args.rounds} rounds x {args.processes} processes: {len(failed)} of {len(outcomes)} "
          f"opens failed; open median {statistics.median(seconds):.3f} s, slowest {max(seconds):.3f} s")
    reasons = collections.Counter(str(o.get("error")) for o in failed)
    for reason, count in reasons.most_common():
        print(f"  {count} x {reason}")


if __name__ == "__main__":
    main()
