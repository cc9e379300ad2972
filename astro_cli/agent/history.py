"""Keeping a stored history acceptable to every provider.

A crash can leave an assistant message whose tool calls have no results; providers reject such a
history. `missing_results` finds them so the session can store an "interrupted" result for each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from astro_cli.agent.model import parse_arguments

if TYPE_CHECKING:
    from astro_cli.agent.model import LLMReply

INTERRUPTED_RESULT = "[interrupted: the tool did not finish; no result was recorded]"
INTERRUPTED = "[interrupted]"  # ends a reply the user cut, so the model learns it was stopped


def reply_record(reply: LLMReply, step: int, interrupted: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """The assistant message to store for `reply`, and its meta. An interrupted reply keeps its text,
    marked, and drops its calls; arguments no provider would accept back are sent as `{}` (the tool
    result tells the model what was wrong) and kept as written in the meta."""
    message = reply.to_message()
    if interrupted:
        message.pop("tool_calls", None)
        message["content"] = (reply.text + "\n\n" + INTERRUPTED).strip()
    if not message.get("content") and not message.get("tool_calls"):
        message["content"] = ""
    meta: dict[str, Any] = {"step": step}
    if reply.continuations:
        meta["continuations"] = reply.continuations
    if reply.truncated:
        meta["truncated"] = True
    for call in message.get("tool_calls") or []:
        try:
            parse_arguments(call["function"]["arguments"])
        except ValueError:
            meta.setdefault("malformed_arguments", {})[call["id"]] = call["function"]["arguments"]
            call["function"]["arguments"] = "{}"
    return message, meta


def missing_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool-result messages needed so every tool call in `messages` has an answer."""
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    needed: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            if call["id"] not in answered:
                needed.append(
                    {
                        "role": "tool",
                        "tool_call_id": call["id"],
                        "name": call["function"]["name"],
                        "content": INTERRUPTED_RESULT,
                    }
                )
                answered.add(call["id"])
    return needed


def order_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Move each tool result right after the assistant message that asked for it."""
    results = {m["tool_call_id"]: m for m in messages if m.get("role") == "tool" and m.get("tool_call_id")}
    ordered: list[dict[str, Any]] = []
    placed: set[str] = set()
    for message in messages:
        if message.get("role") == "tool" and message.get("tool_call_id") in results:
            continue
        ordered.append(message)
        for call in message.get("tool_calls") or []:
            result = results.get(call["id"])
            if result is not None and call["id"] not in placed:
                ordered.append(result)
                placed.add(call["id"])
    return ordered
