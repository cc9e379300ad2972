"""Token accounting for compaction: how big is the request about to be sent?

Two sources, and the larger one wins, because undercounting is what overflows a window:
- litellm's counter over the request (system prompt, messages, tools). It is exact for OpenAI
  models and close for the others; counts are cached per message, so a long session costs only
  its new messages each step. Without litellm loaded (a command that calls no model), a
  characters-per-token estimate stands in, so nothing pays litellm's import just to count.
- the provider's own figure for the previous request (its usage), plus the messages added since.
  It is what the provider really counted, including what litellm's tokenizer gets wrong.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

CHARS_PER_TOKEN = 4
PER_MESSAGE = 3  # litellm's per-message overhead; the request adds 3 more for the reply
ENVIRONMENT_RESERVE = 200  # the trailing environment message, appended after compaction decides
_CACHE_LIMIT = 20000


def loaded_litellm() -> Any:
    """litellm if this process already imported it (through agent/llm.py), else None."""
    from astro_cli.agent import llm

    return getattr(llm, "_LITELLM", None)


def _shape(message: dict[str, Any]) -> tuple[int, int]:
    """A cheap fingerprint that changes if a message were edited in place after all."""
    content = message.get("content")
    return (len(content) if isinstance(content, (str, list)) else 0, len(message.get("tool_calls") or ()))


class TokenCounter:
    """Counts tokens of requests for one model; `load=True` imports litellm if needed (model paths)."""

    def __init__(self, model: str, load: bool = False) -> None:
        self.model = model
        self.load = load
        self._cache: dict[str, int] = {}
        self._by_id: dict[int, tuple[dict[str, Any], tuple[int, int], int]] = {}
        self._bytes: dict[int, tuple[dict[str, Any], int]] = {}

    def _litellm(self) -> Any:
        litellm = loaded_litellm()
        if litellm is None and self.load:
            from astro_cli.agent.llm import load_litellm

            litellm = load_litellm()
        return litellm

    def message(self, message: dict[str, Any]) -> int:
        """Tokens of one message, its share of litellm's per-message overhead included."""
        # Stored messages are never changed in place, so the same object has the same count; the
        # entry holds the object, so its id cannot be reused while the entry exists.
        seen = self._by_id.get(id(message))
        if seen is not None and seen[0] is message and seen[1] == _shape(message):
            return seen[2]
        key = json.dumps(message, sort_keys=True, ensure_ascii=False, default=str)
        cached = self._cache.get(key)
        if cached is not None:
            self._remember(message, cached)
            return cached
        litellm = self._litellm()
        count = None
        if litellm is not None:
            try:
                count = int(litellm.token_counter(model=self.model, messages=[message])) - 3
            except Exception:  # noqa: BLE001 - a tokenizer problem must not stop the turn
                count = None
        if count is None:
            count = PER_MESSAGE + len(key) // CHARS_PER_TOKEN
        if len(self._cache) > _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = count
        self._remember(message, count)
        return count

    def _remember(self, message: dict[str, Any], count: int) -> None:
        if len(self._by_id) > _CACHE_LIMIT:
            self._by_id.clear()
        self._by_id[id(message)] = (message, _shape(message), count)

    def messages(self, messages: Sequence[dict[str, Any]]) -> int:
        return sum(self.message(m) for m in messages) + (3 if messages else 0)

    def byte_bound(self, messages: Sequence[dict[str, Any]]) -> int:
        """An upper bound on the tokens of `messages` that needs no tokenizer: a token is at least one
        byte of UTF-8, so the serialized size (plus the per-message overhead) can never be exceeded."""
        total = 3 if messages else 0
        for message in messages:
            seen = self._bytes.get(id(message))
            if seen is None or seen[0] is not message:
                size = len(json.dumps(message, ensure_ascii=False, default=str).encode()) + PER_MESSAGE
                if len(self._bytes) > _CACHE_LIMIT:
                    self._bytes.clear()
                seen = self._bytes[id(message)] = (message, size)
            total += seen[1]
        return total

    def request_bound(
        self, system: str, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> int:
        """The byte bound of a whole request (see byte_bound)."""
        sent = [{"role": "system", "content": system}, *messages] if system else list(messages)
        tools_size = len(json.dumps(list(tools), default=str).encode()) if tools else 0
        return self.byte_bound(sent) + tools_size + ENVIRONMENT_RESERVE

    def tools(self, tools: Sequence[dict[str, Any]]) -> int:
        """Tokens the tool schemas add to a request (litellm's own formula when it is loaded)."""
        if not tools:
            return 0
        key = "tools:" + json.dumps(list(tools), sort_keys=True, default=str)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        probe = [{"role": "user", "content": "x"}]
        litellm = self._litellm()
        count = None
        if litellm is not None:
            try:
                with_tools = litellm.token_counter(model=self.model, messages=probe, tools=list(tools))
                count = int(with_tools) - int(litellm.token_counter(model=self.model, messages=probe))
            except Exception:  # noqa: BLE001
                count = None
        if count is None:
            count = len(key) // CHARS_PER_TOKEN
        self._cache[key] = count
        return count

    def request(
        self, system: str, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> int:
        """Tokens of the request: system prompt + messages + tools + room for the environment message."""
        sent = [{"role": "system", "content": system}, *messages] if system else list(messages)
        return self.messages(sent) + self.tools(tools) + ENVIRONMENT_RESERVE


@dataclass
class ProviderMark:
    """What the provider reported for a request, and how long the stored history was when it was sent."""

    tokens: int
    history_length: int

    def estimate(self, counter: TokenCounter, history: Sequence[dict[str, Any]]) -> int:
        """The provider's figure plus the messages stored since that request (its environment
        message was counted by the provider; the next one is about the same size)."""
        return self.tokens + counter.messages(history[self.history_length :])
