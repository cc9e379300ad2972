"""Issue 8: what hooks, plugins and agent definitions cost on the paths they sit on.

    .venv/bin/python benchmarks/bench_delegation.py [--runs 30] [--agents 20]

- plugin discovery: `importlib.metadata.entry_points(group="astro.plugins")` in this venv (paid once
  per process, when the features are installed).
- hook fire, no hook configured: the fast path every tool call, step and prompt pays.
- hook fire, one command hook: `true`, and `cat > /dev/null` reading a PostToolUse payload with a
  20 kB tool output (spawning /bin/sh dominates).
- hook fire, one Python (plugin) callback.
- sub-agents section: the provider's cost per step with N definitions (unchanged files: a stat of each),
  and the first read (parse every file).
Each figure is the median of --runs runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def app_with(root: Path, hooks: dict | None = None):
    from astro_cli.app import AppContext
    from astro_cli.config import load_settings
    from astro_cli.workspace import AstroHome, Workspace

    settings = load_settings([], env={}, flags={"hooks": hooks or {}})
    return AppContext(settings, Workspace(root), AstroHome(root / "home"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--agents", type=int, default=20)
    args = parser.parse_args()
    from importlib.metadata import entry_points

    from astro_cli.delegation.agents import AgentCatalog
    from astro_cli.hooks.runner import HookRunner
    from astro_cli.prompt.registry import AssemblyInput
    from astro_cli.tools.base import Tool, object_schema

    print(f"command: {sys.executable} benchmarks/bench_delegation.py --runs {args.runs} --agents {args.agents}")
    print(f"plugin discovery (entry_points scan): {median_ms(lambda: list(entry_points(group='astro.plugins')), args.runs):.2f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        payload = {"tool_name": "read_file", "tool_input": {"path": "a.txt"},
                   "tool_response": {"content": "x" * 20000, "is_error": False}}
        none = HookRunner(app_with(root))
        print(f"hook fire, none configured: {median_ms(lambda: none.fire('PostToolUse', payload, 's', 'read_file'), args.runs * 100) * 1000:.1f} µs")
        for command in ("true", "cat > /dev/null"):
            runner = HookRunner(app_with(root, {"PostToolUse": [{"hooks": [{"type": "command", "command": command}]}]}))
            print(f"hook fire, command `{command}` (20 kB payload): "
                  f"{median_ms(lambda r=runner: r.fire('PostToolUse', payload, 's', 'read_file'), args.runs):.2f} ms")
        python = HookRunner(app_with(root))
        python.add_python("PostToolUse", lambda p: None, plugin="bench")
        print(f"hook fire, one Python callback (20 kB payload): "
              f"{median_ms(lambda: python.fire('PostToolUse', payload, 's', 'read_file'), args.runs * 10):.3f} ms")

        app = app_with(root)
        folder = app.workspace.agents_dir
        folder.mkdir(parents=True)
        for n in range(args.agents):
            (folder / f"agent-{n:02d}.md").write_text(
                f"---\nname: agent-{n:02d}\ndescription: Reads papers on topic {n} and reports the key result.\n"
                f"tools: [read_file, rag_search]\nmax_steps: 4\n---\nYou are agent {n}. " + "Be precise. " * 200)
        tool = Tool("subagent", "Delegate.", object_schema({}), run=lambda ctx, a: "")
        data = AssemblyInput(scope="global", tools=[tool])
        first = []
        for _ in range(max(3, args.runs // 5)):
            catalog = AgentCatalog(app)
            started = time.perf_counter()
            catalog.section(data)
            first.append(time.perf_counter() - started)
        print(f"sub-agents section, first read of {args.agents} definitions: {statistics.median(first) * 1000:.2f} ms")
        print(f"sub-agents section, per step (unchanged): {median_ms(lambda: catalog.section(data), args.runs * 10):.3f} ms")


if __name__ == "__main__":
    main()
