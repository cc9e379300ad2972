"""Reading a streamed reply: astro's own work per chunk, kept small, and litellm's kept in check.

A model that writes a 250 KB file through file_write streams about 13,000 chunks of tool-call
arguments. astro's work per chunk is an append to a list (joined once at the end, never a
string grown chunk by chunk); see benchmarks/bench_streaming.py for its cost. litellm keeps
every chunk so that, when the stream ends, it can rebuild the whole response for its logging
callbacks (astro registers none), which costs about as much again as reading the stream;
`litellm_model.compat.forget_chunks` keeps only what that last step needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from astro_cli.usage import Usage

FORGET_EVERY = 64  # chunks between two trims of litellm's list


@dataclass
class ToolCallRequest:
    id: str
    name: str
    arguments: str  # raw JSON text as the model produced it

    def to_message(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass
class _CallParts:
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)


def usage_of(usage: Any) -> Usage:
    """litellm's usage object (or dict) as astro's four token counts (the cost is added by the adapter)."""
    if usage is None:
        return Usage()

    def get(obj: Any, name: str) -> Any:
        return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)

    prompt = get(usage, "prompt_tokens") or 0
    completion = get(usage, "completion_tokens") or 0
    cache_read = get(usage, "cache_read_input_tokens") or 0
    details = get(usage, "prompt_tokens_details")
    if not cache_read and details is not None:
        cache_read = get(details, "cached_tokens") or 0
    cache_write = get(usage, "cache_creation_input_tokens") or 0
    return Usage(input_tokens=int(prompt), output_tokens=int(completion), cache_read_input_tokens=int(cache_read),
                 cache_creation_input_tokens=int(cache_write))


class StreamAccumulator:
    """Text, tool calls, usage and finish reason of one streamed reply, chunk by chunk."""

    def __init__(self, streamed: list[str], on_text: Callable[[str], None],
                 on_progress: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.streamed = streamed  # the caller's list: text already shown cannot be retried silently
        self.on_text = on_text
        self.on_progress = on_progress
        self.calls: dict[int, _CallParts] = {}
        self.usage = Usage()
        self.finish: str | None = None

    def add(self, chunk: Any) -> None:
        progress = getattr(chunk, "prompt_progress", None)  # llama.cpp's server with return_progress
        if isinstance(progress, dict) and self.on_progress is not None:
            self.on_progress(progress)
        chunk_usage = getattr(chunk, "usage", None)
        if chunk_usage:
            self.usage = usage_of(chunk_usage) or self.usage
        choices = chunk.choices
        if not choices:
            return
        choice = choices[0]
        if choice.finish_reason:
            self.finish = choice.finish_reason
        delta = choice.delta
        text = getattr(delta, "content", None)
        if text:
            self.streamed.append(text)
            self.on_text(text)
        for call in getattr(delta, "tool_calls", None) or ():
            index = call.index if call.index is not None else len(self.calls)
            slot = self.calls.get(index)
            if slot is None:
                slot = self.calls[index] = _CallParts()
            if call.id:
                slot.id = call.id
            function = call.function
            if function is not None:
                if function.name:
                    slot.name = function.name
                if function.arguments:
                    slot.parts.append(function.arguments)

    @property
    def produced(self) -> bool:
        """Whether the model has written anything yet (text or a tool call), as opposed to the
        role or progress chunks some servers send before the first token."""
        return bool(self.streamed) or bool(self.calls)

    @property
    def text(self) -> str:
        return "".join(self.streamed)

    def tool_calls(self) -> list[ToolCallRequest]:
        return [
            ToolCallRequest(id=slot.id or f"call_{index}", name=slot.name, arguments="".join(slot.parts) or "{}")
            for index, slot in sorted(self.calls.items())
        ]
