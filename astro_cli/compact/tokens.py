"""Token accounting for compaction: how big is the request about to be sent?

Two sources, and the larger one wins, because undercounting is what overflows a window:
- the one token counter (agent/tokens.py) over the request (system prompt, messages, tools);
- the provider's own figure for the previous request (its usage), plus the messages added since.
  It is what the provider really counted, including what litellm's tokenizer gets wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from astro_cli.agent.tokens import TokenCounter


@dataclass
class ProviderMark:
    """What the provider reported for a request, and how long the stored history was when it was sent."""

    tokens: int
    history_length: int

    def estimate(self, counter: TokenCounter, history: Sequence[dict[str, Any]]) -> int:
        """The provider's figure plus the messages stored since that request (its environment
        message was counted by the provider; the next one is about the same size)."""
        return self.tokens + counter.messages(history[self.history_length :])
