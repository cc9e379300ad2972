"""How fast this machine makes vectors, measured by the indexer and kept for the next estimate.

"Vectors in ~N s" used a constant (0.2 s a chunk): Planck's 387 chunks were promised in 77 s and
took 399 s on a loaded machine. Now every indexer measures its own CPU (getrusage, all its threads)
per chunk and the CPU it spent starting (imports, the model), and keeps the last few in
ASTRO_HOME/embed-speed.json under this host's name (a home shared by a cluster's machines keeps
each machine's own). The estimate turns CPU into wall time with the cores this process may use and
the load the machine has now: on two cores with eight other runnable processes the indexer gets a
fifth of them, so the same CPU takes five times as long as on quiet cores.
"""

from __future__ import annotations

import json
import logging
import os
import resource
import socket
import statistics
from dataclasses import dataclass
from pathlib import Path

from astro_cli.security.writer import write_file

log = logging.getLogger(__name__)

FILE_NAME = "embed-speed.json"
KEPT = 7  # measurements kept per model: the median of recent runs, not one outlier
FIRST_CPU_PER_CHUNK = 0.2  # before any measurement: the local model on two shared cores (stop 40)
FIRST_STARTUP_CPU = 2.0  # before any measurement: Python, astro and the model loaded


@dataclass(frozen=True)
class Speed:
    cpu_per_chunk: float  # CPU seconds, all threads
    startup_cpu: float  # CPU seconds before the first chunk
    threads: int  # threads the embedding may run on


def cpu_seconds() -> float:
    """CPU this process has used so far, user and system, all threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _key(model: str) -> str:
    return f"{socket.gethostname()} {model}"


def _read(home: Path) -> dict[str, dict[str, list[float]]]:
    path = home / FILE_NAME
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.debug("could not read %s: %s", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def record(home: Path, model: str, chunks: int, cpu: float, startup_cpu: float) -> None:
    """Keep one run's measurement: `cpu` seconds for `chunks` chunks, after `startup_cpu` seconds of starting."""
    if chunks <= 0 or cpu <= 0:
        return
    data = _read(home)
    entry = data.get(_key(model)) or {}
    entry = {"cpu_per_chunk": ([*entry.get("cpu_per_chunk", []), cpu / chunks])[-KEPT:],
             "startup_cpu": ([*entry.get("startup_cpu", []), startup_cpu])[-KEPT:]}
    data[_key(model)] = entry
    try:
        home.mkdir(parents=True, exist_ok=True)
        write_file(home / FILE_NAME, json.dumps(data, indent=1) + "\n", root=home)
    except OSError as exc:
        log.debug("could not keep the embedding speed in %s: %s", home, exc)


def measured(home: Path, model: str, threads: int) -> Speed:
    """This machine's recent speed for `model` (the medians), or the first guess when it never ran here."""
    entry = _read(home).get(_key(model)) or {}
    per_chunk = [v for v in entry.get("cpu_per_chunk", []) if isinstance(v, (int, float)) and v > 0]
    startup = [v for v in entry.get("startup_cpu", []) if isinstance(v, (int, float)) and v >= 0]
    return Speed(statistics.median(per_chunk) if per_chunk else FIRST_CPU_PER_CHUNK,
                 statistics.median(startup) if startup else FIRST_STARTUP_CPU, threads)


def wall_seconds(speed: Speed, chunks: int, cores: int | None = None, load: float | None = None) -> float:
    """Wall time for `chunks` chunks and a fresh indexer's start, with `cores` cores of which the
    `load` (the one-minute load average: runnable processes) leaves this one a share."""
    cores = max(1, cores or os.cpu_count() or 1)
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:
            load = 0.0

    def share(threads: int) -> float:  # cores this many threads get beside `load` others
        threads = min(threads, cores)
        return threads if load + threads <= cores else cores * threads / (load + threads)

    return speed.startup_cpu / share(1) + chunks * speed.cpu_per_chunk / share(speed.threads)
