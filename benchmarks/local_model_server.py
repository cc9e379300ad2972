"""Run by the benchmark venv's python (it has xllamacpp, astro does not): start llama.cpp's
OpenAI-compatible server on 127.0.0.1 at a free port, print its address, serve until stdin closes.

    python local_model_server.py MODEL.gguf N_CTX THREADS [PORT]   (PORT 0 or none: a free one)
"""

from __future__ import annotations

import os
import select
import sys

import xllamacpp  # type: ignore[import-not-found]


def main() -> None:
    model, n_ctx, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    port = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    params = xllamacpp.CommonParams()
    params.model.path = model
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.port = port  # 0: a free port; the server reports it in listening_address
    params.hostnames = ["127.0.0.1"]
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    server = xllamacpp.Server(params)
    print(server.listening_address, flush=True)
    parent = os.getppid()
    while os.getppid() == parent:  # until the benchmark closes our stdin or is gone
        readable, _, _ = select.select([sys.stdin], [], [], 5.0)
        if readable and not sys.stdin.read(1):
            break
    os._exit(0)  # at once, even in the middle of a request (the server's threads end with the process)


if __name__ == "__main__":
    main()
