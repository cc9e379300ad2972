"""The child that runs llama.cpp's server (started by local_model/server.py through python_child):
the runtime folder goes first on sys.path, the server listens on 127.0.0.1 at the given port, its
address is printed once it listens, and it serves until astro closes this child's stdin or is gone.

    python -m astro_cli.local_model.serve RUNTIME MODEL.gguf N_CTX THREADS PORT

RUNTIME `-` is the interpreter's own packages (the benchmarks' venv, which has xllamacpp installed);
PORT 0 is a free one, which the printed address names.
"""

from __future__ import annotations

import os
import select
import sys


def main(argv: list[str]) -> None:
    runtime, model, n_ctx, threads, port = argv[0], argv[1], int(argv[2]), int(argv[3]), int(argv[4])
    if runtime != "-":
        sys.path.insert(0, runtime)
    import xllamacpp  # type: ignore[import-not-found]  # in the runtime folder, not in astro's environment

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.port = port
    params.hostnames = ["127.0.0.1"]
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    server = xllamacpp.Server(params)
    print(server.listening_address, flush=True)
    parent = os.getppid()
    while os.getppid() == parent:  # until astro closes our stdin or is gone
        readable, _, _ = select.select([sys.stdin], [], [], 5.0)
        if readable and not sys.stdin.read(1):
            break
    os._exit(0)  # at once: the server's threads end with the process


if __name__ == "__main__":
    main(sys.argv[1:])
