"""Issue 7: what compaction costs each step, and a long session in a small window.

    .venv/bin/python benchmarks/bench_compaction.py [--runs 15] [--steps 210]

- per-step check: the engine's transform_messages on a history of N messages (tool results of
  about 2,000 characters, window large enough that nothing is compacted): assemble the prompt,
  count the request with litellm's counter (cached per message), compare with the threshold.
  "cold" counts every message (first request of a process); "warm" is a later step, with one new
  exchange since the previous request.
- pure layers: snip, micro, the safe summary cut and aggressive over 1,000 messages.
- long session: `--steps` scripted steps through the real loop and litellm against the fake
  provider (tests/fakeprovider.py), window = baseline + 12,000 tokens; every request measured.
Each timing is the median of --runs runs.
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


def exchange(n: int) -> list[dict]:
    call = {
        "id": f"c{n}",
        "type": "function",
        "function": {"name": "read_file", "arguments": f'{{"path": "f{n}"}}'},
    }
    body = " ".join(f"token{(n * 7 + k) % 501}" for k in range(300))
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{n}", "name": "read_file", "content": body},
    ]


def history(count: int) -> list[dict]:
    messages = [{"role": "user", "content": "Survey the files."}]
    n = 0
    while len(messages) < count:
        messages += exchange(n)
        n += 1
    return messages[:count] if messages[count - 1]["role"] == "tool" else messages[: count - 1]


def open_session(workspace: Path, fake, **env: str):
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session as open_
    from astro_cli.agent.factory import permission_policy
    from astro_cli.bootstrap import build_app

    os.chdir(workspace)
    for key in [k for k in os.environ if k.startswith("ASTRO_")]:
        del os.environ[key]
    os.environ.update(
        ASTRO_HOME=str(workspace.parent / "home"),
        ASTRO_MODEL="openai/fake-model",
        ASTRO_API_BASE=fake.openai_url,
        ASTRO_API_KEY="sk-bench",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        ASTRO_RETRY_BACKOFF="0.01",
        **env,
    )
    app = build_app()
    return app, open_(app, EventBus(), permission_policy(app, yes=True))


def per_step(root: Path, fake, runs: int) -> list[tuple[int, float, float]]:
    from astro_cli.agent.turn_state import TurnState
    from astro_cli.compact.engine import CompactionEngine

    rows = []
    for count in (50, 200, 1000):
        workspace = root / f"step{count}"
        workspace.mkdir()
        app, session = open_session(workspace, fake, ASTRO_CONTEXT_WINDOW="5000000")
        base = history(count)
        state = TurnState(session=session, turn=1, prompt="Survey the files.", max_steps=10)
        cold, warm = [], []
        for run in range(runs):
            engine = CompactionEngine(app)
            messages = list(base)
            started = time.perf_counter()
            engine.transform_messages(state, messages)
            cold.append(time.perf_counter() - started)
            messages += exchange(10_000 + run)
            started = time.perf_counter()
            engine.transform_messages(state, messages)
            warm.append(time.perf_counter() - started)
        rows.append((count, statistics.median(cold) * 1000, statistics.median(warm) * 1000))
        app.close()
    return rows


def pure_layers(runs: int) -> dict[str, float]:
    from astro_cli.compact import layers as L

    messages = history(1000)
    timings: dict[str, list[float]] = {"snip": [], "micro": [], "summary cut": [], "aggressive": []}
    for _ in range(runs):
        for name, fn in (
            ("snip", lambda: L.snip(messages)),
            ("micro", lambda: L.micro(messages, 5)),
            ("summary cut", lambda: L.summary_cut(messages, 6)),
            ("aggressive", lambda: L.aggressive(messages, 2)),
        ):
            started = time.perf_counter()
            fn()
            timings[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) * 1000 for name, values in timings.items()}


def long_session(root: Path, fake, steps: int) -> dict[str, float]:
    from astro_cli.compact.records import CompactionStore
    from astro_cli.litellm_model.loader import load_litellm
    from tests.compact_support import ScriptedModel, baseline_tokens, read, write_files

    workspace = root / "long"
    workspace.mkdir()
    sizes = {"notes.txt": 40, "table.txt": 250, "paper.txt": 700, "catalog.txt": 1500}
    write_files(workspace, sizes)
    app, session = open_session(workspace, fake)
    window = baseline_tokens(session) + 12000
    app.close()
    names = list(sizes)
    model = ScriptedModel([read(names[i % 4]) for i in range(steps)], final="done").attach(fake, steps + 200)
    app, session = open_session(
        workspace, fake, ASTRO_CONTEXT_WINDOW=str(window), ASTRO_MAX_STEPS=str(steps + 5)
    )
    started = time.perf_counter()
    state = session.run_turn("Survey every file, again and again.")
    elapsed = time.perf_counter() - started
    counter = load_litellm().token_counter
    sent = [
        counter(model="openai/fake-model", messages=b["messages"], tools=b.get("tools")) for b in model.seen
    ]
    layers = [r["layer"] for r in CompactionStore(app.db).list(session.session_id)]
    app.close()
    return {
        "stop": state.stop_reason,
        "requests": len(model.seen),
        "window": window,
        "largest": max(sent),
        "summaries": model.summaries,
        "rounds_layers": {name: layers.count(name) for name in sorted(set(layers))},
        "seconds": elapsed,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--steps", type=int, default=210)
    args = parser.parse_args()
    from tests.fakeprovider import FakeProvider

    print(f"command: .venv/bin/python benchmarks/bench_compaction.py --runs {args.runs} --steps {args.steps}")
    fake = FakeProvider()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            from astro_cli.litellm_model.loader import load_litellm

            load_litellm()
            for count, cold, warm in per_step(root, fake, args.runs):
                print(f"per-step check, {count} messages: cold {cold:.1f} ms, warm {warm:.2f} ms")
            for name, ms in pure_layers(args.runs).items():
                print(f"layer over 1,000 messages, {name}: {ms:.2f} ms")
            result = long_session(root, fake, args.steps)
            print(
                f"long session: {args.steps} steps, {result['requests']} requests ({result['summaries']} summaries), "
                f"stop {result['stop']}, largest request {result['largest']:,} of a {result['window']:,}-token "
                f"window ({100 * result['largest'] / result['window']:.0f}%), layers run {result['rounds_layers']}, "
                f"{result['seconds']:.1f} s"
            )
    finally:
        fake.close()


if __name__ == "__main__":
    main()
