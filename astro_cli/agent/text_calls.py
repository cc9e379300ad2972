"""Tool calls a model wrote as text instead of through the API's `tool_calls`.

Small open models served locally (Ollama, llama.cpp's server, vLLM without a tool parser) often
write their call into the message text: a fenced ```json {"name": ..., "arguments": ...}``` block,
Hermes/Qwen `<tool_call>{...}</tool_call>` tags, Llama's `<|python_tag|>{...}`, or a tag named after
the tool (`<todo_write>{...}</todo_write>`, agent/tool_tags.py). Read as the
final answer, such a reply ends the turn with no tool run. These pure functions find such a call
only where it ends the reply: the whole reply is the call, or the call block ends it with nothing
but whitespace after. A call quoted mid-answer, a fenced example followed by prose, or a call the
model copied from a tool's result (a planted one, in a file or a library row) is text, never a
call. They check that a call names an offered tool, say in one sentence what is wrong with one
that cannot be used, and never raise.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.agent.stream import ToolCallRequest
from astro_cli.agent.tool_tags import tag_call

if TYPE_CHECKING:
    from astro_cli.agent.model import LLMReply

# Chat-template tokens and tags that leak into the text of small models' answers.
_TEMPLATE_TAGS = re.compile(
    r"</?tool_response>|</?response>|</?tool_call>|</?tools>|<\|python_tag\|>"
    r"|<\|(?:im_start|im_end|eot_id|eom_id|end|endoftext|assistant|user|system)\|>"
    r"|<\|start_header_id\|>\w*<\|end_header_id\|>|</s>"
)
_FENCE_AT_END = re.compile(r"```[ \t]*(?:json|tool_call|tool|javascript|js)?[ \t]*\n?(?P<body>(?:(?!```).)*?)\n?[ \t]*```\s*$",
                           re.DOTALL | re.IGNORECASE)
_TOOL_CALL_TAG = re.compile(r"<tool_call>\s*(?P<body>.*?)\s*(?:</tool_call>|$)", re.DOTALL)
# Qwen2.5 small models sometimes echo the chat template's <tools> block with their calls in it,
# one JSON object per line (recorded: tests/fixtures/local_model/).
_TOOLS_TAG = re.compile(r"<tools>\s*(?P<body>.*?)\s*(?:</tools>\s*$|$)", re.DOTALL)
# ... or write a call inside the tag their template gives results in (recorded: the read_file call
# just answered, written again in <tool_response>); only a JSON object with a "name" counts there.
_TOOL_RESPONSE_TAG = re.compile(r"<tool_response>\s*(?P<body>\{.*?)\s*(?:</tool_response>\s*$|$)", re.DOTALL)
_PYTHON_TAG = re.compile(r"<\|python_tag\|>(?P<body>.*)$", re.DOTALL)
_CLOSED = re.compile(r"</(?:tool_call|tools|tool_response)>\s*$")
_END_TOKENS = re.compile(r"(?:\s*(?:<\|eom_id\|>|<\|eot_id\|>|<\|im_end\|>|</s>))+\s*$")
_CALL_WORDS = re.compile(r'"name"\s*:')


@dataclass(frozen=True)
class TextCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class TextCalls:
    """What a reply's text holds: the usable calls, the prose before them, or why they are unusable."""

    prose: str
    calls: list[TextCall] = field(default_factory=list)
    problem: str | None = None  # one sentence: why the call-looking text cannot be run
    bodies: tuple[str, ...] = ()  # the call blocks as written, to tell a call from one copied out of a tool's result


def strip_template_tags(text: str) -> str:
    """The text without chat-template tokens (`<|im_end|>`, `<tool_response>`, ...), trimmed where
    one was removed; a text without any is returned as it is."""
    stripped, count = _TEMPLATE_TAGS.subn("", text)
    return stripped.strip() if count else text


def find_text_calls(text: str, tools: Collection[str]) -> TextCalls | None:
    """The tool call(s) written at the end of `text`, or None when the text holds none.

    A fenced JSON block or bare JSON object counts only when it has a "name" key; a code block
    of other JSON is an answer, not a call.
    """
    try:
        return _find(text, tools)
    except (RecursionError, ValueError, TypeError):  # pathological input: treat it as prose
        return None


def _find(text: str, tools: Collection[str]) -> TextCalls | None:
    text = _END_TOKENS.sub("", text or "")
    for pattern, needs_name in ((_TOOL_CALL_TAG, False), (_PYTHON_TAG, False), (_TOOLS_TAG, True),
                                (_TOOL_RESPONSE_TAG, True)):
        blocks = _ending_blocks(list(pattern.finditer(text)), text)
        if blocks:
            return _calls_from([m.group("body") for m in blocks], text[: blocks[0].start()], tools, needs_name)
    fence = _FENCE_AT_END.search(text)
    if fence is not None:
        return _calls_from([fence.group("body")], text[: fence.start()], tools, needs_name=True)
    stripped = text.strip()
    if stripped.startswith(("{", "[")) and _CALL_WORDS.search(stripped):
        return _calls_from([stripped], "", tools, needs_name=True)
    tagged = tag_call(text, tools)  # <todo_write>{...}</todo_write>: a tag named after the tool
    if tagged is not None:
        name, arguments, prose, body = tagged
        return TextCalls(prose=strip_template_tags(prose).strip(), calls=[TextCall(name, arguments)], bodies=(body,))
    return None


