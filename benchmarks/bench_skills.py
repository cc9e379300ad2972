"""Issue 4: scanning skills at start-up, and the time from saving a SKILL.md to seeing it in the prompt.

    .venv/bin/python benchmarks/bench_skills.py [--skills 200] [--runs 15]

- scan: a fresh registry over a workspace with N skills (frontmatter like the real fixtures, bodies
  of about 3 kB), from nothing to the rendered tier-1 listing: list the folders, read and parse every
  SKILL.md (libyaml), shadowing, ranking, budget. This is what the first assembled prompt pays.
- rescan after one edit: a reload when one file changed (the others are reused by mtime and size).
- hot reload: a real `AppContext` with every feature installed and the watcher running; a new
  SKILL.md is written and `app.prompt.assemble()` is polled every 5 ms until the skill is listed.
  This includes the 300 ms debounce, which dominates by design.
Each figure is the median of --runs runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TOPICS = [
    "photometric redshifts",
    "long-slit spectra",
    "radial-velocity orbits",
    "FITS mosaics",
    "CMB maps",
    "transit light curves",
    "galaxy SED fitting",
    "X-ray spectral fitting",
    "radio interferometry imaging",
    "N-body initial conditions",
    "astrometric solutions",
    "stellar isochrones",
]
BODY = (
    "## Step\n\nUse search_papers, then get_paper_content and rag_search; plot with file_write + run_bash.\n"
    * 30
)


def build_skills(folder: Path, count: int) -> None:
    for n in range(count):
        topic = TOPICS[n % len(TOPICS)]
        path = folder / f"skill-{n:03d}" / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(
            f"---\nname: skill-{n:03d}\ndescription: Methods for {topic}, variant {n}, written for astronomers.\n"
            f"when_to_use: When the user works on {topic}.\nallowed-tools: [search_papers, rag_search]\n"
            f"license: MIT\nmetadata:\n  author: bench\n---\n\n# {topic}\n\n{BODY}",
            encoding="utf-8",
        )


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:7.1f} ms"


def bench_scan(root: Path, runs: int) -> tuple[list[float], list[float], int]:
    from astro_cli.skills.registry import SkillRegistry

    layers = [("project", root / "skills")]
    scans = []
    for _ in range(runs):
        started = time.perf_counter()
        registry = SkillRegistry(layers)
        text = registry.reminder()
        scans.append(time.perf_counter() - started)
    assert text is not None
    edits = []
    target = root / "skills" / "skill-000" / "SKILL.md"
    for n in range(runs):
        target.write_text(target.read_text().replace("variant 0", f"variant 0.{n}"), encoding="utf-8")
        stat = target.stat()
        os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + (n + 1) * 1_000_000_000))
        started = time.perf_counter()
        registry.reload()
        registry.reminder()
        edits.append(time.perf_counter() - started)
    return scans, edits, len(registry.names())


def bench_hot_reload(root: Path, runs: int) -> list[float]:
    from astro_cli.bootstrap import build_app
    from astro_cli.skills.feature import start_watcher

    app = build_app(workspace=root).install_features()
    tools = app.tools.ordered()
    app.prompt.assemble(tools)
    start_watcher(app)
    latencies = []
    try:
        for n in range(runs):
            path = root / "skills" / f"fresh-{n:02d}" / "SKILL.md"
            path.parent.mkdir(parents=True)
            started = time.perf_counter()
            path.write_text(
                f"---\nname: fresh-{n:02d}\ndescription: New skill {n}.\n---\nBody.\n", encoding="utf-8"
            )
            needle = f"- fresh-{n:02d}: New skill {n}."
            while needle not in app.prompt.assemble(tools).system:
                if time.perf_counter() - started > 10:
                    raise RuntimeError(f"fresh-{n:02d} never appeared in the prompt")
                time.sleep(0.005)
            latencies.append(time.perf_counter() - started)
            time.sleep(0.1)
    finally:
        app.close()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skills", type=int, default=200)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        os.environ["ASTRO_HOME"] = str(root / "home")
        os.environ["ASTRO_SKILLS_BUDGET_CHARS"] = "4000"
        build_skills(root / "skills", args.skills)
        scans, edits, count = bench_scan(root, args.runs)
        hot = bench_hot_reload(root, args.runs)
    print(f"skills: {count} in the workspace layer, runs per figure: {args.runs}")
    print(f"command: .venv/bin/python benchmarks/bench_skills.py --skills {args.skills} --runs {args.runs}")
    print(f"scan {count} skills to the rendered listing   median {ms(scans)}  (target < 150 ms)")
    print(f"rescan after one SKILL.md changed         median {ms(edits)}")
    print(
        f"SKILL.md saved -> listed in the prompt    median {ms(hot)}  (target < 500 ms; max {max(hot) * 1000:.0f} ms)"
    )


if __name__ == "__main__":
    main()
