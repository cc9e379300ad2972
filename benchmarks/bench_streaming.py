"""Issue 13: a long tool call streamed in small pieces (a model writing a file through file_write).

    .venv/bin/python benchmarks/bench_streaming.py [--runs 3] [--kb 250] [--e2e-kb 250,1000]

The fake provider runs in a process of its own, so its work is neither in the wall times nor in
the CPU times measured here; arguments stream in 20-character pieces (about 13,000 chunks for
250 KB), in the OpenAI and the Anthropic wire format. Per chunk, for each format:

1. litellm, read as astro read it before issue 13 (litellm's defaults: every chunk kept for the
   end-of-stream rebuild, a logging task per chunk), nothing else done with the chunks;
2. litellm, read as astro reads it now (litellm_model/adapter.py: logging task off, the kept chunks trimmed);
3. astro's own work per chunk (agent/stream.py StreamAccumulator.add and, for text, the event
   bus with the one-shot printer subscribed), over chunks recorded from the stream.

Then end to end: `astro run` whose model writes a file of each --e2e-kb size with file_write;
`--compare PATH` runs another checkout (the code before a change) interleaved with this one.
Medians of --runs runs; CPU is the process's own CPU time (all its threads).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import ASTRO, clean_env, median_of  # noqa: E402

SERVER = """
import sys, time
sys.path.insert(0, {root!r})
from tests.fakeprovider import FakeProvider
fake = FakeProvider()
print(fake.port, flush=True)
for line in sys.stdin:
    fake.add(__import__("json").loads(line))
"""
TOOLS = [{"type": "function", "function": {"name": "file_write", "parameters": {"type": "object", "properties": {}}}}]
FORMATS = {"openai": "openai/fake-model", "anthropic": "anthropic/claude-sonnet-4-5"}


class Provider:
    """The fake provider in a child process; turns are sent to it as JSON lines."""

    def __init__(self) -> None:
        root = str(Path(__file__).resolve().parent.parent)
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER.format(root=root)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())

    def base(self, fmt: str) -> str:
        return f"http://127.0.0.1:{self.port}" + ("/v1" if fmt == "openai" else "")

    def add(self, *turns: dict) -> None:
        assert self.proc.stdin is not None
        for turn in turns:
            self.proc.stdin.write(json.dumps(turn) + "\n")
        self.proc.stdin.flush()
        time.sleep(0.05)

    def close(self) -> None:
        self.proc.kill()


def file_write_turn(kb: int) -> dict:
    content = ("x" * 79 + "\n") * (kb * 1024 // 80)
    return {"tool_calls": [{"name": "file_write", "arguments": {"path": "out.txt", "content": content}}],
            "arg_chunk": 20}


def read_stream(litellm, provider: Provider, fmt: str, kb: int, astro_way: bool) -> tuple[float, float, int, list]:
    """(wall s, cpu s, chunks, the chunks) of one stream read with nothing done per chunk."""
    from astro_cli.agent.stream import FORGET_EVERY
    from astro_cli.litellm_model.compat import forget_chunks

    litellm.disable_streaming_logging = astro_way
    provider.add(file_write_turn(kb))
    wall, cpu = time.perf_counter(), time.process_time()
    response = litellm.completion(model=FORMATS[fmt], api_base=provider.base(fmt), api_key="bench",
                                  messages=[{"role": "user", "content": "write"}], tools=TOOLS, stream=True,
                                  stream_options={"include_usage": True}, num_retries=0)
    chunks = []
    for count, chunk in enumerate(response, start=1):
        chunks.append(chunk)
        if astro_way and count % FORGET_EVERY == 0:
            forget_chunks(response)
    return time.perf_counter() - wall, time.process_time() - cpu, len(chunks), chunks


def astro_work(chunks: list, text: bool) -> float:
    """Seconds of astro's own work over `chunks` (accumulator; for text also the event bus and printer)."""
    from astro_cli.agent import events as ev
    from astro_cli.agent.stream import StreamAccumulator
    from astro_cli.ui.oneshot import OneShotPrinter

    bus = ev.EventBus()
    bus.subscribe(OneShotPrinter("json").handle)
    on_text = (lambda piece: bus.emit(ev.TextDelta(text=piece))) if text else (lambda piece: None)
    started = time.perf_counter()
    accumulator = StreamAccumulator([], on_text)
    for chunk in chunks:
        accumulator.add(chunk)
    accumulator.tool_calls()
    return time.perf_counter() - started


