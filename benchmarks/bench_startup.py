"""Issue 2: start-up times and the harness overhead of a 3-step `astro run`.

    .venv/bin/python benchmarks/bench_startup.py [--runs N]

Overhead = whole-process wall time of a 3-step run against the fake provider, minus the time
inside model requests (the run's own duration_api_ms), minus the time of `import litellm` in a
process started just before it (paired, so both see the same machine load); the median of the pairs.
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        env = clean_env(ASTRO_HOME=str(ws / "home"), LITELLM_LOCAL_MODEL_COST_MAP="True")
        version = [timed_run([*ASTRO, "--version"], env, ws)[0] for _ in range(runs)]
        help_ = [timed_run([*ASTRO, "--help"], env, ws)[0] for _ in range(runs)]
        (ws / "data.txt").write_text("flux 3 mJy\n")
        fake = FakeProvider()
        env.update(ASTRO_MODEL="openai/fake-model", ASTRO_API_BASE=fake.openai_url, ASTRO_API_KEY="bench")
        walls, apis, imports = [], [], []
        for _ in range(runs):
            # Interleaved with each run, so both see the same machine load.
            imports.append(timed_run([sys.executable, "-c", "import litellm"], env, ws)[0])
            fake.add(
                {"tool_calls": [{"name": "glob_files", "arguments": {"pattern": "*.txt"}}]},
                {"tool_calls": [{"name": "read_file", "arguments": {"path": "data.txt"}}]},
                {"text": "The flux is 3 mJy."},
            )
            wall, out = timed_run([*ASTRO, "run", "--output-format", "json", "What is the flux?"], env, ws)
            result = json.loads(out.strip().splitlines()[-1])
            assert result["num_steps"] == 3, result
            walls.append(wall)
            apis.append(result["duration_api_ms"] / 1000)
        fake.close()

    litellm_import = median_of(imports)
    overheads = [w - a - i for w, a, i in zip(walls, apis, imports)]
    print(f"runs per figure: {runs}")
    print(f"astro --version            median {median_of(version) * 1000:7.0f} ms  (target < 150 ms)")
    print(f"astro --help               median {median_of(help_) * 1000:7.0f} ms  (target < 400 ms)")
    print(f"python -c 'import litellm' median {litellm_import * 1000:7.0f} ms")
    print(f"3-step astro run, wall     median {median_of(walls) * 1000:7.0f} ms")
    print(f"  inside model requests    median {median_of(apis) * 1000:7.0f} ms")
    print(f"  harness overhead         median {median_of(overheads) * 1000:7.0f} ms  (target < 600 ms)")


if __name__ == "__main__":
    main()
