"""Issues 25 and 41: what the bubblewrap sandbox adds to every run_bash call and hook (since issue 41
the deep one: user namespace, hidden home, private /tmp), and what the YAML alias bound costs.

    .venv/bin/python benchmarks/bench_sandbox.py [--runs 40]

- one command (`bash -c true`) through run_command (tools/command.py), as run_bash runs it, plain
  and wrapped by the sandbox (security/sandbox.py) with its fence computed each call, as run_bash
  does; wall time (a child process's start is not this process's CPU time), median of --runs runs,
  the two interleaved so machine load hits both alike;
- loading a 60-line config with ordinary aliases through safe_yaml.load_yaml against yaml.safe_load
  (CPU time), and the time to refuse the 9^9 alias bomb.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()

    import yaml

    from astro_cli.app import AppContext
    from astro_cli.config import load_settings
    from astro_cli.safe_yaml import AliasBomb, load_yaml
    from astro_cli.security.sandbox import sandbox
    from astro_cli.tools.command import run_command
    from astro_cli.tools.processes import ProcessGroups
    from astro_cli.workspace import AstroHome, Workspace

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        (root / ".astro").mkdir(parents=True)
        app = AppContext(load_settings([], env={}), Workspace(root), AstroHome(Path(tmp) / "home"))
        fence = sandbox(app)
        print(f"sandbox: {fence.report().sentence}")
        groups = ProcessGroups()

        def once(argv: list[str]) -> float:
            started = time.perf_counter()
            run_command(argv, cwd=root, env={"PATH": "/usr/bin:/bin"}, timeout=30, cancel=threading.Event(),
                        groups=groups, keep_bytes=4096)
            return (time.perf_counter() - started) * 1000

        def boxed_once() -> float:
            """As run_bash runs it (issue 41): placeholders held, the fence computed, the command run."""
            started = time.perf_counter()
            with fence.holding() as held:
                run_command(fence.wrap(["bash", "-c", "true"], root, held=held), cwd=root,
                            env={"PATH": "/usr/bin:/bin"}, timeout=30, cancel=threading.Event(), groups=groups,
                            keep_bytes=4096)
            return (time.perf_counter() - started) * 1000

        plain, boxed = [], []
        for _ in range(args.runs):
            plain.append(once(["bash", "-c", "true"]))
            boxed.append(boxed_once())
        print(f"run_command bash -c true, plain:     {statistics.median(plain):7.1f} ms (median of {args.runs})")
        if fence.active:
            print(f"run_command bash -c true, sandboxed: {statistics.median(boxed):7.1f} ms (median of {args.runs})")
            plans = []
            for _ in range(args.runs):
                started = time.perf_counter()
                fence.wrap(["true"], root)
                plans.append((time.perf_counter() - started) * 1000)
            print(f"  of which the mount plan (fence + arguments): {statistics.median(plans):.2f} ms")
            print(f"  bwrap {' '.join(fence.wrap(['bash', '-c', 'true'], root)[1:])}")
        app.close()

    config = "base: &base {timeout: 3, matcher: run_bash}\n" + "".join(f"k{n}: *base\n" for n in range(60))
    for name, load in (("yaml.safe_load", yaml.safe_load), ("safe_yaml.load_yaml", load_yaml)):
        times = []
        for _ in range(args.runs * 10):
            started = time.process_time()
            load(config)
            times.append((time.process_time() - started) * 1000)
        print(f"{name:20s} 60 aliases: {statistics.median(times):.3f} ms CPU")
    bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{c}: &{c} [{','.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
    started = time.process_time()
    try:
        load_yaml(bomb)
    except AliasBomb:
        pass
    print(f"alias bomb ({len(bomb)} bytes, 9^9 values) refused in {(time.process_time() - started) * 1000:.2f} ms CPU")


if __name__ == "__main__":
    main()
