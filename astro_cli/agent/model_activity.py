"""What the model did lately, as `/status` shows it: the last request's prompt as the server
processed it, and the last turn's steps. Fed by the session's events (a bus listener), so the
agent loop knows nothing of it; typed fields, no string keys.

On a CPU a local model's prompt processing is most of a step's time (issue 32: 165 s for 5,500
tokens at load 7). llama.cpp's server reports the prompt's size and what it had cached
(`PromptProgress`); the time to the first streamed token is the processing time. Other servers
report nothing while they work, and their usage gives the size afterwards.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from astro_cli.agent import events as ev


@dataclass(frozen=True)
class PromptFigures:
    """One request's prompt: its size, what the server had cached, and how long until the reply began."""

    total: int
    cached: int
    seconds: float | None  # to the first streamed text; None: the reply streamed none (a native tool call)
    reply_seconds: float | None  # the whole request
    reported: bool  # the server reported its processing (llama.cpp); else the figures are the usage's

    def line(self) -> str:
        """`5,548 tokens, 1,200 cached, processed in 165 s (26 tokens/s)`."""
        text = f"{self.total:,} tokens" + (f", {self.cached:,} cached" if self.cached else "")
        if self.seconds is not None:
            fresh = max(self.total - self.cached, 0)
            rate = f" ({fresh / self.seconds:,.0f} tokens/s)" if self.seconds > 0 and fresh else ""
            text += f", processed in {_seconds(self.seconds)}{rate}"
        elif self.reply_seconds is not None:
            text += f"; the reply took {_seconds(self.reply_seconds)} in all"
        return text


@dataclass
class ModelActivity:
    """The last request's prompt and the last turn's steps, kept as the events arrive."""

    clock: Callable[[], float] = time.monotonic
    last_prompt: PromptFigures | None = None
    step: int = 0
    max_steps: int = 0
    _sent_at: float | None = field(default=None, repr=False)
    _first_at: float | None = field(default=None, repr=False)
    _progress: ev.PromptProgress | None = field(default=None, repr=False)

    def handle(self, event: ev.Event) -> None:
        if isinstance(event, ev.StepStarted):
            self.step, self.max_steps = event.step, event.max_steps
        elif isinstance(event, ev.Thinking):
            self._sent_at, self._first_at, self._progress = self.clock(), None, None
        elif isinstance(event, ev.PromptProgress):
            self._progress = event
        elif isinstance(event, ev.TextDelta) and self._sent_at is not None and self._first_at is None:
            self._first_at = self.clock()
        elif isinstance(event, ev.UsageReport) and self._sent_at is not None:
            self._finish(event)

    def _finish(self, usage: ev.UsageReport) -> None:
        sent, now, progress = self._sent_at, self.clock(), self._progress
        assert sent is not None
        total = progress.total if progress else usage.input_tokens
        cached = progress.cached if progress else usage.cache_read_input_tokens
        self.last_prompt = PromptFigures(
            total=total, cached=cached, seconds=None if self._first_at is None else self._first_at - sent,
            reply_seconds=now - sent, reported=progress is not None)
        self._sent_at = None


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 10 else f"{value:,.0f} s"
