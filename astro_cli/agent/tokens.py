"""The one token counter (and the model's context window), behind the litellm adapter.

Counting must not cost litellm's 4 s import on a path that calls no model (`astro prompt show`,
a compaction estimate before the first request), so each count picks the best source at hand:
- litellm's own model-aware counter, when the adapter (litellm_model/) has already loaded litellm (or `load=True`
  asks for it on a model path);
- for text, tiktoken's cl100k_base read from the tokenizer files litellm ships (litellm's default
  counter, without importing litellm);
- else about 4 characters per token.
Counts of messages are cached per message, so a long session costs only its new messages each step.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import os
from collections.abc import Sequence
from typing import Any

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 4
PER_MESSAGE = 3  # litellm's per-message overhead; the request adds 3 more for the reply
ENVIRONMENT_RESERVE = 200  # the trailing environment message, appended after compaction decides
_CACHE_LIMIT = 20000
ESTIMATE_METHOD = "estimate (4 characters per token)"
TIKTOKEN_METHOD = "tiktoken cl100k_base (litellm's default tokenizer)"


def loaded_litellm() -> Any:
    """litellm if it has been loaded in this process (litellm_model/loader.py), else None (never imports it)."""
    from astro_cli.litellm_model import loader as litellm_loader

    return litellm_loader.loaded_litellm()


def estimate(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@functools.lru_cache(maxsize=1)
def _cl100k() -> Any:
    """tiktoken's cl100k_base from litellm's bundled files (no download), or None when unavailable."""
    from astro_cli.litellm_model.compat import tokenizer_dir

    folder = tokenizer_dir()
    if folder is None:
        return None
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(folder))
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base")
    except Exception:  # noqa: BLE001 - a missing or broken tokenizer file: the estimate stands in
        log.debug("tiktoken's cl100k_base could not be loaded; token counts are estimated", exc_info=True)
        return None


def context_window(model: str) -> int | None:
    """The model's input window from litellm's model table; None when litellm is not loaded or does not know it."""
    litellm = loaded_litellm()
    if litellm is None:
        return None
    try:
        info = litellm.get_model_info(model)
    except Exception:  # noqa: BLE001 - an unmapped model is an ordinary case
        log.debug("litellm knows no context window for %s", model, exc_info=True)
        return None
    tokens = info.get("max_input_tokens") or info.get("max_tokens")
    return int(tokens) if tokens else None


def _shape(message: dict[str, Any]) -> tuple[int, int]:
    """A cheap fingerprint that changes if a message were edited in place after all."""
    content = message.get("content")
    return (len(content) if isinstance(content, (str, list)) else 0, len(message.get("tool_calls") or ()))


class TokenCounter:
    """Counts tokens of text and requests for one model; `load=True` imports litellm if needed (model paths)."""

    def __init__(self, model: str | None, load: bool = False) -> None:
        self.model = model
        self.load = load
        self._cache: dict[str, int] = {}
        self._by_id: dict[int, tuple[dict[str, Any], tuple[int, int], int]] = {}
        self._bytes: dict[int, tuple[dict[str, Any], int]] = {}

    def _litellm(self) -> Any:
        if not self.model:
            return None
        litellm = loaded_litellm()
        if litellm is None and self.load:
            from astro_cli.litellm_model.loader import load_litellm

            litellm = load_litellm()
        return litellm

    @property
    def text_method(self) -> str:
        """How `text` counts, in words for `astro prompt show`."""
        if self._litellm() is not None:
            return f"litellm.token_counter ({self.model})"
        return TIKTOKEN_METHOD if _cl100k() is not None else ESTIMATE_METHOD

    def text(self, text: str) -> int:
        """Tokens of a piece of text (a prompt section, a tool schema)."""
        litellm = self._litellm()
        if litellm is not None:
            return int(litellm.token_counter(model=self.model, text=text))
        encoding = _cl100k()
        if encoding is not None:
            return len(encoding.encode(text, disallowed_special=()))
        return estimate(text)

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
                log.debug("litellm could not count a message for %s; estimated", self.model, exc_info=True)
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
            except Exception:  # noqa: BLE001 - a tokenizer problem must not stop the turn
                log.debug("litellm could not count the tools for %s; estimated", self.model, exc_info=True)
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
