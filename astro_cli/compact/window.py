"""The context window and the compaction policy read from settings.

The window comes from config 'context_window' when set (it overrides litellm, for local models
and proxies with their own limits), else from litellm's model info, else a conservative default
with a notice, since guessing high is what overflows. Bad values become one sentence and a
default, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from astro_cli.agent.tokens import context_window

DEFAULT_WINDOW = 32_000
MIN_WINDOW = 1_000

UNKNOWN_MODEL = (
    "litellm does not know the context window of '{model}'; astro assumes {tokens} tokens for compaction. "
    "Set config 'context_window' (or ASTRO_CONTEXT_WINDOW) to the model's real size."
)


@dataclass
class Window:
    tokens: int
    source: str  # config | litellm | default


def resolve_window(settings: Any, model: str, problems: list[str]) -> Window:
    configured = settings.get("context_window")
    if configured is not None:
        if isinstance(configured, int) and configured >= MIN_WINDOW:
            return Window(configured, "config")
        problems.append(
            f"config 'context_window' must be at least {MIN_WINDOW} tokens (got {configured!r}); "
            "astro uses the model's own window instead."
        )
    tokens = context_window(model)
    if tokens:
        return Window(tokens, "litellm")
    return Window(DEFAULT_WINDOW, "default")


def _number(settings: Any, key: str, low: float, high: float, problems: list[str], kind: type = int) -> Any:
    from astro_cli.config_schema import SCHEMA

    value = settings.get(key)
    default = SCHEMA[key].default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        problems.append(
            f"config '{key}' must be between {low:g} and {high:g} (got {value!r}); using {default}."
        )
        return default
    return kind(value)


@dataclass
class Policy:
    """The compaction settings, checked once per session."""

    enabled: bool = True
    threshold: float = 0.8
    snip_max_messages: int = 50
    snip_keep_head: int = 3
    snip_keep_tail: int = 47
    keep_tool_results: int = 5
    aggressive_keep: int = 2
    summary_keep_messages: int = 6
    skill_budget_chars: int = 2000
    problems: list[str] = field(default_factory=list)

    @classmethod
    def from_settings(cls, settings: Any) -> Policy:
        problems: list[str] = []
        policy = cls(
            enabled=bool(settings.get("compaction.enabled")),
            threshold=_number(settings, "compaction.threshold", 0.05, 1.0, problems, float),
            snip_max_messages=_number(settings, "compaction.snip_max_messages", 4, 100000, problems),
            snip_keep_head=_number(settings, "compaction.snip_keep_head", 1, 100000, problems),
            snip_keep_tail=_number(settings, "compaction.snip_keep_tail", 1, 100000, problems),
            keep_tool_results=_number(settings, "compaction.keep_tool_results", 0, 100000, problems),
            aggressive_keep=_number(settings, "compaction.aggressive_keep", 0, 100000, problems),
            summary_keep_messages=_number(settings, "compaction.summary_keep_messages", 0, 100000, problems),
            skill_budget_chars=_number(settings, "compaction.skill_budget_chars", 0, 10_000_000, problems),
        )
        policy.problems = problems
        return policy
