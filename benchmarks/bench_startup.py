"""Issue 2: start-up times and the harness overhead of a 3-step `astro run`.

    .venv/bin/python benchmarks/bench_startup.py [--runs N] [--compare PATH]

Overhead = whole-process wall time of a 3-step run against the fake provider, minus the time
inside model requests (the run's own duration_api_ms), minus the time of `import litellm` in a
process started just before it (paired, so both see the same machine load); the median of the pairs.

`--compare PATH` measures another checkout of astro (for example the code before a change, made
with `git worktree add ../before COMMIT`) through the same interpreter, each of its runs right
after this checkout's, so that both see the same machine load; the paired differences are printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import ASTRO, clean_env, median_of, timed_run  # noqa: E402
from tests.fakeprovider import FakeProvider  # noqa: E402


def measure(checkouts: list[str | None], runs: int) -> dict[str | None, dict[str, list[float]]]:
    """Per checkout (None: this one): the figures of every run, the checkouts interleaved."""
    figures: dict[str | None, dict[str, list[float]]] = {
        path: {"version": [], "help": [], "import": [], "wall": [], "api": []} for path in checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        base = clean_env(ASTRO_HOME=str(ws / "home"), LITELLM_LOCAL_MODEL_COST_MAP="True")
        (ws / "data.txt").write_text("flux 3 mJy\n")
        fake = FakeProvider()
        model = dict(ASTRO_MODEL="openai/fake-model", ASTRO_API_BASE=fake.openai_url, ASTRO_API_KEY="bench")
        for _ in range(runs):
            for path in checkouts:
                env = {**base, **({"PYTHONPATH": path} if path else {})}
                got = figures[path]
                got["version"].append(timed_run([*ASTRO, "--version"], env, ws)[0])
                got["help"].append(timed_run([*ASTRO, "--help"], env, ws)[0])
                got["import"].append(timed_run([sys.executable, "-c", "import litellm"], env, ws)[0])
                fake.add(
                    {"tool_calls": [{"name": "glob_files", "arguments": {"pattern": "*.txt"}}]},
                    {"tool_calls": [{"name": "read_file", "arguments": {"path": "data.txt"}}]},
                    {"text": "The flux is 3 mJy."},
                )
                wall, out = timed_run([*ASTRO, "run", "--output-format", "json", "What is the flux?"],
                                      {**env, **model}, ws)
                result = json.loads(out.strip().splitlines()[-1])
                assert result["num_steps"] == 3, result
                got["wall"].append(wall)
                got["api"].append(result["duration_api_ms"] / 1000)
        fake.close()
    for got in figures.values():
        got["overhead"] = [w - a - i for w, a, i in zip(got["wall"], got["api"], got["import"])]
    return figures


def report(label: str, got: dict[str, list[float]]) -> None:
    ms = {name: median_of(values) * 1000 for name, values in got.items()}
    print(f"{label}")
    print(f"  astro --version            median {ms['version']:7.0f} ms  (target < 150 ms)")
    print(f"  astro --help               median {ms['help']:7.0f} ms  (target < 400 ms)")
    print(f"  python -c 'import litellm' median {ms['import']:7.0f} ms")
    print(f"  3-step astro run, wall     median {ms['wall']:7.0f} ms")
    print(f"    inside model requests    median {ms['api']:7.0f} ms")
    print(f"    harness overhead         median {ms['overhead']:7.0f} ms  (target < 600 ms)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--compare", help="another checkout of astro to measure, interleaved with this one")
    args = parser.parse_args()
    checkouts: list[str | None] = [None] + ([str(Path(args.compare).resolve())] if args.compare else [])
    figures = measure(checkouts, args.runs)
    print(f"runs per figure: {args.runs}")
    report("this checkout", figures[None])
    if args.compare:
        other = figures[checkouts[1]]
        report(f"{args.compare}", other)
        print("paired differences, this checkout minus the other (median of the pairs)")
        for name in ("version", "help", "overhead"):
            diffs = [a - b for a, b in zip(figures[None][name], other[name])]
            print(f"  {name:<10} {median_of(diffs) * 1000:+7.0f} ms")


if __name__ == "__main__":
    main()
