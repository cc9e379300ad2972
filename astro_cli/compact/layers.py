"""The four compaction layers as pure functions over message lists, and the safe cut point finder.

Every function takes a valid provider history (OpenAI chat format) and returns a valid one, or
None when it has nothing to do. "Valid" is what every provider insists on: each assistant message
with tool calls is followed by the results of exactly those calls, and no tool result stands
anywhere else. A cut therefore never falls between a call and its results (003, section 6.4).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Message = dict[str, Any]

PLACEHOLDER = "[Previous: used {tool_name}]"
SUMMARY_HEADER = "[Conversation summary]"
CUT_NOTE = "\n[... {cut} characters cut by compaction; the full result is stored in the session]"


def text_of(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def _call_ids(message: Message) -> list[str]:
    if message.get("role") != "assistant":
        return []
    return [call["id"] for call in message.get("tool_calls") or []]


# --- safe cut points ----------------------------------------------------------------------------
def safe_boundaries(messages: list[Message]) -> list[bool]:
    """safe[i]: cutting between messages[i-1] and messages[i] keeps every call with its results.

    Boundaries 0 and len(messages) are always safe. A boundary is unsafe when the message after it
    is a tool result, or when a call made before it is answered after it.
    """
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    safe = [True] * (len(messages) + 1)
    pending: set[str] = set()
    for i, message in enumerate(messages):
        if i > 0:
            safe[i] = not pending and message.get("role") != "tool"
        if message.get("role") == "tool":
            pending.discard(message.get("tool_call_id"))
        pending.update(cid for cid in _call_ids(message) if cid in answered)
    return safe


def find_safe_cut_point(messages: list[Message], index: int) -> int:
    """The nearest safe boundary at or before `index`, tracing back to the start of a tool exchange."""
    index = max(0, min(index, len(messages)))
    safe = safe_boundaries(messages)
    while index > 0 and not safe[index]:
        index -= 1
    return index


def find_safe_cut_after(messages: list[Message], index: int) -> int:
    """The nearest safe boundary at or after `index` (the end of the exchange it falls in)."""
    index = max(0, min(index, len(messages)))
    safe = safe_boundaries(messages)
    while index < len(messages) and not safe[index]:
        index += 1
    return index


# --- layer 0: snip ------------------------------------------------------------------------------
def snip_plan(
    messages: list[Message], max_messages: int = 50, keep_head: int = 3, keep_tail: int = 47
) -> tuple[int, int] | None:
    """(head_end, tail_start): keep messages[:head_end] and messages[tail_start:], or None."""
    count = len(messages)
    if count <= max_messages:
        return None
    head_end = find_safe_cut_after(messages, max(0, keep_head))
    tail_start = find_safe_cut_point(messages, count - max(0, keep_tail))
    if tail_start <= head_end:
        return None
    return head_end, tail_start


def snip(
    messages: list[Message], max_messages: int = 50, keep_head: int = 3, keep_tail: int = 47
) -> list[Message] | None:
    """Layer 0: past `max_messages`, keep the first `keep_head` and the last `keep_tail` messages."""
    plan = snip_plan(messages, max_messages, keep_head, keep_tail)
    if plan is None:
        return None
    head_end, tail_start = plan
    return messages[:head_end] + messages[tail_start:]


# --- layers 1 and 3: placeholders for older tool results ----------------------------------------
def is_placeholder(message: Message) -> bool:
    return message.get("role") == "tool" and text_of(message).startswith("[Previous: used ")


def _tool_names(messages: list[Message]) -> dict[str, str]:
    names: dict[str, str] = {}
    for message in messages:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                names[call["id"]] = call.get("function", {}).get("name", "")
    return names


def placeholder_for(message: Message, names: dict[str, str] | None = None) -> Message:
    name = message.get("name") or (names or {}).get(message.get("tool_call_id", "")) or "a tool"
    replaced = {
        "role": "tool",
        "tool_call_id": message.get("tool_call_id"),
        "content": PLACEHOLDER.format(tool_name=name),
    }
    if message.get("name"):
        replaced["name"] = message["name"]
    return replaced


def micro(messages: list[Message], keep: int = 5) -> list[Message] | None:
    """Layer 1: every tool result but the latest `keep` becomes `[Previous: used {tool_name}]`."""
    results = [i for i, m in enumerate(messages) if m.get("role") == "tool"]
    older = results[: max(0, len(results) - max(0, keep))]
    targets = [i for i in older if not is_placeholder(messages[i])]
    if not targets:
        return None
    names = _tool_names(messages)
    out = list(messages)
    for i in targets:
        out[i] = placeholder_for(messages[i], names)
    return out


def aggressive(messages: list[Message], keep: int = 2) -> list[Message] | None:
    """Layer 3: only the latest `keep` tool results stay whole."""
    return micro(messages, keep=keep)


def truncate_results(messages: list[Message], max_chars: int) -> list[Message] | None:
    """Last resort inside layer 3: cut tool results longer than `max_chars`, saying so."""
    out = list(messages)
    changed = False
    for i, message in enumerate(messages):
        text = text_of(message)
        if message.get("role") == "tool" and len(text) > max_chars and not is_placeholder(message):
            out[i] = {**message, "content": text[:max_chars] + CUT_NOTE.format(cut=len(text) - max_chars)}
            changed = True
    return out if changed else None


# --- layer 2: summary ---------------------------------------------------------------------------
def summary_message(text: str) -> Message:
    return {"role": "user", "content": f"{SUMMARY_HEADER}\n{text.strip()}"}


def is_summary(message: Message) -> bool:
    return message.get("role") == "user" and text_of(message).startswith(SUMMARY_HEADER)


def summary_cut(messages: list[Message], keep_tail: int = 6) -> int | None:
    """Where the summary ends: a safe boundary leaving about `keep_tail` recent messages whole.

    None when there is too little before it to be worth a model call (fewer than two messages,
    or only an earlier summary).
    """
    count = len(messages)
    cut = find_safe_cut_point(messages, count - max(0, keep_tail))
    if cut < 2:
        cut = find_safe_cut_after(messages, max(2, count - max(0, keep_tail)))
    covered = messages[:cut]
    if len(covered) < 2 or all(is_summary(m) for m in covered):
        return None
    return cut


def tighten_cut(messages: list[Message], cut: int, fits: Callable[[list[Message]], bool]) -> int:
    """Move `cut` to later safe boundaries until the kept tail `fits`, but never past the start of
    the last exchange: the model must see the result of its latest call (layer 3 shortens it).

    A tail that fills most of the window would make the next step compact again at once.
    """
    safe = safe_boundaries(messages)
    last = find_safe_cut_point(messages, len(messages) - 1)
    while cut < last and not fits(messages[cut:]):
        cut += 1
        while cut < last and not safe[cut]:
            cut += 1
    return cut


def apply_summary(messages: list[Message], cut: int, text: str) -> list[Message]:
    """Layer 2: the summary replaces messages[:cut]; the messages after the cut stay as they are."""
    return [summary_message(text), *messages[cut:]]


# --- the invariant ------------------------------------------------------------------------------
def history_problems(messages: list[Message]) -> list[str]:
    """What a provider would reject in `messages` (empty when the history is valid)."""
    problems: list[str] = []
    expected: list[str] = []
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            cid = message.get("tool_call_id")
            if cid not in expected:
                problems.append(f"message {i}: tool result {cid!r} does not follow its call")
            else:
                expected.remove(cid)
            continue
        if expected:
            problems.append(f"message {i}: calls {expected} have no result before it")
            expected = []
        expected = list(_call_ids(message))
    if expected:
        problems.append(f"end: calls {expected} have no result")
    return problems
