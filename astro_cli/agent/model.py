"""The Model port: what the loop, the judge, the re-rank and compaction need of a model.

A streamed completion with tools, its usage and cost, and errors as astro's own exceptions
(agent/provider.py's ProviderError and MissingCredentials, Cancelled here). One adapter implements
it over litellm (astro_cli/litellm_model/, the only package that imports litellm); tests add an
in-process one (tests/fakemodel.py). agent/open_model.py is how a caller gets the real one: the
adapter, and litellm with it, is imported only then.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from astro_cli.agent.stream import ToolCallRequest
from astro_cli.usage import Usage

if TYPE_CHECKING:
    from astro_cli.agent.current_model import CurrentModel
    from astro_cli.agent.provider import LLMConfig


class Cancelled(Exception):
    """The user interrupted the request."""


@dataclass
class LLMReply:
    text: str
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None  # "length": cut at the output token limit
    interrupted: bool = False
    continuations: int = 0  # requests made to finish a reply cut at the token limit

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    def joined(self, more: LLMReply) -> LLMReply:
        """This reply followed by its continuation: text joined, tokens and cost added up."""
        return LLMReply(text=self.text + more.text, tool_calls=more.tool_calls, usage=self.usage + more.usage,
                        finish_reason=more.finish_reason, interrupted=more.interrupted)

    def to_message(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            message["tool_calls"] = [call.to_message() for call in self.tool_calls]
        if message["content"] is None and not self.tool_calls:
            message["content"] = ""
        return message


class Model(Protocol):
    """A model astro can ask: `current` is the chosen model (it follows `/model`), read at each request."""

    current: CurrentModel
    api_seconds: float  # time spent inside model requests, for duration_api_ms and benchmarks

    @property
    def config(self) -> LLMConfig: ...

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
        """One streamed completion: text as it comes to `on_text`, tool calls, usage; raises
        ProviderError (one sentence), MissingCredentials or Cancelled. `call_tools`: the tool schemas a
        required call may be, perhaps narrowed (an enum of paths: agent/first_step.py); None: any offered."""
        ...


def parse_arguments(raw: str) -> dict[str, Any]:
    """Tool-call arguments as a dict; raises ValueError with a readable reason."""
    if raw is None or raw.strip() == "":
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the arguments are not valid JSON ({exc.msg} at position {exc.pos})") from None
    if not isinstance(value, dict):
        raise ValueError("the arguments must be a JSON object")
    return value
