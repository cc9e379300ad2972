"""Bounds on reading LaTeX from arXiv, which is untrusted input.

A 770-byte macro bomb (`\\x` defined as 40 copies of itself, used 200 times) or an `\\input`
fan-out twelve levels deep would otherwise take minutes and gigabytes. Two layers bound them:

- inside the reader (latex.py), a `Budget` counts what is inlined and expanded: the number and
  depth of `\\input`/`\\include` files, the passes and output size of macro expansion, and the
  time spent. Past a bound the reader stops inlining or expanding and goes on with what it has,
  and the budget keeps the reason;
- around it, `read_bounded` runs the reader in a child process with a memory limit and a wall
  clock limit, so no input, however crafted, can hang astro or exhaust its memory.

parse_paper then uses the PDF instead and says so in one line (or, without a PDF, indexes what
was read).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


class LatexError(Exception):
    """The source cannot be read as LaTeX (missing, unreadable, no .tex inside)."""


@dataclass(frozen=True)
class LatexLimits:
    max_inputs: int = 200  # \input/\include files inlined in all
    max_input_depth: int = 8  # \input inside \input ...
    max_expansion_passes: int = 8  # macros that use macros
    max_chars: int = 4_000_000  # text after inlining, and after each expansion pass
    max_seconds: float = 30.0  # the whole reading, in the child process
    max_memory: int = 1024 * 1024 * 1024  # address space of the child process (bytes)


class Budget:
    """What one reading of a source may still inline and expand; the first bound hit is kept."""

    def __init__(self, limits: LatexLimits | None = None) -> None:
        self.limits = limits or LatexLimits()
        self.started = time.monotonic()
        self.inputs = 0
        self.exceeded: str | None = None

    def _stop(self, reason: str) -> bool:
        self.exceeded = self.exceeded or reason
        return False

    def time_left(self) -> bool:
        if time.monotonic() - self.started > self.limits.max_seconds:
            return self._stop(f"reading it took more than {self.limits.max_seconds:g} s")
        return True

    def allow_input(self, depth: int, size: int) -> bool:
        """May one more file be inlined, `depth` levels down, into a text of `size` characters?"""
        if self.exceeded:
            return False
        if depth > self.limits.max_input_depth:
            return self._stop(f"\\input files nest more than {self.limits.max_input_depth} levels deep")
        if self.inputs >= self.limits.max_inputs:
            return self._stop(f"it inputs more than {self.limits.max_inputs} files")
        if size > self.limits.max_chars:
            return self._stop(f"its files add up to more than {self.limits.max_chars // 1_000_000} million characters")
        self.inputs += 1
        return self.time_left()

    def allow_pass(self, done: int) -> bool:
        """May macro expansion run another pass after `done` passes?"""
        if self.exceeded:
            return False
        if done >= self.limits.max_expansion_passes:
            return self._stop(f"its macros nest more than {self.limits.max_expansion_passes} levels deep")
        return self.time_left()

    def allow_output(self, size: int) -> bool:
        """Is an expansion that has reached `size` characters still within bounds?"""
        if size > self.limits.max_chars:
            return self._stop(
                f"its macros expand to more than {self.limits.max_chars // 1_000_000} million characters")
        return True


@dataclass
class LatexReading:
    """The outcome of reading a source within limits: title, (section title, text) pairs, and the
    bound that stopped the reading early, if one did."""

    title: str | None
    sections: list[tuple[str, str]] = field(default_factory=list)
    exceeded: str | None = None


def read_bounded(path: Path, limits: LatexLimits | None = None) -> LatexReading:
    """Read a LaTeX source in a child process bounded in memory and time (raises LatexError)."""
    limits = limits or LatexLimits()
    command = [sys.executable, "-m", "astro_cli.research.latex_worker", str(path), json.dumps(asdict(limits))]
    try:
        done = subprocess.run(
            command, capture_output=True, timeout=limits.max_seconds + 5, env=_child_env(),
            preexec_fn=_memory_limit(limits.max_memory) if os.name == "posix" else None,
        )
    except subprocess.TimeoutExpired:
        return LatexReading(None, [], f"reading it took more than {limits.max_seconds:g} s")
    if done.returncode != 0:
        if b"MemoryError" in done.stderr or done.returncode < 0:
            size = limits.max_memory // (1024 * 1024)
            return LatexReading(None, [], f"reading it needed more than {size} MB of memory")
        detail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no detail"]
        raise LatexError(f"the LaTeX reader failed ({detail[0][:200]})")
    answer: dict[str, Any] = json.loads(done.stdout)
    if answer.get("error"):
        raise LatexError(answer["error"])
    return LatexReading(answer.get("title"), [tuple(s) for s in answer.get("sections", [])], answer.get("exceeded"))


def _memory_limit(limit: int):  # noqa: ANN202 - a preexec_fn
    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def _child_env() -> dict[str, str]:
    """The child needs only to find astro_cli; keys and settings stay with the parent."""
    keep = ("PATH", "PYTHONPATH", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR", "HOME")
    env = {k: v for k, v in os.environ.items() if k in keep}
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    return env
