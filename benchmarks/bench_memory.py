"""Issue 5: selecting the memories for the prompt from 2,000 memory files.

    .venv/bin/python benchmarks/bench_memory.py [--memories 2000] [--runs 50]

Builds a throw-away workspace with N memory files (four types, astronomy topics, dates spread over
two years), installs every astro feature and times the real 'memory' section provider:
- cold: a fresh process-like start (parse every file, build the FTS5 index, select, render);
- new question: the first step of a turn (stat the folder, FTS5 query, rank, render);
- same question: every later step of the turn (stat the folder, cache hit);
- after a hand edit: one file changed on disk (re-parse it, re-index it, select again).
Each figure is the median of --runs runs.
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

from astro_cli.memory.store import Memory  # noqa: E402

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


def ms(seconds: list[float]) -> str:
    return f"{statistics.median(seconds) * 1000:7.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    from astro_cli.bootstrap import build_app
    from astro_cli.memory.feature import memory_service

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["ASTRO_HOME"] = str(root / "home")
        build_memories(root / "memory", args.memories)
        questions = [f"What did we decide about {TOPICS[n % len(TOPICS)].lower()} for run {n}?"
                     for n in range(args.runs)]

        cold = []
        for n in range(max(5, args.runs // 10)):
            app = build_app(workspace=root)
            app.install_features()
            started = time.perf_counter()
            memory_service(app).section(questions[n], NOW)
            cold.append(time.perf_counter() - started)
            app.close()

        app = build_app(workspace=root)
        app.install_features()
        service = memory_service(app)
        service.section("warm up", NOW)
        fresh, same = [], []
        for question in questions:
            started = time.perf_counter()
            block = service.section(question, NOW)
            fresh.append(time.perf_counter() - started)
            for _ in range(3):
                started = time.perf_counter()
                assert service.section(question, NOW) is block
                same.append(time.perf_counter() - started)

        edited = []
        files = sorted((root / "memory").glob("*-note-*.md"))
        for n in range(args.runs):
            path = files[n]
            path.write_text(path.read_text().replace("Third line", f"Third line (edit {n})"))
            started = time.perf_counter()
            service.section(questions[n], NOW)
            edited.append(time.perf_counter() - started)
        selected = len(service.last_selection)
        app.close()

    print(f"memories: {args.memories}, selected per assembly: {selected}, runs per figure: {len(fresh)}")
    print(f"command: .venv/bin/python benchmarks/bench_memory.py --memories {args.memories} --runs {args.runs}")
    print(f"cold (parse all, build FTS5, select)   median {ms(cold)}  ({len(cold)} runs)")
    print(f"new question (first step of a turn)    median {ms(fresh)}  (target < 20 ms)")
    print(f"same question (later steps, cached)    median {ms(same)}")
    print(f"after a hand edit of one file          median {ms(edited)}")


if __name__ == "__main__":
    main()