def _ending_blocks(matches: list[re.Match[str]], text: str) -> list[re.Match[str]]:
    """The tag blocks that end the text, one after another with only whitespace between them; none
    when the last block has text after it (a tag quoted in an answer). A block left open by the
    end of the reply counts only when a JSON value starts it."""
    end = len(text.rstrip())
    if not matches or matches[-1].end() < end or text[matches[-1].end():].strip():
        return []
    last = matches[-1]
    if not _CLOSED.search(last.group(0)) and not last.group("body").lstrip().startswith(("{", "[")):
        return []
    blocks = [last]
    for match in reversed(matches[:-1]):
        if text[match.end(): blocks[0].start()].strip():
            break
        blocks.insert(0, match)
    return blocks


def _calls_from(bodies: list[str], prose: str, tools: Collection[str], needs_name: bool) -> TextCalls | None:
    calls: list[TextCall] = []
    for body in bodies:
        body = body.strip().rstrip(";").strip()
        try:
            value = _json_values(body)
        except json.JSONDecodeError as exc:
            if exc.msg == _MORE_TEXT or (needs_name and not _CALL_WORDS.search(body)):
                return None  # a call with prose after it (quoted), or a code block of something else
            return TextCalls(prose=strip_template_tags(prose).strip(), problem=(
                f"the tool call is not valid JSON ({exc.msg} at position {exc.pos})"))
        items = [_unwrapped(item) for item in (value if isinstance(value, list) else [value])]
        for item in items:
            if needs_name and not (isinstance(item, dict) and "name" in item):
                return None
            call, problem = _one_call(item, tools)
            if problem is not None:
                return TextCalls(prose=strip_template_tags(prose).strip(), problem=problem)
            assert call is not None
            calls.append(call)
    if not calls:
        return None if needs_name else TextCalls(prose=strip_template_tags(prose).strip(), problem="the tool call is empty")
    return TextCalls(prose=strip_template_tags(prose).strip(), calls=calls, bodies=tuple(bodies))


def _unwrapped(item: Any) -> Any:
    """OpenAI's own shape, {"type": "function", "function": {"name", "arguments"}}, as a call; and
    a tool's schema echoed back ({"function": {"name", "parameters": {"type": "object", ...}}},
    recorded from Qwen2.5-Coder-1.5B) as a call with a problem, so the model is told what to write."""
    if not isinstance(item, dict) or "name" in item or not isinstance(item.get("function"), dict):
        return item
    function = item["function"]
    parameters = function.get("parameters")
    if "arguments" not in function and isinstance(parameters, dict) and "properties" in parameters:
        required = parameters.get("required")
        return {"name": function.get("name"), "schema_echoed": True,
                "required": [str(r) for r in required] if isinstance(required, list) else []}
    return function


_MORE_TEXT = "text after the call"


def _json_values(body: str) -> Any:
    """One JSON value, or several written one after another (one call per line): a list of them."""
    decoder = json.JSONDecoder()
    values, at = [], 0
    while True:
        value, at = decoder.raw_decode(body, at)
        values.append(value)
        while at < len(body) and body[at] in " \t\r\n,":
            at += 1
        if at >= len(body):
            return values[0] if len(values) == 1 else values
        if body[at] not in "{[":
            raise json.JSONDecodeError(_MORE_TEXT, body, at)


def _one_call(item: Any, tools: Collection[str]) -> tuple[TextCall | None, str | None]:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return None, 'a tool call must be a JSON object with a "name" and an "arguments" object'
    name = item["name"]
    if item.get("schema_echoed"):
        # The example names the required parameters: "{...}" told the 1.5B model nothing to fill in.
        values = ", ".join(f'"{param}": "..."' for param in item.get("required") or []) or "..."
        return None, (f"it repeats the schema of {name} instead of calling it; a call gives the values, e.g. "
                      f'{{"name": "{name}", "arguments": {{{values}}}}}')
    arguments = item.get("arguments", item.get("parameters", {}))
    if isinstance(arguments, str):  # some templates nest the arguments as a JSON string
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return None, f"the arguments of {name} are not valid JSON"
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return None, f"the arguments of {name} must be a JSON object"
    if name not in tools:
        offered = ", ".join(sorted(tools)) or "none"
        return None, f"there is no tool named {name!r} (the tools are: {offered})"
    return TextCall(name=name, arguments=arguments), None


_CALL_START = re.compile(r'\{\s*"name"\s*:')
MAX_CUT_POINTS = 200


