"""Issue 41: what the wider redaction costs on an answer: the rule set (security/secret_shapes.py), the
encoded forms of known values (security/secret_forms.py) and the stream redactor on stdout.

    .venv/bin/python benchmarks/bench_redaction.py [--runs N] [--old DIR]

A 1,000-word answer (prose with numbers, bibcodes and a URL; no secret, the common case) is redacted
by a Redactor that knows five secrets from the environment (a provider key, an ADS token, a library
URL password, two more), whole (`redact`, what is stored and printed at the end) and as a stream of
4-character deltas (`StreamRedactor`, stream-json). `--old DIR` also times a tree extracted with
`git archive <commit> astro_cli | tar -x -C DIR` (the whole-answer redaction only: it had no stream
redactor). Medians of --runs rounds.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time

ENV = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-bench-0000000000000000000000",
    "ADS_API_TOKEN": "Xq3vLp9RtYw2Zk7Hs4Nd8Bf6Gm1Jc5Ea0Ui2Oo3P",
    "ASTRO_LIBRARY_URL": "postgresql://alice:s3cret-pass-word@db.example.org/group",
    "HF_TOKEN": "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    "MY_SERVICE_SECRET": "kN0wn-Secret/Value+42",
}
SENTENCE = ("The albedo of hot Jupiters such as HD 189733b is low (A_B < 0.3; 2011ApJ...729...54C), and heat "
            "recirculation varies with equilibrium temperature, see https://arxiv.org/abs/1001.0012 for the fit. ")


def answer(words: int = 1000) -> str:
    per = len(SENTENCE.split())
    return (SENTENCE * (words // per + 1)).strip()


def timed(function, runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def measure(runs: int) -> dict[str, float]:
    from astro_cli.security.secrets import Redactor

    redactor = Redactor.from_environment(ENV)
    text = answer()
    result = {"whole": timed(lambda: redactor.redact(text), runs)}
    try:
        from astro_cli.security.redact_stream import StreamRedactor
    except ImportError:
        return result

    def stream() -> None:
        streaming = StreamRedactor(redactor.redact)
        for start in range(0, len(text), 4):
            streaming.feed(text[start:start + 4])
        streaming.flush()

    result["stream"] = timed(stream, runs)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--old", help="a tree holding an older astro_cli")
    args = parser.parse_args()
    words = len(answer().split())
    print(f"answer: {words} words, {len(answer()):,} characters; {args.runs} runs; medians")
    if args.old:
        sys.path.insert(0, args.old)
        for name in [m for m in sys.modules if m.startswith("astro_cli")]:
            del sys.modules[name]
        importlib.invalidate_caches()
        old = measure(args.runs)
        print(f"old ({args.old}): whole {old['whole'] * 1000:.3f} ms")
        sys.path.remove(args.old)
        for name in [m for m in sys.modules if m.startswith("astro_cli")]:
            del sys.modules[name]
    new = measure(args.runs)
    print(f"now: whole {new['whole'] * 1000:.3f} ms, stream of 4-character deltas {new['stream'] * 1000:.3f} ms")


if __name__ == "__main__":
    main()
