"""Issue 5: selecting the memories for the prompt from 2,000 memory files.

    .venv/bin/python benchmarks/bench_memory.py [--memories 2000] [--runs 50]

Builds a throw-away workspace with N memory files (four types, astronomy topics, dates spread over
two years) and times the work of the real per-turn memory block (MemoryService.context_block), with
the folder watch on (the default) and off (config memory.watch: false):
- cold: a fresh process-like start (parse every file, build the FTS5 index, select, render);
- new question: the first step of a turn (stat the folder, FTS5 query, rank, render);
- same question: every later step of the turn (stat the folder, cache hit);
- after a hand edit: one file changed on disk (re-parse it, re-index it, select again).
Each figure is the median of --runs runs, as wall time and as the process's CPU time: the machine
is shared, and CPU time is what the work itself costs when other processes compete for the cores.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from astro_cli.memory.format import Memory  # noqa: E402

TOPICS = [
    "Planck 2018 cosmology", "Hubble tension", "weak lensing of galaxy clusters", "exoplanet transit timing",
    "stellar population synthesis", "gravitational-wave standard sirens", "AGN feedback in groups",
    "dark matter halo concentration", "Type Ia supernova standardisation", "CMB lensing reconstruction",
    "Gaia DR3 astrometry", "JWST NIRSpec reduction", "21-cm intensity mapping", "fast radio bursts",
    "globular cluster ages", "Lyman-alpha forest", "cosmic shear systematics", "SED fitting with Prospector",
]
TYPES = ["preference", "feedback", "project", "reference"]
NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def build_memories(folder: Path, count: int) -> None:
    rng = random.Random(5)
    folder.mkdir(parents=True)
    for n in range(count):
        topic = rng.choice(TOPICS)
        updated = NOW - timedelta(days=rng.uniform(0, 730))
        memory = Memory(
            slug=f"{topic.split()[0].lower().replace('-', '')}-note-{n:04d}",
            type=TYPES[n % 4],
            description=f"Note {n} on {topic}",
            body=f"About {topic}: result {n} depends on the calibration.\n"
            f"Check the {rng.choice(TOPICS)} comparison before quoting it.\n"
            "Third line of detail.\nFourth line, not shown in the prompt.\n",
            created=updated,
            updated=updated,
        )
        (folder / f"{memory.slug}.md").write_text(memory.to_text(), encoding="utf-8")


class Timer:
    """Collects (wall, cpu) pairs."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __enter__(self) -> Timer:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall.append(time.perf_counter() - self._wall)
        self.cpu.append(time.process_time() - self._cpu)

    def report(self) -> str:
        wall, cpu = statistics.median(self.wall) * 1000, statistics.median(self.cpu) * 1000
        return f"median {wall:8.2f} ms wall, {cpu:8.2f} ms CPU  ({len(self.wall)} runs)"


def measure(root: Path, questions: list[str], watch: bool, runs: int) -> dict[str, Timer]:
    from astro_cli.bootstrap import build_app
    from astro_cli.memory.service import MemoryService

    def service_for(app):
        service = MemoryService.for_app(app, watch=watch)
        app.services.put(service)  # the object the memory feature calls at each turn
        app.on_close(service.close)
        return service

    timers = {name: Timer() for name in ("cold", "fresh", "same", "edited")}
    for n in range(max(5, runs // 10)):
        app = build_app(workspace=root)
        service = service_for(app)
        with timers["cold"]:
            service.context_block(questions[n], NOW)
        app.close()

    app = build_app(workspace=root)
    service = service_for(app)
    service.context_block("warm up", NOW)
    for question in questions:
        with timers["fresh"]:
            block = service.context_block(question, NOW)
        for _ in range(3):
            with timers["same"]:
                again = service.context_block(question, NOW)
            assert again is block
    files = sorted((root / "memory").glob("*-note-*.md"))
    for n in range(runs):
        path = files[n]
        path.write_text(path.read_text().replace("Third line", f"Third line ({watch} edit {n})"))
        time.sleep(0.05)  # an edit in place reaches a watched catalog through the event thread
        with timers["edited"]:
            service.context_block(questions[n], NOW)
        assert f"({watch} edit {n})" in path.read_text()
    assert len(service.last_selection) == min(5, len(files))
    app.close()
    return timers


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["ASTRO_HOME"] = str(root / "home")
        build_memories(root / "memory", args.memories)
        questions = [f"What did we decide about {TOPICS[n % len(TOPICS)].lower()} for run {n}?"
                     for n in range(args.runs)]
        results = {watch: measure(root, questions, watch, args.runs) for watch in (True, False)}

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"memories: {args.memories}, selected per assembly: 5, load average at the end: {load:.1f}")
    print(f"command: .venv/bin/python benchmarks/bench_memory.py --memories {args.memories} --runs {args.runs}")
    for watch, timers in results.items():
        print(f"-- memory.watch: {str(watch).lower()}"
              + (" (default: a folder watch notices edits)" if watch else " (every file is statted each assembly)"))
        print(f"cold (parse all, build FTS5, select)  {timers['cold'].report()}")
        print(f"new question (first step of a turn)   {timers['fresh'].report()}  target < 20 ms")
        print(f"same question (later steps, cached)   {timers['same'].report()}")
        print(f"after a hand edit of one file         {timers['edited'].report()}")


if __name__ == "__main__":
    main()