def text_chunks(chunks: list) -> list:
    """The same chunks with their argument pieces moved into text deltas (a long streamed answer)."""
    from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices

    out = []
    for chunk in chunks:
        pieces = [c.function.arguments for c in (chunk.choices[0].delta.tool_calls or []) if c.function] \
            if chunk.choices else []
        out.append(ModelResponseStream(choices=[StreamingChoices(delta=Delta(content="".join(p for p in pieces if p)))]))
    return out


def per_chunk(args: argparse.Namespace) -> None:
    from astro_cli.litellm_model.loader import load_litellm

    litellm = load_litellm()
    provider = Provider()
    try:
        print("| format | measurement | wall per chunk | CPU per chunk |\n| --- | --- | ---: | ---: |")
        for fmt in FORMATS:
            read_stream(litellm, provider, fmt, 8, True)  # warm: litellm's lazy imports for the provider
            rows = {}
            recorded: list = []
            for astro_way in (False, True):
                walls, cpus = [], []
                for _ in range(args.runs):
                    wall, cpu, count, chunks = read_stream(litellm, provider, fmt, args.kb, astro_way)
                    walls.append(wall / count)
                    cpus.append(cpu / count)
                    recorded = chunks
                rows[astro_way] = (median_of(walls), median_of(cpus), count)
            for astro_way, label in ((False, "litellm, as astro read it before (defaults)"),
                                     (True, "litellm, as astro reads it now")):
                wall, cpu, count = rows[astro_way]
                print(f"| {fmt} | {label}, {count} chunks | {wall * 1000:.3f} ms | {cpu * 1000:.3f} ms |")
            tool = median_of([astro_work(recorded, text=False) for _ in range(max(5, args.runs))]) / len(recorded)
            texts = text_chunks(recorded)
            text = median_of([astro_work(texts, text=True) for _ in range(max(5, args.runs))]) / len(texts)
            print(f"| {fmt} | astro's own work, tool-call arguments | {tool * 1000:.4f} ms | |")
            print(f"| {fmt} | astro's own work, answer text (event bus and printer included) | {text * 1000:.4f} ms | |")
    finally:
        provider.close()


def astro_run_file_write(provider: Provider, kb: int, astro_path: str | None) -> tuple[float, float]:
    """(wall s, s inside model requests) of one `astro run` whose model writes a `kb` KB file."""
    with tempfile.TemporaryDirectory() as tmp:
        env = clean_env(ASTRO_HOME=str(Path(tmp) / "home"), ASTRO_MODEL=FORMATS["openai"],
                        ASTRO_API_BASE=provider.base("openai"), ASTRO_API_KEY="bench",
                        ASTRO_CONTEXT_WINDOW="10000000", LITELLM_LOCAL_MODEL_COST_MAP="True")
        if astro_path:
            env["PYTHONPATH"] = astro_path
        provider.add(file_write_turn(kb), {"text": "Written."})
        started = time.perf_counter()
        out = subprocess.run([*ASTRO, "run", "--allow", "file_write", "--output-format", "json", "Write the file"],
                             env=env, cwd=tmp, capture_output=True, text=True)
        wall = time.perf_counter() - started
        result = json.loads(out.stdout.strip().splitlines()[-1])
        assert result["answer"] == "Written.", out.stderr[-500:]
        assert os.path.getsize(Path(tmp) / "out.txt") >= kb * 1000
        return wall, result["duration_api_ms"] / 1000


def end_to_end(args: argparse.Namespace) -> None:
    """Each size, this checkout and (with --compare PATH) another one, runs interleaved so both see
    the same machine load."""
    checkouts = [("this checkout", None)] + ([(f"`{args.compare}`", args.compare)] if args.compare else [])
    provider = Provider()
    try:
        print("\n| `astro run`, file written with file_write | astro | wall (median) | inside model requests |\n"
              "| --- | --- | ---: | ---: |")
        for kb in [int(k) for k in args.e2e_kb.split(",")]:
            runs: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in checkouts}
            for _ in range(args.runs):
                for label, path in checkouts:
                    runs[label].append(astro_run_file_write(provider, kb, path))
            for label, _ in checkouts:
                walls, apis = zip(*runs[label])
                print(f"| {kb} KB ({kb * 1024 // 20:,} chunks) | {label} | {median_of(list(walls)):.1f} s | "
                      f"{median_of(list(apis)):.1f} s |")
    finally:
        provider.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kb", type=int, default=250)
    parser.add_argument("--e2e-kb", default="250,1000")
    parser.add_argument("--compare", help="also measure `astro run` from another checkout (its path), interleaved")
    parser.add_argument("--skip-per-chunk", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}; runs per figure: {args.runs}\n")
    if not args.skip_per_chunk:
        per_chunk(args)
    if args.e2e_kb:
        end_to_end(args)


if __name__ == "__main__":
    main()
