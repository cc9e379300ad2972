"""Bounds on reading LaTeX from arXiv, which is untrusted input.

A 770-byte macro bomb (`\\x` defined as 40 copies of itself, used 200 times) or an `\\input`
fan-out twelve levels deep would otherwise take minutes and gigabytes. Two layers bound them:

- inside the reader (latex.py), a `Budget` counts what is inlined and expanded: the number and
  depth of `\\input`/`\\include` files, the passes and output size of macro expansion, and the
  time spent. Past a bound the reader stops inlining or expanding and goes on with what it has,
  and the budget keeps the reason;
- around it, `read_bounded` (and `metadata_bounded`, for `library add`) runs the reader in a child
  process with a memory, CPU and wall-clock limit (research/text/bounded.py), so no input, however
  crafted, can hang astro or exhaust its memory.

parse_paper then uses the PDF instead and says so in one line (or, without a PDF, indexes what
was read).
"""

from __future__ import annotations

import json
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
    answer = _ask_child("sections", path, limits)
    if isinstance(answer, str):
        return LatexReading(None, [], answer)
    return LatexReading(answer.get("title"), [tuple(s) for s in answer.get("sections", [])], answer.get("exceeded"))


def metadata_bounded(path: Path, limits: LatexLimits | None = None) -> dict[str, Any]:
    """\\title and \\author of a source, read in the bounded child; {"exceeded": reason} past a limit
    (raises LatexError)."""
    answer = _ask_child("metadata", path, limits)
    return {"exceeded": answer} if isinstance(answer, str) else answer


def _ask_child(mode: str, path: Path, limits: LatexLimits | None) -> dict[str, Any] | str:
    """The child's answer, or the limit that stopped it."""
    from astro_cli.research.text.bounded import ChildFailed, ChildLimits, run_bounded

    limits = limits or LatexLimits()
    try:
        outcome = run_bounded("astro_cli.research.text.latex_worker", [mode, str(path.resolve()), json.dumps(asdict(limits))],
                              ChildLimits(limits.max_seconds, limits.max_memory))
    except ChildFailed as exc:
        raise LatexError(f"the LaTeX {exc}") from None
    if outcome.answer is None:
        return outcome.exceeded or "reading it was stopped"
    if outcome.answer.get("error"):
        raise LatexError(outcome.answer["error"])
    return outcome.answer
