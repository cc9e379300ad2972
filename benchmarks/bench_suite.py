"""Time the test suite: wall time, CPU time and the machine's load, optionally beside busy CPU hogs.

    .venv/bin/python benchmarks/bench_suite.py                   # the suite as `make test` runs it
    .venv/bin/python benchmarks/bench_suite.py --fast            # `make test-fast`
    .venv/bin/python benchmarks/bench_suite.py --hogs 2 --runs 3 # `make test-stress`: must pass each time
    .venv/bin/python benchmarks/bench_suite.py --lint            # ruff and mypy first, timed apart

CPU time is that of pytest and every process under it, read with getrusage(RUSAGE_CHILDREN)
after each run. This script makes itself a child subreaper, so processes that leave their
parent (the warm workers `astro worker start` detaches, background commands) are reaped here
and their CPU is counted too. The load average is read before and after each run: a figure taken
at load 8 says little about a quiet machine. `--json FILE` appends one line per run.
Exit status: 0 when every run passed, else 1 (so `make test-stress` fails on any failure).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PR_SET_CHILD_SUBREAPER = 36
FAST_MARKERS = "not subprocess and not pty and not postgres and not slow and not heavy and not waits"
SUMMARY = re.compile(r"=+ (.*?) in ([0-9.]+)s")


def pytest_command(fast: bool, workers: str, extra: list[str]) -> list[str]:
    """The command `make test` (or `make test-fast`) runs, after its lint."""
    command = [sys.executable, "-m", "pytest", "-q", "-n", workers, "--dist", "worksteal", "-p", "no:cacheprovider"]
    if fast:
        command += ["-m", FAST_MARKERS]
    return command + extra


def become_subreaper() -> bool:
    """Orphaned descendants are re-parented to this process, so their CPU time reaches RUSAGE_CHILDREN."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


class Reaper:
    """Reaps the orphans this subreaper adopts (never the pid `subprocess` itself waits for)."""

    def __init__(self) -> None:
        self.own: set[int] = set()
        self.lock = threading.Lock()  # held while a process is started and named as ours
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stop.is_set():
            try:
                found = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                found = None
            with self.lock:
                ours = found is None or found.si_pid in self.own
                if not ours:
                    try:
                        os.waitpid(found.si_pid, 0)
                    except ChildProcessError:
                        pass
            if ours:
                self.stop.wait(0.05)

    def start(self, command: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
        with self.lock:
            process = subprocess.Popen(command, **kwargs)  # type: ignore[call-overload]
            self.own.add(process.pid)
        return process

    def close(self) -> None:
        self.stop.set()
        self.thread.join()


def start_hogs(count: int, reaper: Reaper) -> list[subprocess.Popen[bytes]]:
    """Processes that keep one CPU each busy at ordinary priority, as other people's work would. Each
    leaves when this script is gone (its parent changes), however this script ended: a `pkill` of an
    earlier stress run left its hogs busy beside the next runs (stop 39)."""
    hog = ("import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n"
           "    for _ in range(1_000_000):\n        pass\n")
    return [reaper.start([sys.executable, "-c", hog]) for _ in range(count)]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], reaper: Reaper, log: Path | None) -> dict[str, object]:
    before_cpu, load_before, started = children_cpu(), os.getloadavg(), time.monotonic()
    # Output to a file, not a pipe: a stray process holding the pipe open cannot stretch the run.
    with tempfile.TemporaryFile() if log is None else open(log, "w+b") as sink:
        status = reaper.start(command, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT).wait()
        wall = time.monotonic() - started
        sink.seek(max(0, sink.seek(0, os.SEEK_END) - 8000))
        tail = sink.read().decode(errors="replace").splitlines()
    summary = next((m for m in map(SUMMARY.search, reversed(tail)) if m), None)
    return {
        "command": " ".join(command[1:]),
        "exit": status,
        "wall_s": round(wall, 1),
        "cpu_s": round(children_cpu() - before_cpu, 1),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "summary": summary.group(1) if summary else (tail[-1] if tail else ""),
        "pytest_wall_s": float(summary.group(2)) if summary else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="run the suite this many times in a row")
    parser.add_argument("--hogs", type=int, default=0, help="busy CPU processes to run beside it (stress)")
    parser.add_argument("--fast", action="store_true", help="only `make test-fast`'s tiers")
    parser.add_argument("--workers", default="2", help="pytest-xdist workers (-n), as in `make test`")
    parser.add_argument("--lint", action="store_true", help="time ruff and mypy first, as `make test` runs them")
    parser.add_argument("--log", type=Path, help="write each run's output to LOG.N")
    parser.add_argument("--json", type=Path, help="append one JSON line per run to this file")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args()

    # Run in the background by a shell (`... &`), SIGINT is ignored and pytest and every astro it starts
    # would inherit that (the Ctrl-C tests then fail): the suite gets SIGINT's default, as in a terminal.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for ending in (signal.SIGTERM, signal.SIGHUP):  # stopped from outside: the hogs still go (finally)
        signal.signal(ending, lambda number, _frame: sys.exit(128 + number))
    subreaper = become_subreaper()
    reaper = Reaper()
    hogs = start_hogs(args.hogs, reaper)
    results = []
    try:
        if args.lint:
            for name, command in (("ruff", [str(ROOT / ".venv/bin/ruff"), "check", "astro_cli", "tests", "benchmarks"]),
                                  ("mypy", [str(ROOT / ".venv/bin/mypy")])):
                result = timed(command, reaper, None)
                print(f"{name}: exit {result['exit']}, {result['wall_s']} s wall, {result['cpu_s']} CPU-s", flush=True)
        for number in range(1, args.runs + 1):
            log = args.log.with_name(f"{args.log.name}.{number}") if args.log else None
            result = timed(pytest_command(args.fast, args.workers, args.pytest_args), reaper, log)
            result.update(run=number, hogs=args.hogs, cpus=os.cpu_count(), subreaper=subreaper,
                          date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
            results.append(result)
            print(f"run {number}/{args.runs} ({args.hogs} hogs): {result['summary']}; {result['wall_s']} s wall, "
                  f"{result['cpu_s']} CPU-s, load {result['load_before']} -> {result['load_after']}", flush=True)
            if args.json:
                with open(args.json, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(result) + "\n")
    finally:
        for hog in hogs:
            hog.send_signal(signal.SIGKILL)
            hog.wait()
        reaper.close()
    failed = [r for r in results if r["exit"] != 0]
    print(f"{len(results) - len(failed)} of {len(results)} runs passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
