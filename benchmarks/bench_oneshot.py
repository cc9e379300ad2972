"""Issue 18: one-shot `astro run` as fast as Claude Code: the first run, warm runs through the
worker, Claude Code on the same task, and astro's own cost per step.

    .venv/bin/python benchmarks/bench_oneshot.py [--runs N] [--steps N]

The task (the issue's): glob the notes, read one, answer: three model steps against one loopback
fake Anthropic server (tests/fakeprovider.py). Every comparison is a paired run (A, B, A, B...), so
both sides see the same machine load, and is reported as the median of the per-pair ratios:

1. first run: today's in-process run (ASTRO_WORKER=0) vs a run with the worker on and none running
   (it runs in-process and starts the worker when it is done; that worker is stopped before the next pair);
2. warm: in-process vs through a warm worker;
3. warm vs `claude -p` on the same task, when a `claude` binary is on PATH.

Wall time and CPU time (the client's, plus the worker child's as the worker counts it) come from
wait4(). The client's peak RSS is its own VmHWM, printed at exit by a three-line wrapper (wait4's
maxrss would include this script's, which Linux keeps across exec). astro's own per-step overhead
(request assembly, storage, events) is measured in-process on a warm session: turn time minus time
inside model requests minus tool time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import ASTRO, clean_env, median_of  # noqa: E402
from tests.fakeprovider import FakeProvider  # noqa: E402

QUESTION = "Which of my notes gives the flux of M87, and what is it?"
NOTES = {"m31.md": "M31: no flux measured yet.\n", "m87.md": "M87 core: 3.1 Jy at 43 GHz (VLBA, 2019).\n",
         "ngc1275.md": "NGC 1275: variable, see 2018 campaign.\n"}


# `astro run` as the console script runs it, printing its own peak resident memory when it exits.
PEAK_PROBE = (
    "import atexit, os, sys\n"
    "atexit.register(lambda: os.write(2, b'VmHWM ' + [l.split()[1] for l in open('/proc/self/status', 'rb')"
    " if l.startswith(b'VmHWM:')][0] + b'\\n'))\n"
    "sys.argv[0] = 'astro'\nfrom astro_cli.main import main\nmain()\n"
)


@dataclass
class Sample:
    wall: float
    cpu: float  # client process (user + system)
    stdout: str
    stderr: str


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> Sample:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({process.returncode}): {stderr[-800:]}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, stdout, stderr)


def peak_kb(sample: Sample) -> int:
    return int(sample.stderr.rsplit("VmHWM ", 1)[1].split()[0])


def astro_turns() -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"name": "glob_files", "arguments": {"pattern": "notes/*.md"}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes/m87.md"}}]},
        {"text": "notes/m87.md: the M87 core is 3.1 Jy at 43 GHz."},
    ]


def claude_turn(workspace: Path):
    """Claude Code's side of the same task, decided from each request (it also sends side requests)."""

    def turn(body: dict[str, Any]) -> dict[str, Any]:
        tools = {tool.get("name") for tool in body.get("tools") or []}
        last = json.dumps(body.get("messages", [])[-1:])
        if "Glob" not in tools:
            return {"text": "notes"}  # a title or other side request
        if '"tool_result"' not in last:
            return {"tool_calls": [{"name": "Glob", "arguments": {"pattern": "notes/*.md"}}]}
        if "m87.md" in last and "3.1 Jy" not in last:
            return {"tool_calls": [{"name": "Read", "arguments": {"file_path": str(workspace / "notes" / "m87.md")}}]}
        return {"text": "notes/m87.md: the M87 core is 3.1 Jy at 43 GHz."}

    return turn


