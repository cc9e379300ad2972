"""`python -m astro_cli.worker`: the worker process, started detached by astro (lifecycle.py)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable

from astro_cli.worker.paths import WorkerPaths
from astro_cli.worker.server import WorkerServer, log


def _setup(paths: WorkerPaths) -> None:
    """A daemon's start: the root folder, /dev/null on 0-2, and a log in the runtime folder."""
    started_in = os.getcwd()
    os.chdir("/")
    if sys.path and sys.path[0] in ("", started_in):
        sys.path[0] = "/"  # never import from the folder the worker was started in
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.dup2(os.open(os.devnull, os.O_RDWR), fd)
    try:
        if os.path.getsize(paths.log) > 1 << 20:
            os.replace(paths.log, paths.log + ".1")
    except OSError:
        pass
    handler = logging.FileHandler(paths.log, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s pid %(process)d %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


def main(run_cli: Callable[[str | None], None], argv: list[str] | None = None) -> None:
    """Serve until idle; in each forked child, `run_cli(prog_name)` runs the client's command."""
    parser = argparse.ArgumentParser(prog="python -m astro_cli.worker")
    parser.add_argument("--idle-minutes", type=float, default=15.0)
    parser.add_argument("--after-exit", type=int, default=None, help="warm up once this process has ended")
    args = parser.parse_args(argv)
    paths = WorkerPaths.for_environment(os.environ)
    if paths.problem(create=True):
        sys.exit(1)
    _setup(paths)
    task = WorkerServer(paths, args.idle_minutes, serve_uid=os.getuid(), after_exit=args.after_exit).serve()
    if task is not None:
        task.run(run_cli)  # in a forked child: never returns
