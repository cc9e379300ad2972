"""Work on untrusted files in a child process bounded in time, CPU and memory.

A PDF or a LaTeX source comes from arXiv, a colleague or a cloned repository: a 13 KB PDF whose
page tree claims a million pages, or a .tex with twenty thousand unclosed `\\newcommand`s, must not
take astro's own process to gigabytes or minutes. Every reading of such a file (parse_paper,
get_paper_content, `library add`, a download's metadata) runs `python -m <worker module>` through
`run_bounded`: isolated from the workspace's code (security/children.py), an address-space limit
(RLIMIT_AS), a CPU limit (RLIMIT_CPU) and a wall-clock timeout, an environment without keys, and
its answer as JSON on stdout. Past a limit, the caller
gets the reason in one sentence and the library stays as it was.
"""

from __future__ import annotations

import json
import logging
import math
import os
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)
WALL_GRACE = 5.0  # seconds beyond the CPU limit before the wall clock ends the child


@dataclass(frozen=True)
class ChildLimits:
    max_seconds: float
    max_memory: int  # bytes of address space


@dataclass
class ChildOutcome:
    """The child's JSON answer, or the limit that ended it (one clause: "it needed more than ...")."""

    answer: dict[str, Any] | None
    exceeded: str | None = None


class ChildFailed(Exception):
    """The child ended with an error that is no limit (a bug, a missing module); one sentence."""


def run_bounded(module: str, args: list[str], limits: ChildLimits) -> ChildOutcome:
    """Run `python -m module args...` within `limits`; its stdout must be one JSON object."""
    from astro_cli.security.children import python_child

    child = python_child(module, args, child_env())
    try:
        done = subprocess.run(
            child.argv, cwd=child.cwd, env=child.env, capture_output=True, timeout=limits.max_seconds + WALL_GRACE,
            stdin=subprocess.DEVNULL, preexec_fn=_limits(limits) if os.name == "posix" else None,
        )
    except subprocess.TimeoutExpired:
        return ChildOutcome(None, f"reading it took more than {limits.max_seconds:g} s")
    if done.returncode != 0:
        stderr = done.stderr.decode(errors="replace")
        log.debug("%s ended with %s: %s", module, done.returncode, stderr[-2000:])
        if done.returncode == -getattr(signal, "SIGXCPU", 24):
            return ChildOutcome(None, f"reading it took more than {limits.max_seconds:g} s")
        if "MemoryError" in stderr or done.returncode < 0:
            return ChildOutcome(None, f"reading it needed more than {limits.max_memory // (1024 * 1024)} MB of memory")
        detail = stderr.strip().splitlines()[-1:] or ["no detail"]
        raise ChildFailed(f"the reader failed ({detail[0][:200]})")
    try:
        return ChildOutcome(json.loads(done.stdout))
    except json.JSONDecodeError:
        raise ChildFailed("the reader's answer could not be read") from None


def _limits(limits: ChildLimits) -> Callable[[], None]:  # a preexec_fn
    def apply() -> None:
        import resource

        def lower(kind: int, soft: int, hard: int) -> None:  # never above a limit astro itself runs under
            _soft, ceiling = resource.getrlimit(kind)
            if ceiling != resource.RLIM_INFINITY:
                soft, hard = min(soft, ceiling), min(hard, ceiling)
            resource.setrlimit(kind, (soft, hard))

        lower(resource.RLIMIT_AS, limits.max_memory, limits.max_memory)
        cpu = math.ceil(limits.max_seconds)
        lower(resource.RLIMIT_CPU, cpu, cpu + 2)

    return apply


def child_env() -> dict[str, str]:
    """The child needs nothing of ours: keys and settings stay with the parent (security/children.py
    finds astro_cli for it)."""
    keep = ("PATH", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR", "HOME")
    return {k: v for k, v in os.environ.items() if k in keep}
