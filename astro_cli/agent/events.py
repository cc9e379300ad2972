"""Events the loop emits. Renderers (REPL, one-shot, JSON), persistence and hooks consume them.

Every event is a small dataclass with a `type` name; `to_dict()` gives the stream-json form.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.usage import Usage

log = logging.getLogger(__name__)


@dataclass
class Event:
    type = "event"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **asdict(self)}


@dataclass
class TurnStarted(Event):
    type = "turn_started"
    session_id: str
    turn: int
    prompt: str


@dataclass
class StepStarted(Event):
    type = "step_started"
    step: int
    max_steps: int


@dataclass
class Thinking(Event):
    """The request is sent and nothing has streamed back yet (renderers show a spinner)."""

    type = "thinking"
    step: int


@dataclass
class PromptProgress(Event):
    """A local server is processing the prompt (llama.cpp's `prompt_progress`): `total` tokens, of
    which `cached` come from its prompt cache; renderers show it instead of "thinking…"."""

    type = "prompt_progress"
    total: int
    cached: int
    processed: int

    def label(self) -> str:
        cached = f" ({self.cached:,} cached)" if self.cached else ""
        done = f"{self.processed:,}/" if 0 < self.processed < self.total else ""
        return f"processing prompt {done}{self.total:,} tokens{cached}…"


@dataclass
class TextDelta(Event):
    type = "text_delta"
    text: str


@dataclass
class AssistantMessage(Event):
    type = "assistant"
    text: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ToolStarted(Event):
    type = "tool_started"
    call_id: str
    name: str
    arguments: dict[str, Any]
    key_argument: str = ""
    agent: str = "main"


@dataclass
class ToolFinished(Event):
    type = "tool_finished"
    call_id: str
    name: str
    ok: bool
    duration: float
    content: str
    agent: str = "main"
    data: dict[str, Any] | None = None


@dataclass
class Nudge(Event):
    """A runtime intervention appended as a user message (shown dimmed)."""

    type = "nudge"
    kind: str
    text: str


@dataclass
class Notice(Event):
    """Something the user should know (a warning, a retry); never sent to the model."""

    type = "notice"
    level: str
    text: str


@dataclass
class Retry(Event):
    type = "retry"
    attempt: int
    max_attempts: int
    delay: float
    error: str
    rate_limited: bool = False  # a 429: the wait is the provider's own (retry-after) when it gave one


@dataclass
class UsageReport(Event):
    type = "usage"
    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    cost_usd: float | None

    @classmethod
    def from_usage(cls, usage: Usage) -> UsageReport:
        return cls(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_input_tokens=usage.cache_read_input_tokens,
            cache_creation_input_tokens=usage.cache_creation_input_tokens,
            cost_usd=usage.cost_usd,
        )


@dataclass
class FigureSaved(Event):
    """A tool saved a figure in the workspace (plot_table): renderers print its path, and show the image
    itself on a terminal that can (ui/terminal_images.py); the loop knows nothing of terminals.

    `path` is relative to the workspace, `absolute` the file; `summary` is one line of what was drawn.
    """

    type = "figure_saved"
    call_id: str
    path: str
    absolute: str
    title: str
    summary: str
    width: int
    height: int
    agent: str = "main"


@dataclass
class TurnFinished(Event):
    type = "turn_finished"
    session_id: str
    answer: str
    stop_reason: str  # answered | max_steps | interrupted | provider_error | paused
    num_steps: int
    error: str | None = None


Listener = Callable[[Event], None]


class EventBus:
    """Fan-out of events to listeners; a failing listener never breaks the turn."""

    def __init__(self) -> None:
        self.listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        if listener in self.listeners:
            self.listeners.remove(listener)

    def emit(self, event: Event) -> None:
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception:  # noqa: BLE001 - a renderer bug must not lose the turn
                log.debug("an event listener failed on %s: %r", event.type, listener, exc_info=True)
