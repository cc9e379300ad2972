"""Issue 32: what looking for local model servers costs, so it never slows astro's start.

    .venv/bin/python benchmarks/bench_local_probe.py [--runs 30]

Medians over RUNS of: the first run's and `astro doctor`'s look at the three usual ports
(llama.cpp 8080, vLLM 8000, LM Studio 1234; here three closed loopback ports, as on a machine
running none), and a session's one question to its local server (`GET /v1/models` of a fake
llama.cpp listing on 127.0.0.1, tests/fixtures/local_model/llamacpp_v1_models.json).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from astro_cli.local_servers import ask_server, find_servers  # noqa: E402
from tests.fakeprovider import FakeProvider  # noqa: E402

LISTING = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "local_model" / "llamacpp_v1_models.json"


def closed_ports(count: int) -> list[str]:
    urls = []
    for _ in range(count):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            urls.append(f"http://127.0.0.1:{sock.getsockname()[1]}")
    return urls


def median_ms(action, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    import httpx  # noqa: F401 - imported once, as astro has by then

    nothing = closed_ports(3)
    fake = FakeProvider()
    fake.models_listing = json.loads(LISTING.read_text())
    try:
        scan = median_ms(lambda: find_servers(nothing), args.runs)
        session = median_ms(lambda: ask_server(fake.openai_url, "openai/qwen", None), args.runs)
    finally:
        fake.close()
    print(json.dumps({"find_servers_3_closed_ports_ms": scan, "session_probe_llamacpp_ms": session,
                      "runs": args.runs, "load": round(os.getloadavg()[0], 1)}))


if __name__ == "__main__":
    main()