def mend_cut_call(text: str) -> str | None:
    """A text call the token limit cut inside a list, closed after the list's last whole item.

    Recorded from Qwen2.5-Coder-1.5B: rag_search's `queries` repeated until max_tokens, so the call
    never ended and the reply became the answer. Only list items are dropped (every argument named
    before the cut stays whole); None when the call is not cut that way."""
    starts = list(_CALL_START.finditer(text))
    if not starts:
        return None
    start = starts[-1].start()
    body = text[start:].rstrip()
    try:
        json.loads(body)
        return None  # whole: not cut
    except json.JSONDecodeError:
        pass
    for cut in _list_item_ends(body)[-MAX_CUT_POINTS:][::-1]:
        closed = _closed(body[:cut])
        if closed is None:
            continue
        try:
            value = json.loads(closed)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(value.get("arguments", {}), dict):
            before = text[:start]
            fence = "\n```" if before.count("```") % 2 else ""
            return before + closed + fence
    return None


def _structure(text: str) -> Iterator[tuple[int, str, list[str]]]:
    """(offset, character, open brackets) for each character of `text` outside JSON strings."""
    stack: list[str] = []
    in_string = escaped = False
    for at, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
        elif char in "}]" and stack:
            stack.pop()
        yield at, char, stack
    if in_string:
        yield len(text), '"', stack  # an unclosed string: the caller's sign that the text ends inside one


def _list_item_ends(body: str) -> list[int]:
    """Offsets of the commas that end an item of a list (never a member of an object)."""
    return [at for at, char, stack in _structure(body) if char == "," and stack and stack[-1] == "["]


def _closed(prefix: str) -> str | None:
    """`prefix` (which ends after a whole value) with its open lists and objects closed."""
    open_now: list[str] = []
    for at, _char, stack in _structure(prefix):
        if at == len(prefix):
            return None  # it ends inside a string
        open_now = stack
    return prefix.rstrip() + "".join("}" if b == "{" else "]" for b in reversed(open_now))


def corrective_message(problem: str) -> str:
    """The one message a model gets after writing an unusable tool call."""
    return (
        f"Your last reply looks like a tool call written as text, but {problem}. To use a tool, call it "
        'through tool calling, or reply with only ```json {"name": "TOOL", "arguments": {...}}``` naming one of '
        "the offered tools; otherwise give your final answer as plain text."
    )


def adopt_text_calls(reply: LLMReply, tools: list[dict[str, Any]], results: Sequence[str] = ()) -> str | None:
    """Turn a reply's text-written call into real tool calls, in place; strip template tags.

    Returns the problem (one sentence) when the text holds a call that cannot be used; the reply's
    text is then left as the model wrote it, so the model sees its mistake in the history. A call
    that tool `results` (of this conversation) already hold is the model repeating outside text:
    it stays text.
    """
    if reply.tool_calls or reply.interrupted:
        return None
    names = {str((tool.get("function") or tool).get("name", "")) for tool in tools}
    text = reply.text
    if reply.finish_reason == "length":
        text = mend_cut_call(text) or text
    found = find_text_calls(text, names)
    if found is None or copied_from_results(found, results):
        reply.text = strip_template_tags(reply.text)
        return None
    if found.problem is not None:
        return found.problem
    reply.text = found.prose
    reply.tool_calls = [ToolCallRequest(id=f"call_text_{uuid.uuid4().hex[:12]}", name=call.name,
                                        arguments=json.dumps(call.arguments)) for call in found.calls]
    return None


_QUOTED_FENCE = re.compile(r"```[ \t]*(?:json|tool_call|tool)?[ \t]*\n(?P<body>[^`]*)```", re.IGNORECASE)
_QUOTED_TAG = re.compile(r"<tool_call>(?P<body>[^<]*)</tool_call>")


def quoted_calls(text: str, tools: Collection[str]) -> TextCalls | None:
    """Calls to offered tools written inside a reply's text but not where they end it (a fenced call
    with a sentence after it, a tag mid-answer): never run, but worth telling the model about. Only
    whole, usable calls count; the patterns take no backtracking (no backquote or '<' inside)."""
    bodies = [m.group("body") for pattern in (_QUOTED_FENCE, _QUOTED_TAG) for m in pattern.finditer(text or "")]
    calls: list[TextCall] = []
    for body in bodies:
        if not _CALL_WORDS.search(body):
            continue
        found = _calls_from([body], "", tools, needs_name=True)
        if found is not None and found.problem is None:
            calls.extend(found.calls)
    return TextCalls(prose=text, calls=calls, bodies=tuple(bodies)) if calls else None


def copied_from_results(found: TextCalls, results: Sequence[str]) -> bool:
    """Whether a call block of the reply is in a tool's result: text from a file, a paper or a
    shared library row that the model repeated, so nobody but that text's author asked for it.
    Compared without whitespace or JSON string escapes, so a result that quotes it inside JSON
    counts too."""
    written = [_bare(body) for body in found.bodies]
    written = [body for body in written if len(body) >= 8]
    if not written:
        return False
    return any(body in _bare(result) for result in results for body in written)


def _bare(text: str) -> str:
    return re.sub(r"\s+", "", str(text)).replace('\\"', '"')
