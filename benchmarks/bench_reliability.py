"""Issue 13: reliability figures, printed as the Markdown of benchmarks/RESULTS.md's section.

    .venv/bin/python benchmarks/bench_reliability.py [--points 50] [--fuzz-examples 5000] [--seed 13]
                                                     [--only kill,faults,fuzz]

1. kill -9 at random points of a scripted multi-step turn (tool runs, a background task, a
   compaction), then `astro run --continue`: how many resumed, how many lost a message. A
   message is lost when a row stored before the kill is missing or changed afterwards, or when
   the process had announced it (a tool_finished or assistant event) but never stored it.
2. The fault table: each fault through the real `astro` process, its exit code and what the
   user sees (the error sentence, or the tool result the model is given).
3. Fuzzing with hypothesis (tests/fuzz_targets.py): SKILL.md, memory files, config files and
   tool arguments; inputs tried, crashes.

Everything runs against the fake provider and the local research server (tests/); nothing
reaches the network. The whole run takes about 20 minutes on 2 cores (mostly the 100 astro
processes of part 1).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import ASTRO, clean_env  # noqa: E402
from tests.fakeprovider import FakeProvider  # noqa: E402

SUMMARY = "## Request\nMeasure the flux.\n## Key findings\nflux 3 mJy.\n## Next step\nWrite the result."
FINAL = "The flux is 3 mJy; the result is in result.md."


# --- a scripted turn that can be resumed from any point ----------------------------------------
def last_tool(body: dict[str, Any]) -> tuple[str, str]:
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "tool":
            return message.get("name") or "", str(message.get("content") or "")
    return "", ""


def scenario(body: dict[str, Any]) -> dict[str, Any]:
    """The next step, from the last tool result the request carries (so a resumed turn goes on)."""
    messages = body.get("messages", [])
    last = str(messages[-1].get("content") if messages else "")
    if "[Compaction request]" in last:
        return {"text": SUMMARY, "delay": 1.5}  # a summary takes the model a while
    name, content = last_tool(body)
    step = {
        "": {"text": "Reading the notes.", "tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        "read_file": {"tool_calls": [{"name": "run_bash", "arguments": {"command": "sleep 2; echo measured"}}]},
        "bg_task_run": {"tool_calls": [{"name": "todo_write", "arguments": {"todos": [
            {"id": "1", "content": "measure the flux", "status": "completed"},
            {"id": "2", "content": "write the result", "status": "in_progress"}]}}]},
        "todo_write": {"tool_calls": [{"name": "compress_context", "arguments": {"focus": "the flux"}}]},
        "compress_context": {"tool_calls": [{"name": "run_bash", "arguments": {"command": "sleep 2; echo waited"}}]},
        "file_write": {"text": FINAL},
    }
    if name == "run_bash":
        if "waited" in content or "interrupted" in content and "echo waited" in json.dumps(messages[-6:]):
            return {"tool_calls": [{"name": "file_write", "arguments": {"path": "result.md", "content": "3 mJy\n"}}]}
        return {"tool_calls": [{"name": "bg_task_run", "arguments": {
            "tool": "run_bash", "arguments": {"command": "sleep 5; echo background done"}}}]}
    turn = dict(step.get(name, {"text": FINAL}))
    turn["delay"] = 0.15  # a model takes a moment
    return turn


class Provider:
    """The fake provider answering every request with `scenario`."""

    def __init__(self) -> None:
        self.fake = FakeProvider()
        self.fake.add(*[scenario] * 100_000)

    def env(self, home: Path) -> dict[str, str]:
        return clean_env(
            ASTRO_HOME=str(home), ASTRO_MODEL="openai/fake-model", ASTRO_API_BASE=self.fake.openai_url,
            ASTRO_API_KEY="bench", ASTRO_RETRY_BACKOFF="0.01", LITELLM_LOCAL_MODEL_COST_MAP="True",
            ASTRO_PERMISSIONS_ALLOW="run_bash,file_write", NO_COLOR="1", COLUMNS="200",
            ASTRO_ARXIV_URL="http://127.0.0.1:9/api/query", ASTRO_ADS_URL="http://127.0.0.1:9/v1",
        )

    def close(self) -> None:
        self.fake.close()


def stored(workspace: Path) -> list[tuple]:
    """(session, seq, role, kind, message) rows of the workspace's main sessions."""
    db = workspace / ".astro" / "astro.db"
    if not db.exists():
        return []
    connection = sqlite3.connect(db)
    try:
        return connection.execute(
            "SELECT m.session_id, m.seq, m.role, m.kind, m.message FROM agent_messages m JOIN sessions s "
            "ON s.id = m.session_id WHERE s.parent_id IS NULL ORDER BY m.session_id, m.seq").fetchall()
    except sqlite3.DatabaseError:
        return []
    finally:
        connection.close()


