"""Issue 19: what MCP servers cost at start-up, per call, and when none is configured.

    .venv/bin/python benchmarks/bench_mcp.py [--runs N]

The servers are tests/mcp_server.py: a Python server written with the official SDK's server side
(MCPServer, 7 tools), started over stdio, as a researcher's own Python server would be.

- `astro run` wall time (and CPU time, astro's and its servers', less sensitive to a loaded machine), one answer from the fake provider, with 0, 1 and 5 servers configured
  (interleaved runs, so each count sees the same machine load); the 0-server run never imports `mcp`.
- in a fresh process: from `start()` (what a session does when it opens) until every server has
  listed its tools, with 1 and 5 servers, and the SDK's import inside that.
- a tool call's round trip through astro (portal, SDK, stdio, server, back), median of 200 calls.
- the cost when none is configured: the feature's check (one settings look-up and one stat).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import yaml  # noqa: E402

from benchmarks.common import ASTRO, clean_env, median_of, timed_run  # noqa: E402
from tests.fakeprovider import FakeProvider  # noqa: E402
from tests.mcp_server import stdio_entry  # noqa: E402

READY_PROBE = """
import json, sys, time
started = time.perf_counter()
from astro_cli.bootstrap import build_app
from astro_cli.mcp.manager import mcp_manager
app = build_app()
manager = mcp_manager(app)
t0 = time.perf_counter()
manager.start()
manager.wait_started()
ready = time.perf_counter() - t0
states = [(s.name, s.status, s.startup_seconds) for s in manager.servers]
calls = []
if "--calls" in sys.argv:
    from astro_cli.tools.context import ToolContext
    ctx = ToolContext(app=app, session_id="bench")
    for i in range(200):
        t = time.perf_counter()
        manager.call("s0", "quote", {"text": "M31"}, ctx)
        calls.append(time.perf_counter() - t)
t1 = time.perf_counter()
app.close()
closed = time.perf_counter() - t1
print(json.dumps({"ready": ready, "states": states, "calls": calls, "close": closed,
                  "import_mcp": "mcp" in sys.modules}))
"""


def configure(home: Path, count: int) -> None:
    servers = {f"s{i}": stdio_entry() for i in range(count)}
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(yaml.safe_dump({"mcp": {"servers": servers}} if count else {}))


def probe(env: dict[str, str], cwd: Path, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", READY_PROBE, *args], env=env, cwd=cwd, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def cpu_run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of a process and everything it waited for (its servers)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = timed_run(cmd, env, cwd)[0]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    counts = (0, 1, 5)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "project"
        ws.mkdir()
        home = Path(tmp) / "home"
        fake = FakeProvider()
        env = clean_env(ASTRO_HOME=str(home), LITELLM_LOCAL_MODEL_COST_MAP="True", ASTRO_MODEL="openai/fake-model",
                        ASTRO_API_BASE=fake.openai_url, ASTRO_API_KEY="bench")
        walls: dict[int, list[float]] = {n: [] for n in counts}
        cpus: dict[int, list[float]] = {n: [] for n in counts}
        ready: dict[int, list[float]] = {1: [], 5: []}
        closes: dict[int, list[float]] = {1: [], 5: []}
        for _ in range(runs):
            for count in counts:
                configure(home, count)
                fake.add({"text": "The flux is 3 mJy."})
                wall, cpu = cpu_run([*ASTRO, "run", "What is the flux?"], env, ws)
                walls[count].append(wall)
                cpus[count].append(cpu)
                if count:
                    result = probe(env, ws)
                    assert all(status == "ready" for _, status, _ in result["states"]), result
                    ready[count].append(result["ready"])
                    closes[count].append(result["close"])
        configure(home, 1)
        calls = probe(env, ws, "--calls")["calls"]
        configure(home, 0)
        none = probe(env, ws)
        fake.close()

        import_times = []
        for _ in range(runs):
            code = "import time; t=time.perf_counter(); import astro_cli.mcp.connection; print(time.perf_counter()-t)"
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            import_times.append(float(out.stdout))

        from astro_cli.bootstrap import build_app
        from astro_cli.mcp.servers import is_configured

        os.environ["ASTRO_HOME"] = str(home)
        app = build_app(workspace=ws)
        started = time.perf_counter()
        for _ in range(10000):
            is_configured(app)
        check = (time.perf_counter() - started) / 10000
        app.close()

    print(f"runs per figure: {runs}; load average at the end: {os.getloadavg()[0]:.1f}")
    base = median_of(walls[0])
    for count in counts:
        wall = median_of(walls[count])
        added = f" (+{(wall - base) * 1000:.0f} ms)" if count else ""
        print(f"astro run, {count} server(s): wall median {wall * 1000:7.0f} ms{added}; CPU of astro and its "
              f"servers {median_of(cpus[count]) * 1000:7.0f} ms")
    for count in (1, 5):
        print(f"{count} server(s): start() until every server has listed its tools, median "
              f"{median_of(ready[count]) * 1000:7.0f} ms; stopping them at exit {median_of(closes[count]) * 1000:5.0f} ms")
    print(f"import of the SDK (astro_cli.mcp.connection) in a fresh process: median {median_of(import_times) * 1000:.0f} ms")
    print(f"tool call round trip (200 calls of a trivial tool): median {median_of(calls) * 1000:.2f} ms, "
          f"p95 {sorted(calls)[int(len(calls) * 0.95)] * 1000:.2f} ms")
    print(f"none configured: the feature's check {check * 1e6:.1f} µs; mcp imported: {none['import_mcp']}")


if __name__ == "__main__":
    main()
