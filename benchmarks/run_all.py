"""Run every benchmark script in this folder, one after the other (`make bench`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Runs the whole test suite (minutes): run it on its own, on a quiet machine.
# bench_local_model.py downloads a 1.1 GB model and runs it for many minutes: opt-in (issue 32).
ON_REQUEST = {"bench_suite.py", "bench_local_model.py"}

if __name__ == "__main__":
    for script in sorted(p for p in HERE.glob("bench_*.py") if p.name not in ON_REQUEST):
        print(f"\n== {script.name} ==", flush=True)
        subprocess.run([sys.executable, str(script)], check=False)