def phase_of(events: list[dict[str, Any]]) -> str:
    """Where the turn was when it was killed, from the events it had printed."""
    open_tools: dict[str, str] = {}
    compacting = background = False
    phase = "starting the turn"
    for event in events:
        kind = event.get("type")
        if kind == "tool_started":
            open_tools[event["call_id"]] = event["name"]
        elif kind == "tool_finished":
            open_tools.pop(event["call_id"], None)
            if event["name"] == "bg_task_run":
                background = True
        elif kind == "notice" and "background task" in event.get("text", ""):
            background = False
        elif kind == "compaction_started":
            compacting = True
        elif kind == "compacted":
            compacting = False
        elif kind in ("thinking", "text_delta", "step_started"):
            phase = "model request"
    if compacting:
        phase = "compaction"
    elif open_tools:
        phase = f"inside {next(iter(open_tools.values()))}"
    return phase + (" (background task running)" if background else "")


def run_until_killed(env: dict[str, str], workspace: Path, delay: float | None) -> tuple[list[dict[str, Any]], float]:
    """Start the turn, kill -9 `delay` seconds after it started (None: let it finish); the events
    printed until then, and the seconds from the turn's start to the process's end."""
    proc = subprocess.Popen([*ASTRO, "run", "--output-format", "stream-json", "Measure the flux and write it down"],
                            env=env, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    events: list[dict[str, Any]] = []
    started = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            events.append(event)
            if event.get("type") == "turn_started":
                started.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    started.wait(120)
    turn_began = time.monotonic()
    if delay is None:
        proc.wait(300)
    else:
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    reader.join(5)
    return list(events), time.monotonic() - turn_began


def announced(events: list[dict[str, Any]]) -> tuple[set[str], int]:
    """Tool call ids whose results were announced, and the number of assistant messages announced."""
    return ({e["call_id"] for e in events if e.get("type") == "tool_finished" and not e["call_id"].startswith("bg-")},
            sum(1 for e in events if e.get("type") == "assistant"))


def valid_history(body: dict[str, Any]) -> bool:
    """Every tool call is answered by a tool result (what providers insist on)."""
    calls = [c["id"] for m in body["messages"] if m.get("role") == "assistant" for c in m.get("tool_calls") or []]
    results = [m.get("tool_call_id") for m in body["messages"] if m.get("role") == "tool"]
    return sorted(calls) == sorted(results)


def kill_points(points: int, seed: int) -> str:
    rng = random.Random(seed)
    provider = Provider()
    lines = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            ws = Path(tmp) / "calibrate"
            ws.mkdir()
            (ws / "notes.txt").write_text("flux 3 mJy at 1.4 GHz\n" * 50)
            events, turn_seconds = run_until_killed(provider.env(Path(tmp) / "home"), ws, None)
            finished = [e for e in events if e.get("type") == "turn_finished"]
            assert finished and finished[-1]["answer"] == FINAL, events[-3:]
        print(f"calibration: the turn took {turn_seconds:.1f} s ({finished[-1]['num_steps']} steps); kills fall "
              "uniformly in that span after the turn starts", file=sys.stderr)
        resumed = lost = invalid = 0
        phases: Counter[str] = Counter()
        for point in range(points):
            with tempfile.TemporaryDirectory() as tmp:
                ws = Path(tmp) / "project"
                ws.mkdir()
                (ws / "notes.txt").write_text("flux 3 mJy at 1.4 GHz\n" * 50)
                env = provider.env(Path(tmp) / "home")
                delay = rng.uniform(0, turn_seconds)
                events, _ = run_until_killed(env, ws, delay)
                phase = phase_of(events)
                phases[phase] += 1
                before = stored(ws)
                ids, assistants = announced(events)
                stored_ids = {json.loads(r[4]).get("tool_call_id") for r in before if r[2] == "tool"}
                stored_assistants = sum(1 for r in before if r[2] == "assistant")
                requests_before = len(provider.fake.requests)
                out = subprocess.run([*ASTRO, "run", "--continue", "--output-format", "json", "Go on"], env=env,
                                     cwd=ws, capture_output=True, text=True, timeout=300)
                after = stored(ws)
                ok = out.returncode == 0 and json.loads(out.stdout.strip().splitlines()[-1])["answer"] == FINAL
                same = not before or {r[0] for r in before} <= {r[0] for r in after}
                kept = after[: len(before)] == before if before else True
                told = ids <= stored_ids and assistants <= stored_assistants
                first = provider.fake.requests[requests_before]["body"] if len(provider.fake.requests) > requests_before else None
                history_ok = first is not None and valid_history(first)
                resumed += ok and same
                lost += not (kept and told)
                invalid += not history_ok
                status = "resumed" if ok and same else f"NOT resumed (exit {out.returncode})"
                note = "" if kept and told else " MESSAGE LOST"
                print(f"kill {point + 1:2d}/{points} at {delay:5.2f} s, {phase}: {status}{note}", file=sys.stderr)
        lines.append(f"| kill -9 points | resumed with `--continue` | runs that lost a message | "
                     f"histories the provider would refuse |\n| ---: | ---: | ---: | ---: |\n"
                     f"| {points} | {resumed} / {points} | {lost} / {points} | {invalid} / {points} |")
        lines.append("\nWhere the kills fell (from the last events the process printed):\n")
        lines.append("| phase | kills |\n| --- | ---: |")
        lines += [f"| {phase} | {count} |" for phase, count in sorted(phases.items(), key=lambda kv: -kv[1])]
    finally:
        provider.close()
    return "\n".join(lines)


# --- the fault table -----------------------------------------------------------------------------
class Case:
    def __init__(self, fault: str, turns: list[Any] | None = None, args: list[str] | None = None,
                 setup: Callable[[Path, Path], None] | None = None, env: dict[str, str] | None = None,
                 shows: Callable[[subprocess.CompletedProcess, FakeProvider], str] | None = None,
                 run: Callable[[dict[str, str], Path, FakeProvider], subprocess.CompletedProcess] | None = None) -> None:
        self.fault, self.turns, self.args, self.setup, self.env = fault, turns or [], args, setup, env or {}
        self.shows = shows or error_line
        self.run = run


def error_line(proc: subprocess.CompletedProcess, fake: FakeProvider) -> str:
    for prefix in ("error:", "warning:", "rate limited", "provider error", "note:", "interrupted"):
        for line in proc.stderr.splitlines():
            if line.strip().startswith(prefix):
                return line.strip()
    return (proc.stderr.strip().splitlines() or ["(nothing)"])[-1]


def tool_result(proc: subprocess.CompletedProcess, fake: FakeProvider) -> str:
    bodies = fake.bodies()
    results = [m["content"] for m in bodies[-1]["messages"] if m["role"] == "tool"] if bodies else []
    return "model is told: " + (results[-1].replace("\n", " ")[:220] if results else "(nothing)")


def stdout_line(proc: subprocess.CompletedProcess, fake: FakeProvider) -> str:
    """What stdout says (the answer, or the command's report), then any note or warning on stderr."""
    shown = "stdout: " + " / ".join(line.strip() for line in proc.stdout.splitlines()[:2])
    notes = [line.strip() for line in (proc.stdout + proc.stderr).splitlines()
             if line.strip().lower().startswith("note:")]
    note = " / ".join(notes) or (error_line(proc, fake) if proc.stderr.strip() else "")
    return f"{shown} — {note}" if note else shown


def write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)