class Worker:
    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.env, self.cwd = env, cwd

    def status(self) -> dict[str, Any] | None:
        from astro_cli.worker.lifecycle import status
        from astro_cli.worker.paths import WorkerPaths

        return status(WorkerPaths.for_environment(self.env))

    def child_cpu_since(self, before: float) -> float:
        """CPU seconds of the run that just ended: counted once the worker has reaped its child."""
        deadline = time.monotonic() + 10
        while True:
            found = self.status() or {}
            if found.get("running") == 0 or time.monotonic() > deadline:
                return float(found.get("children_cpu_seconds", before)) - before
            time.sleep(0.02)

    def wait_ready(self, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while self.status() is None:
            if time.monotonic() > deadline:
                raise RuntimeError("the worker did not become ready")
            time.sleep(0.2)

    def stop(self) -> None:
        subprocess.run([*ASTRO, "worker", "stop"], env=self.env, cwd=self.cwd, capture_output=True, check=False)
        from astro_cli.worker.lifecycle import lock_is_held
        from astro_cli.worker.paths import WorkerPaths

        deadline = time.monotonic() + 60
        while lock_is_held(WorkerPaths.for_environment(self.env)) and time.monotonic() < deadline:
            time.sleep(0.1)  # a worker still warming up holds its lock: wait until it is gone
            subprocess.run([*ASTRO, "worker", "stop"], env=self.env, cwd=self.cwd, capture_output=True, check=False)


def per_step_overhead(workspace: Path, fake: FakeProvider, steps: int) -> tuple[list[float], list[float]]:
    """ms per step outside model requests and tools: (first turn of a process, later turns)."""
    from astro_cli.agent import events as ev
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.bootstrap import build_app
    from astro_cli.litellm_model.loader import load_litellm

    load_litellm()  # imported already, as in a worker's child: its import is not astro's per-step cost
    os.chdir(workspace)
    os.environ.update(ASTRO_HOME=str(workspace.parent / "home"), ASTRO_MODEL="anthropic/claude-sonnet-4-5",
                      ASTRO_API_BASE=fake.url, ASTRO_API_KEY="sk-ant-bench-000000", LITELLM_LOCAL_MODEL_COST_MAP="True")
    app = build_app()
    tool_seconds: list[float] = []
    bus = EventBus()
    bus.subscribe(lambda event: tool_seconds.append(event.duration) if isinstance(event, ev.ToolFinished) else None)
    session = open_session(app, bus, permission_policy(app))
    first, later = [], []
    for turn in range(6):
        calls = [{"tool_calls": [{"name": "read_file", "arguments": {"path": "notes/m87.md"}}]}] * (steps - 1)
        fake.add(*calls, {"text": "done"})
        tool_seconds.clear()
        state = session.run_turn(f"read the note {turn}")
        assert state.step == steps, state.stop_reason
        overhead = (state.duration - state.api_duration - sum(tool_seconds)) / state.step * 1000
        (first if turn == 0 else later).append(overhead)
    session.stop("benchmark")
    app.close()
    return first, later


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7, help="pairs per comparison")
    parser.add_argument("--steps", type=int, default=20, help="steps per turn for the per-step overhead")
    args = parser.parse_args()
    runs = args.runs
    tmp = Path(tempfile.mkdtemp(prefix="bench-oneshot-"))
    runtime = Path(tempfile.mkdtemp(prefix="bw-", dir="/tmp"))
    workspace = tmp / "project"
    (workspace / "notes").mkdir(parents=True)
    for name, text in NOTES.items():
        (workspace / "notes" / name).write_text(text)
    fake = FakeProvider()
    base = clean_env(ASTRO_HOME=str(tmp / "home"), LITELLM_LOCAL_MODEL_COST_MAP="True",
                     ASTRO_MODEL="anthropic/claude-sonnet-4-5", ASTRO_API_BASE=fake.url,
                     ASTRO_API_KEY="sk-ant-bench-000000", ASTRO_RUNTIME_DIR=str(runtime))
    base.pop("ASTRO_WORKER", None)
    in_process = dict(base, ASTRO_WORKER="0")
    command = [*ASTRO, "run", "--output-format", "json", QUESTION]
    worker = Worker(base, workspace)
    try:
        # 1. The first run: today's in-process run vs the first run with the worker on.
        today, first = [], []
        debug_log = tmp / "home" / "logs" / "astro.log"
        for _ in range(runs):
            fake.add(*astro_turns())
            today.append(timed(command, in_process, workspace))
            fake.add(*astro_turns())
            first.append(timed(command, dict(base, ASTRO_DEBUG="1"), workspace))
            worker.stop()
        # What the worker adds to a first run, as that run logged it: asking for one, starting one.
        log_text = debug_log.read_text()
        asking = [float(x) for x in re.findall(r"asking took ([0-9.]+) ms", log_text)]
        starting = [float(x) for x in re.findall(r"started a worker \(pid \d+\) in ([0-9.]+) ms", log_text)]
        # 2. Warm: in-process vs through the worker (and 3. vs Claude Code when there is one).
        subprocess.run([*ASTRO, "worker", "start"], env=base, cwd=workspace, check=True, capture_output=True)
        for _ in range(2):  # the worker learns what a run needs from its first runs
            fake.add(*astro_turns())
            timed(command, base, workspace)
        time.sleep(2)
        claude = shutil.which("claude")
        cold, warm, warm_cpu, claude_runs = [], [], [], []
        for _ in range(runs):
            fake.add(*astro_turns())
            cold.append(timed(command, in_process, workspace))
            before = float(worker.status()["children_cpu_seconds"])
            fake.add(*astro_turns())
            sample = timed(command, base, workspace)
            warm.append(sample)
            warm_cpu.append(sample.cpu + worker.child_cpu_since(before))
            if claude:
                fake.add(claude_turn(workspace), claude_turn(workspace), claude_turn(workspace),
                         claude_turn(workspace), claude_turn(workspace))
                claude_env = dict(clean_env(), ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="sk-ant-bench-000000",
                                  DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1",
                                  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
                claude_runs.append(timed([claude, "-p", QUESTION, "--allowedTools", "Glob Read"], claude_env,
                                         workspace))
        peaks = []
        for _ in range(3):
            fake.add(*astro_turns())
            peaks.append(peak_kb(timed([sys.executable, "-c", PEAK_PROBE, *command[3:]], base, workspace)))
        results = [json.loads(sample.stdout.strip().splitlines()[-1]) for sample in warm]
        assert all(result["num_steps"] == 3 for result in results), results
        warm_step = [(r["duration_ms"] - r["duration_api_ms"]) / r["num_steps"] for r in results]
        status = worker.status() or {}
    finally:
        worker.stop()
        fake.close()
    fake_steps = FakeProvider()
    try:
        first_turn, later_turns = per_step_overhead(workspace, fake_steps, args.steps)
    finally:
        fake_steps.close()
        os.chdir(tmp.parent)
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)

    def ms(values: list[float]) -> str:
        return f"{median_of(values) * 1000:7.0f} ms"

    def ratio(a: list[Sample], b: list[Sample]) -> float:
        return statistics.median(x.wall / y.wall for x, y in zip(a, b))

    print(f"pairs per comparison: {runs}; load average at the end: {os.getloadavg()[0]:.1f}")
    print(f"first run, in-process today (ASTRO_WORKER=0)  wall {ms([s.wall for s in today])}  "
          f"cpu {ms([s.cpu for s in today])}")
    print(f"first run, worker on (starts it at the end)    wall {ms([s.wall for s in first])}  "
          f"(median difference {median_of([b.wall - a.wall for a, b in zip(today, first)]) * 1000:+.0f} ms)")
    print(f"  of which: asking for a worker {median_of(asking):.1f} ms, starting one {median_of(starting):.1f} ms "
          "(medians, from the run's debug log)")
    print(f"later run, in-process                          wall {ms([s.wall for s in cold])}  "
          f"cpu {ms([s.cpu for s in cold])}")
    print(f"later run, through the warm worker             wall {ms([s.wall for s in warm])}  "
          f"cpu {ms(warm_cpu)} (client {ms([s.cpu for s in warm])})")
    print(f"  paired ratio warm / in-process               {ratio(warm, cold):.3f}")
    print(f"  client peak RSS (VmHWM)                      {median_of(peaks) / 1024:.1f} MB (max {max(peaks) / 1024:.1f} MB)")
    print(f"  worker: {status.get('modules')} modules, {int(status.get('rss_kb', 0)) // 1024} MB, "
          f"{status.get('threads')} thread(s)")
    if claude_runs:
        print(f"claude -p, same task                           wall {ms([s.wall for s in claude_runs])}  "
              f"cpu {ms([s.cpu for s in claude_runs])}")
        print(f"  paired ratio astro warm / claude             {ratio(warm, claude_runs):.3f}")
    else:
        print("claude -p: no `claude` binary on PATH, not measured")
    print(f"astro per-step overhead, warm `astro run` (3 steps, tools included)  median {median_of(warm_step):.1f} ms")
    print(f"astro per-step overhead, {args.steps}-step turn, first turn of a process   median "
          f"{median_of(first_turn):.1f} ms")
    print(f"astro per-step overhead, {args.steps}-step turn, later turns              median "
          f"{median_of(later_turns):.1f} ms  (target < 20 ms)")


if __name__ == "__main__":
    main()
