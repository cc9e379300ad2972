"""An in-process fake model: the Model port (astro_cli/agent/model.py) with scripted replies.

For loop tests that need no HTTP and no litellm: the loop, its tools, nudges and storage run for
real; only the model is scripted. Turns are tests/fakeprovider.py's dicts ("text", "tool_calls",
"usage", "finish", "status"/"error" for a provider error). Every request is recorded as the body a
provider would receive ({"model", "messages", "tools", "tool_choice"}), so the helpers that read
the wire fake's `bodies()` read these too. Tests of the real litellm path keep the wire fake.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from astro_cli.agent.current_model import CurrentModel
from astro_cli.agent.model import LLMReply
from astro_cli.agent.provider import LLMConfig, ProviderError
from astro_cli.agent.stream import ToolCallRequest
from astro_cli.usage import Usage

EXHAUSTED = "[fake model: no scripted turn left]"


class FakeModel:
    """Replies from a scripted list of turns, in order; records each request."""

    def __init__(self, *turns: dict[str, Any], model: str = "openai/fake-model") -> None:
        self.turns: list[dict[str, Any]] = list(turns)
        self.requests: list[dict[str, Any]] = []
        self.current = CurrentModel(LLMConfig(model=model, num_retries=0))
        self.api_seconds = 0.0
        self._lock = threading.Lock()
        self._calls = 0

    @property
    def config(self) -> LLMConfig:
        return self.current.config

    def add(self, *turns: dict[str, Any]) -> None:
        self.turns.extend(turns)

    def bodies(self) -> list[dict[str, Any]]:
        return list(self.requests)

    def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        on_text: Callable[[str], None] = lambda text: None,
        on_retry: Callable[[int, int, float, str, bool], None] = lambda attempt, total, delay, error, limited: None,
        cancel: threading.Event | None = None,
        cache_index: int | None = None,
        model: str | None = None,
        tool_choice: str | None = None,
        on_progress: Callable[[int, int, int], None] | None = None,
        call_tools: list[dict[str, Any]] | None = None,
    ) -> LLMReply:
        with self._lock:
            name = (model or self.config.model).split("/", 1)[-1]
            # A copy, as a provider's body is: the loop goes on changing its own list.
            self.requests.append(json.loads(json.dumps({"model": name, "messages": messages, "tools": tools or [],
                                                        "tool_choice": tool_choice})))
            turn = self.turns.pop(0) if self.turns else {"text": EXHAUSTED}
            self._calls += 1
            call_number = self._calls
        if "status" in turn:
            raise ProviderError(f"the fake model answered {turn['status']}: {turn.get('error', 'error')}")
        text = str(turn.get("text") or "")
        if text:
            on_text(text)
        calls = [ToolCallRequest(id=call.get("id") or f"call_{call_number}_{index}", name=call["name"],
                                 arguments=call["arguments"] if isinstance(call["arguments"], str)
                                 else json.dumps(call["arguments"]))
                 for index, call in enumerate(turn.get("tool_calls") or [])]
        usage = turn.get("usage") or {}
        return LLMReply(text=text, tool_calls=calls, finish_reason=turn.get("finish") or ("tool_calls" if calls else "stop"),
                        usage=Usage(input_tokens=usage.get("input_tokens", 100), output_tokens=usage.get("output_tokens", 20)))
