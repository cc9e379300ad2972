"""Tokens and cost of a model request, or of several added up: one typed record instead of dicts.

A request's usage comes from the provider's last streamed chunk (agent/stream.py) and litellm's
price table (litellm_model/adapter.py `cost_of`); the turn adds its requests' (and its subagents') up; the
sessions table stores one row per request. `cost_usd` is None when litellm has no price for a
request: a sum with an unknown part is unknown too.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cost_usd: float | None = 0.0

    def __add__(self, other: Usage) -> Usage:
        cost = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            cost_usd=cost,
        )

    def __bool__(self) -> bool:
        """False for a request the provider reported no tokens for (nothing to record)."""
        return bool(self.input_tokens or self.output_tokens or self.cache_read_input_tokens
                    or self.cache_creation_input_tokens)

    @property
    def context_tokens(self) -> int:
        """What the request and its reply took of the context window."""
        return self.input_tokens + self.output_tokens

    def priced(self, cost_usd: float | None) -> Usage:
        return replace(self, cost_usd=cost_usd)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape (`astro run --output-format json`, hook payloads, the usage table's columns)."""
        return asdict(self)