def hold_session(env: dict[str, str], ws: Path, fake: FakeProvider) -> subprocess.CompletedProcess:
    fake.add({"text": "first"})
    subprocess.run([*ASTRO, "run", "first"], env=env, cwd=ws, capture_output=True)
    fake.add({"text": "slow", "hang": True})
    holder = subprocess.Popen([*ASTRO, "run", "--continue", "second"], env=env, cwd=ws, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        fake.hanging.wait(60)
        return subprocess.run([*ASTRO, "run", "--continue", "third"], env=env, cwd=ws, capture_output=True, text=True)
    finally:
        fake.release.set()
        holder.wait(60)


def interrupted_command(sig: int) -> Callable[[dict[str, str], Path, FakeProvider], subprocess.CompletedProcess]:
    def run(env: dict[str, str], ws: Path, fake: FakeProvider) -> subprocess.CompletedProcess:
        fake.add({"tool_calls": [{"name": "run_bash", "arguments": {"command": "touch started; sleep 5; touch effect"}}]})
        # A shell without job control starts background jobs with SIGINT ignored, and Python keeps an
        # ignored SIGINT ignored: give astro the default disposition, as a terminal's foreground job has.
        proc = subprocess.Popen([*ASTRO, "run", "--allow", "run_bash", "go"], env=env, cwd=ws,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 60
        while not (ws / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        time.sleep(5.5)
        err += "" if not (ws / "effect").exists() else "\n(the command went on after astro stopped)"
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    return run


def library_add(bomb: bool) -> Callable[[dict[str, str], Path, FakeProvider], subprocess.CompletedProcess]:
    def run(env: dict[str, str], ws: Path, fake: FakeProvider) -> subprocess.CompletedProcess:
        from tests.research.text.test_faults_latex import macro_bomb
        from tests.research_server import ResearchServer, tar_gz_bytes

        server = ResearchServer()
        try:
            if bomb:
                server.eprints["1001.0012"] = tar_gz_bytes({"ms.tex": macro_bomb().encode()})
                return subprocess.run([*ASTRO, "library", "add", "1001.0012"], env={**env, **server.env()}, cwd=ws,
                                      capture_output=True, text=True, timeout=300)
            server.slow_down("/pdf/", 2.0)
            procs = [subprocess.Popen([*ASTRO, "library", "add", "1001.0012", "--no-parse"], env={**env, **server.env()},
                                      cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
            outs = [p.communicate(timeout=300) for p in procs]
            code = max(p.returncode for p in procs)
            return subprocess.CompletedProcess([], code, " / ".join(o[0].strip() for o in outs),
                                               "\n".join(o[1] for o in outs))
        finally:
            server.close()
    return run


def cases() -> list[Case]:
    garbage = os.urandom(4096)
    hook = {"hooks": {"PreToolUse": [{"matcher": "read_file", "hooks": [{"type": "command", "command": "exit 1"}]}]}}
    hang = {"hooks": {"PreToolUse": [{"matcher": "read_file", "hooks": [
        {"type": "command", "command": "sleep 30", "timeout": 1}]}]}}
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}
    import yaml

    return [
        Case("provider 429 with retry-after: 2, then an answer", [{"status": 429, "error": "rate limited",
             "headers": {"retry-after": "2"}}, {"text": "ok"}]),
        Case("provider 429 asking for an hour", [{"status": 429, "error": "quota", "headers": {"retry-after": "3600"}}]),
        Case("provider 500, four times", [{"status": 500, "error": "overloaded"}] * 4),
        Case("provider timeout (no answer within `timeout`), four times", [{"text": "late", "delay": 2}] * 4,
             env={"ASTRO_TIMEOUT": "1"}),
        Case("provider 401 (a bad key)", [{"status": 401, "error": "invalid x-api-key"}]),
        Case("no provider key", [], env={"ASTRO_API_KEY": "", "ASTRO_API_BASE": "", "ASTRO_MODEL":
                                          "anthropic/claude-sonnet-4-5"}),
        Case("answer cut at the token limit, then finished", [{"text": "half ", "finish": "length"}, {"text": "whole"}],
             shows=stdout_line),
        Case("answer still cut after max_continuations", [{"text": "a ", "finish": "length"}] * 4,
             env={"ASTRO_MAX_CONTINUATIONS": "1"}),
        Case("malformed tool arguments", [{"tool_calls": [{"name": "read_file", "arguments": '{"path": "notes'}]},
                                          {"text": "ok"}], shows=tool_result),
        Case("arguments of the wrong type", [{"tool_calls": [{"name": "read_file", "arguments":
             {"path": "notes.txt", "offset": "two"}}]}, {"text": "ok"}], shows=tool_result),
        Case("unknown tool", [{"tool_calls": [{"name": "launch_rocket", "arguments": {}}]}, {"text": "ok"}],
             shows=tool_result),
        Case("two empty replies", [{"text": ""}, {"text": ""}]),
        Case("run_bash past bash.timeout with a detached child holding its output",
             [{"tool_calls": [{"name": "run_bash", "arguments": {"command": "setsid sleep 40 & echo started; sleep 30"}}]},
              {"text": "ok"}], args=["run", "--allow", "run_bash", "go"], env={"ASTRO_BASH_TIMEOUT": "2"},
             shows=tool_result),
        Case("SIGINT while a command runs", run=interrupted_command(signal.SIGINT)),
        Case("SIGTERM while a command runs", run=interrupted_command(signal.SIGTERM)),
        Case("broken SKILL.md", [{"text": "ok"}],
             setup=lambda ws, home: write(ws / "skills" / "fit" / "SKILL.md", "---\nname: fit\n  bad: [\n---\nbody")),
        Case("broken memory file", [{"text": "ok"}],
             setup=lambda ws, home: write(ws / "memory" / "m.md", "---\ntype: project\ndescription: x\n"
                                          "updated: 2025-13-01\n---\nbody")),
        Case("config: not YAML", [], setup=lambda ws, home: write(ws / ".astro" / "config.yaml", "model: [x\n")),
        Case("config: a value of the wrong type", [],
             setup=lambda ws, home: write(ws / ".astro" / "config.yaml", "max_steps: many\n")),
        Case("config: not UTF-8 (user file)", [],
             setup=lambda ws, home: write(home / "config.yaml", "# r\u00e9sum\u00e9\n".encode("latin-1"))),
        Case("database: garbage", [], setup=lambda ws, home: write(ws / ".astro" / "astro.db", garbage)),
        Case("database: a folder", [], setup=lambda ws, home: (ws / ".astro" / "astro.db").mkdir(parents=True)),
        Case("session in use by another process", run=hold_session),
        Case("hook exits 1 (fail_closed false)", [read, {"text": "ok"}],
             setup=lambda ws, home: write(home / "config.yaml", yaml.safe_dump(hook))),
        Case("hook hangs past its timeout", [read, {"text": "ok"}],
             setup=lambda ws, home: write(home / "config.yaml", yaml.safe_dump(hang))),
        Case("LaTeX macro bomb in an arXiv source (`astro library add`)", run=library_add(bomb=True),
             shows=stdout_line),
        Case("three `astro library add` of one paper at once", run=library_add(bomb=False), shows=stdout_line),
    ]


def fault_table() -> str:
    rows = ["| fault | exit code | what the user sees |", "| --- | ---: | --- |"]
    for case in cases():
        fake = FakeProvider()
        try:
            with tempfile.TemporaryDirectory() as tmp:
                ws, home = Path(tmp) / "project", Path(tmp) / "home"
                ws.mkdir()
                (ws / "notes.txt").write_text("flux 3 mJy\n")
                env = clean_env(ASTRO_HOME=str(home), ASTRO_MODEL="openai/fake-model", ASTRO_API_BASE=fake.openai_url,
                                ASTRO_API_KEY="bench", ASTRO_RETRY_BACKOFF="0.01", NO_COLOR="1", COLUMNS="400",
                                LITELLM_LOCAL_MODEL_COST_MAP="True", ASTRO_ARXIV_URL="http://127.0.0.1:9/api/query")
                env.update(case.env)
                env = {k: v for k, v in env.items() if v != ""}
                if case.setup:
                    case.setup(ws, home)
                fake.add(*case.turns)
                if case.run is not None:
                    proc = case.run(env, ws, fake)
                else:
                    proc = subprocess.run([*ASTRO, *(case.args or ["run", "go"])], env=env, cwd=ws,
                                          capture_output=True, text=True, timeout=300)
                shown = case.shows(proc, fake).replace(tmp, "…").replace("|", "\\|")
                if "Traceback" in proc.stderr:
                    shown += " **(traceback)**"
                rows.append(f"| {case.fault} | {proc.returncode} | {shown} |")
                print(rows[-1], file=sys.stderr)
        finally:
            fake.close()
    return "\n".join(rows)


# --- fuzzing -----------------------------------------------------------------------------------
def fuzz(examples: int) -> str:
    from hypothesis import strategies as st

    from tests import fuzz_targets as fz

    rows = ["| target | inputs tried | crashes |", "| --- | ---: | ---: |"]
    harness = fz.ToolHarness()

    def tool(pair: tuple[str, str], root: Path) -> None:
        harness.call(*pair)

    targets = [
        ("SKILL.md files (parse_skill)", fz.SKILL_DOCS, fz.skill_md),
        ("memory files (read_memory)", fz.MEMORY_DOCS, fz.memory_file),
        ("config files (load_settings)", fz.CONFIG_DOCS, fz.config_file),
        (f"tool arguments ({len(fz.TOOL_NAMES)} tools, checked and run)",
         st.tuples(st.sampled_from(fz.TOOL_NAMES), fz.TOOL_ARGUMENTS), tool),
    ]
    try:
        for label, strategy, target in targets:
            tried, crashes = fuzz_one(strategy, target, examples)
            rows.append(f"| {label} | {tried:,} | {len(crashes)} |")
            for crash in crashes[:5]:
                print(f"CRASH {label}: {crash}", file=sys.stderr)
    finally:
        harness.close()
    return "\n".join(rows)


def fuzz_one(strategy: Any, target: Callable[[Any, Path], None], examples: int) -> tuple[int, list[str]]:
    """(inputs tried, crashes) of `examples` generated inputs fed to `target`."""
    from hypothesis import HealthCheck, given, settings

    from tests.fuzz_targets import describe

    tried, crashes = [0], []

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def check(value: Any) -> None:
        tried[0] += 1
        with tempfile.TemporaryDirectory() as tmp:
            try:
                target(value, Path(tmp))
            except Exception as exc:  # noqa: BLE001 - counted and printed, not hidden
                crashes.append(f"{type(exc).__name__}: {exc} on {describe(value)}")

    check()
    return tried[0], crashes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=50)
    parser.add_argument("--fuzz-examples", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--only", default="kill,faults,fuzz")
    args = parser.parse_args()
    parts = set(args.only.split(","))
    print(f"load average at start: {os.getloadavg()[0]:.1f}\n")
    if "kill" in parts:
        print(kill_points(args.points, args.seed) + "\n", flush=True)
    if "faults" in parts:
        print(fault_table() + "\n", flush=True)
    if "fuzz" in parts:
        print(fuzz(args.fuzz_examples), flush=True)


if __name__ == "__main__":
    main()
