"""Issue 45: the CPU time of `astro --help`, `astro config show` and a 3-step `astro run`, before and after
commands became registrations (extensions.CliCommands) and the loop took its parts.

    .venv/bin/python benchmarks/bench_start_cpu.py [--runs 7] [--compare PATH] [--plugin]

CPU time (user + system of the child, from getrusage(RUSAGE_CHILDREN)), not wall time: the machine is
shared, and CPU time is what registration would add. `--compare PATH` measures another checkout through
the same interpreter (PYTHONPATH), its runs interleaved with this one's. `--plugin` installs a small
plugin with a command group (a dist-info folder on PYTHONPATH) for both, so `--help` also pays for
finding and loading it (the compared checkout, without the point, only finds it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import ASTRO, clean_env, median_of  # noqa: E402
from tests.fakeprovider import FakeProvider  # noqa: E402

PLUGIN = '''
import typer
obs = typer.Typer(help="Observing plans.")

@obs.command("plan")
def plan(target: str) -> None:
    typer.echo(target)

def register_commands(cli):
    cli.add_group("obs", "Observing plans.", lambda: obs)
'''


def cpu_run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    """(user + system CPU seconds of the child, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out.stdout


def plugin_site(root: Path) -> Path:
    site = root / "site"
    (site / "astro_bench_plugin").mkdir(parents=True)
    (site / "astro_bench_plugin" / "__init__.py").write_text(PLUGIN)
    info = site / "astro_bench_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: astro-bench-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[astro.plugins]\nobs = astro_bench_plugin\n")
    return site


def measure(checkouts: list[str | None], runs: int, plugin: bool) -> dict[str | None, dict[str, list[float]]]:
    figures: dict[str | None, dict[str, list[float]]] = {p: {"help": [], "config": [], "run": []} for p in checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        site = str(plugin_site(ws)) if plugin else None
        base = clean_env(ASTRO_HOME=str(ws / "home"), LITELLM_LOCAL_MODEL_COST_MAP="True")
        (ws / "data.txt").write_text("flux 3 mJy\n")
        fake = FakeProvider()
        model = dict(ASTRO_MODEL="openai/fake-model", ASTRO_API_BASE=fake.openai_url, ASTRO_API_KEY="bench")
        for _ in range(runs):
            for path in checkouts:
                env = {**base, **({"PYTHONPATH": os.pathsep.join(p for p in (site, path) if p)} if site or path else {})}
                got = figures[path]
                got["help"].append(cpu_run([*ASTRO, "--help"], env, ws)[0])
                got["config"].append(cpu_run([*ASTRO, "config", "show"], env, ws)[0])
                fake.add(
                    {"tool_calls": [{"name": "glob_files", "arguments": {"pattern": "*.txt"}}]},
                    {"tool_calls": [{"name": "read_file", "arguments": {"path": "data.txt"}}]},
                    {"text": "The flux is 3 mJy."},
                )
                cpu, out = cpu_run([*ASTRO, "run", "--output-format", "json", "What is the flux?"], {**env, **model}, ws)
                assert json.loads(out.strip().splitlines()[-1])["num_steps"] == 3
                got["run"].append(cpu)
        fake.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--compare", default=None, help="another checkout of astro (the code before)")
    parser.add_argument("--plugin", action="store_true", help="with a plugin that adds a command group installed")
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()}")
    checkouts: list[str | None] = [args.compare, None] if args.compare else [None]
    figures = measure(checkouts, args.runs, args.plugin)
    print(f"load after: {os.getloadavg()}")
    for path, got in figures.items():
        name = path or "this checkout"
        print(name + ": " + ", ".join(f"{key} {median_of(values) * 1000:.0f} ms CPU (median of {len(values)})"
                                      for key, values in got.items()))


if __name__ == "__main__":
    main()
