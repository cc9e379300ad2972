"""The context window and the compaction policy read from settings.

The window comes from config 'context_window' when set (it overrides litellm, for local models
and proxies with their own limits), else from litellm's model info, else a conservative default
with a notice, since guessing high is what overflows. The ranges of these settings are declared in
config_schema.py and checked once, when the config loads (one sentence naming the file or variable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from astro_cli.agent.tokens import context_window
from astro_cli.config_schema import SCHEMA

if TYPE_CHECKING:
    from astro_cli.config import Settings

DEFAULT_WINDOW = 32_000

UNKNOWN_MODEL = (
    "litellm does not know the context window of '{model}'; astro assumes {tokens} tokens for compaction. "
    "Set config 'context_window' (or ASTRO_CONTEXT_WINDOW) to the model's real size."
)


@dataclass
class Window:
    tokens: int
    source: str  # config | litellm | default


def resolve_window(settings: Settings, model: str) -> Window:
    """config 'context_window' (its range checked when the config loaded), else litellm's, else the default."""
    configured = settings.typed["context_window"]
    if configured is not None:
        return Window(int(configured), "config")
    tokens = context_window(model)
    if tokens:
        return Window(tokens, "litellm")
    return Window(DEFAULT_WINDOW, "default")


def _default(key: str) -> Any:
    return SCHEMA[key].default


@dataclass
class Policy:
    """The compaction settings; their ranges are declared in config_schema and checked when the config loads."""

    enabled: bool = _default("compaction.enabled")
    threshold: float = _default("compaction.threshold")
    snip_max_messages: int = _default("compaction.snip_max_messages")
    snip_keep_head: int = _default("compaction.snip_keep_head")
    snip_keep_tail: int = _default("compaction.snip_keep_tail")
    keep_tool_results: int = _default("compaction.keep_tool_results")
    aggressive_keep: int = _default("compaction.aggressive_keep")
    summary_keep_messages: int = _default("compaction.summary_keep_messages")
    skill_budget_chars: int = _default("compaction.skill_budget_chars")
    summary_prompt: str | None = _default("compaction.summary_prompt")  # None or blank: the built-in text
    identity_prompt: str | None = _default("compaction.identity_prompt")

    @classmethod
    def from_settings(cls, settings: Settings) -> Policy:
        return cls(**{name: settings.get(f"compaction.{name}") for name in cls.__dataclass_fields__})
