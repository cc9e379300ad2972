"""What a local model's reply may not be: an unusable tool call, the call (written as text) whose
result it was just given, a tool's error or result echoed back as the answer, or astro's own text
(its instructions, the environment message, the tool schemas: agent/overlap.py; any text holding one
of astro's prompt tags, such as a pasted <paper-text> result block: prompt/tags.py).

Small models (Qwen2.5-Coder-1.5B, recorded in tests/fixtures/local_model/) do each of these; read
plainly, each ends the turn with the wrong thing printed as the answer or runs in circles. Each
gets one corrective message; the loop pauses the turn if the next reply does it again. These
checks apply where tool calls written as text are read (local models), so cloud models see none
of this.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from astro_cli.agent.answer_call import NO_TEXT, answer_written
from astro_cli.agent.overlap import echoes
from astro_cli.agent.text_calls import (
    adopt_text_calls,
    copied_from_results,
    corrective_message,
    quoted_calls,
    strip_template_tags,
)
from astro_cli.prompt.tags import prompt_tag_in

if TYPE_CHECKING:
    from astro_cli.agent.model import LLMReply

ERROR_PREFIX = "Error:"
CORRECTION_START = "Your last reply"  # how every corrective message of these checks begins


@dataclass(frozen=True)
class BadReply:
    """A reply that is neither a usable step nor an answer."""

    did: str  # "wrote an unusable tool call": what the model did, for the pause notice
    problem: str  # one sentence: why the reply cannot be used
    message: str  # the one corrective message the model gets
    answer: str  # what stands as the answer if the turn pauses on it


def check_reply(reply: LLMReply, tools: list[dict[str, Any]], history: list[dict[str, Any]],
                final: bool, sent: list[str] | None = None) -> BadReply | None:
    """Adopt the tool calls the reply wrote as text (in place) and say what is wrong with it, if
    anything. `history` is the conversation before this reply; `final`: no tool may be called
    now, so only an unusable call is reported. `sent`: astro's own texts of this request (system
    prompt, environment message, tool schemas); a reply that mostly repeats them answers nothing. A repeated call counts only when written as text:
    a native call may poll on purpose (a background job's status), and is left to the step budget."""
    written, native = reply.text, bool(reply.tool_calls)
    answer = None if native else answer_written(written)
    if answer == NO_TEXT:
        return BadReply("gave an answer with no text", "its answer holds no text", (
            "Your last reply is an answer with no text in it. Write your answer to the user's question as plain "
            "text, from the tool results above; if they do not hold what it asks, say what is missing."), "")
    if answer is not None:
        reply.text = written = answer  # the answer branch written as text (agent/answer_call.py)
    results = [str(m.get("content") or "") for m in history if m.get("role") == "tool"]
    problem = adopt_text_calls(reply, tools, results)
    if problem is not None:
        return BadReply("wrote an unusable tool call", problem, corrective_message(problem),
                        strip_template_tags(written))
    if final:
        return None
    quoted = None if native or reply.tool_calls or _wants_example(history) else _quoted(written, tools, results)
    if quoted is not None and _last_calls(history) == quoted:
        names = [name for name, _ in quoted]
        shown = json.dumps(quoted[0][1], ensure_ascii=False)
        call = f"{names[0]}({shown if len(shown) <= 200 else shown[:200] + '…'})"
        return BadReply("repeated the call it had just made", f"it repeats {call}, whose result is just above", (
            f"Your last reply repeats {call}; its result is already above, and running it again "
            "gives the same. Answer the question from that result now, or call a different tool or "
            "the same tool with different arguments."), "")
    if quoted is not None:
        name = quoted[0][0]
        return BadReply("wrote a tool call inside its answer", "its tool call has text after it, so it was not run", (
            f"Your last reply has a {name} call with text after it, so it was not run: astro runs a call "
            "written as text only when the call ends your reply. To call it, reply with the call block "
            "alone; otherwise answer the question without it."), strip_template_tags(written))
    repeated = None if native else _repeated_call(reply, history)
    if repeated is not None:
        reply.text, reply.tool_calls = written, []  # stored as written: the model sees what it did
        problem = f"it repeats {repeated}, whose result is just above"
        return BadReply("repeated the call it had just made", problem, (
            f"Your last reply repeats {repeated}; its result is already above, and running it again "
            "gives the same. Answer the question from that result now, or call a different tool or "
            "the same tool with different arguments."), "")
    echoed = _echoed_error(reply.text, history)
    if echoed is not None:
        problem = f"it repeats the error {echoed} returned"
        return BadReply("gave a tool's error as its answer", problem, (
            f"Your last reply only repeats the error {echoed} returned; that is not an answer. Call "
            f"{echoed} again with arguments that fit its parameters, use another tool, or answer the "
            "question in your own words."), "")
    copied = _echoed_result(reply.text, history)
    if copied is not None:
        problem = f"it only copies the result {copied} returned"
        return BadReply("gave a tool's result as its answer", problem, (
            f"Your last reply only copies the result {copied} returned; that is not an answer. Answer the "
            "question in your own words from that result, or call another tool."), "")
    if not reply.tool_calls and _TOOL_RESPONSE.match(written):
        return BadReply("wrote a tool's response itself", "it is written as a tool response (<tool_response>)", (
            "Your last reply is written as a tool response (<tool_response> ...); tools write those, not you, "
            "so it is not an answer. Call the tool that gives what the question asks for (read_file reads "
            "a file), or answer the question in your own words."), strip_template_tags(written))
    if not reply.tool_calls and _TOOL_LIST.match(written):
        offered = [str((tool.get("function") or tool).get("name", "")) for tool in tools]
        named = [name for name in offered if name and f'"{name}"' in written] or ["..."]
        return BadReply("wrote the tool list itself", "it is written as the tool list astro sends (<tools>)", (
            "Your last reply is written as the tool list (<tools> ...); astro sends that list, so it is "
            f"neither a call nor an answer. To call a tool ({', '.join(named)}), reply with that one call "
            f'alone: {{"name": "{named[-1]}", "arguments": {{...its values...}}}}; otherwise answer the '
            "question in your own words."), "")
    if not reply.tool_calls and echoes(strip_template_tags(reply.text), sent or []):
        return BadReply("repeated astro's own instructions or context as its answer", "it only repeats the "
                        "instructions, environment or tool list astro sent it", (
                            "Your last reply only repeats text astro sent you (your instructions, the environment "
                            "or the tool list); that is not an answer. Answer the user's question: call a tool "
                            "that finds what it asks for, or answer from the tool results above."), "")
    framing = None if reply.tool_calls else prompt_tag_in(strip_template_tags(written))
    if framing is not None:
        return BadReply(f"gave astro's own <{framing}> text as its answer", f"it holds a <{framing}> block, "
                        "astro's own format for what it sends the model", (
                            f"Your last reply holds a <{framing}> block: that is astro's own format for tool "
                            "results and context, never an answer. Answer the user's question in your own words: "
                            "quote only the sentence that answers it and name where it comes from (the paper id and "
                            "section, or the file), or call a tool that finds it."), "")
    return None


_EXAMPLE_WORDS = re.compile(r"\b(?:show|example|examples|look like|looks like|format|syntax|spell)\b", re.IGNORECASE)


def _wants_example(history: list[dict[str, Any]]) -> bool:
    """Whether the researcher's question asks how something is done or what it looks like: then a
    call shown inside the answer is the answer's content, not a call the model forgot to send."""
    from astro_cli.agent.described import asks_how

    for message in reversed(history):
        text = str(message.get("content") or "") if message.get("role") == "user" else ""
        if text and not text.startswith((CORRECTION_START, "<environment>", "<system-reminder>")):
            return asks_how(text) or bool(_EXAMPLE_WORDS.search(text))
    return False


def _quoted(written: str, tools: list[dict[str, Any]], results: list[str]) -> list[tuple[str, Any]] | None:
    """The calls a reply quotes in its text without running them, unless a tool's result holds them
    (a planted call the model repeated is never suggested back to it)."""
    names = {str((tool.get("function") or tool).get("name", "")) for tool in tools}
    found = quoted_calls(written, names)
    if found is None or copied_from_results(found, results):
        return None
    return [(call.name, _arguments(call.arguments)) for call in found.calls]


def _repeated_call(reply: LLMReply, history: list[dict[str, Any]]) -> str | None:
    """`read_file({"path": "notes.md"})` when the reply's calls are exactly those whose results
    end the history (nothing between them and this reply)."""
    if not reply.tool_calls:
        return None
    previous = _last_calls(history)
    asked = [(call.name, _arguments(call.arguments)) for call in reply.tool_calls]
    if previous is None or asked != previous:
        return None
    name, arguments = asked[0]
    shown = json.dumps(arguments, ensure_ascii=False)
    return f"{name}({shown if len(shown) <= 200 else shown[:200] + '…'})"


def _last_calls(history: list[dict[str, Any]]) -> list[tuple[str, Any]] | None:
    """The calls of the last assistant message, if only their results follow it (and replies
    these checks already corrected, with their corrections)."""
    for message in _since_corrections(history):
        if message.get("role") == "tool":
            continue
        if message.get("role") != "assistant" or not message.get("tool_calls"):
            return None
        calls = [call.get("function") or {} for call in message["tool_calls"]]
        return [(str(call.get("name", "")), _arguments(call.get("arguments"))) for call in calls]
    return None


def _since_corrections(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history, newest first, without the corrected replies and corrections at its end."""
    newest = list(reversed(history))
    while (len(newest) >= 2 and newest[0].get("role") == "user" and newest[1].get("role") == "assistant"
           and str(newest[0].get("content") or "").startswith(CORRECTION_START)):
        newest = newest[2:]
    return newest


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return raw
    return raw if raw is not None else {}


# The chat template's markup for a tool's result (Qwen, Hermes), opening a reply: the model playing the tool.
# Recorded (issue 48, stop 50): after glob_files listed data/stars.csv, asked how many rows it has,
# the 1.5B model replied `<tool_response>\n1000\n</tool_response>`: a result no tool gave.
_TOOL_RESPONSE = re.compile(r"\s*<tool_response>")
# The template's tool list, opening a reply. Recorded (stop 52 development, task_plan): asked to plan three
# steps and record them as tasks, the 1.5B model replied `<tools>` and three tool schemas with values
# in them, not valid JSON, and astro gave that back as the answer.
_TOOL_LIST = re.compile(r"\s*<tools>")
MIN_COPIED_LINE = 30  # shorter lines (a path, a number) are what an answer may rightly repeat
# A line of a file, or a list of paths, may be the answer itself; a search's listing is not.
ANSWER_SHAPED_RESULTS = frozenset({"read_file", "grep_files", "glob_files"})


def _echoed_result(text: str, history: list[dict[str, Any]]) -> str | None:
    """The tool whose result (one of the last step's) the reply only copies: every line but a leading
    one is in that result, one of them at least MIN_COPIED_LINE long (recorded: rag_search's
    `1 passage(s) for ...` header and hit lines given back as the answer, behind one sentence)."""
    lines = [line.strip() for line in strip_template_tags(text).splitlines()]
    lines = [line for line in lines if line and not line.startswith("```")]
    if not lines:
        return None
    for message in _since_corrections(history):
        if message.get("role") != "tool":
            break
        if message.get("name") in ANSWER_SHAPED_RESULTS:
            continue
        content = " ".join(str(message.get("content") or "").split())
        copied = [" ".join(line.split()) in content for line in lines]
        own = [line for line, was in zip(lines, copied) if not was]
        long_copy = any(was and len(line) >= MIN_COPIED_LINE for line, was in zip(lines, copied))
        if long_copy and (not own or own == lines[:1]):
            return str(message.get("name") or "the tool")
    return None


def _echoed_error(text: str, history: list[dict[str, Any]]) -> str | None:
    """The tool whose error result (one of the last step's) the reply only repeats."""
    said = " ".join(strip_template_tags(text).split())
    if not said.startswith(ERROR_PREFIX):
        return None
    newest = _since_corrections(history)
    for message in newest:
        if message.get("role") != "tool":
            break
        content = message.get("content")
        if isinstance(content, str) and said[:200] in " ".join(content.split()):
            return str(message.get("name") or "the tool")
    return None
