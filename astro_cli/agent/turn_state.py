"""The turn in progress: what the loop counts and what extensions read and annotate (TurnView)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.agent import events as ev
from astro_cli.usage import Usage

if TYPE_CHECKING:
    from astro_cli.agent.extensions import SessionView
    from astro_cli.prompt.registry import AssembledPrompt


@dataclass
class TurnState:
    """Everything about the turn in progress; extensions read and annotate it."""

    session: SessionView
    turn: int
    prompt: str
    max_steps: int
    step: int = 0
    answer: str = ""
    stop_reason: str = ""
    error: str | None = None
    tool_log: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    retry_notes: list[str] = field(default_factory=list)
    force_final: bool = False  # the step budget is spent: the next request asks for the final answer
    last_context_tokens: int = 0
    duration: float = 0.0
    api_duration: float = 0.0
    assembled: AssembledPrompt | None = None  # this step's system prompt and tool schemas
    sent_texts: list[str] = field(default_factory=list)  # astro's own text in this step's request (reply_checks)

    @property
    def tool_steps(self) -> int:
        """Steps counted against the budget: the request that asks for the final answer once the
        budget is spent is not one (so a budget of 5 reads "5 of 5", never "6 of 5")."""
        return min(self.step, self.max_steps)

    def add_usage(self, usage: Usage) -> None:
        """Add a request's tokens and cost to the turn (a subagent's too: the user pays for both)."""
        self.usage = self.usage + usage

    def inject(self, text: str, kind: str = "nudge") -> None:
        """Append a runtime intervention as a user message (stored, marked, and shown dimmed)."""
        self.session.append({"role": "user", "content": text}, kind=kind, turn=self.turn)
        self.session.bus.emit(ev.Nudge(kind=kind, text=text))
