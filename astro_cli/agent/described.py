"""A reply that tells the user how to do the task instead of doing it.

Recorded (issue 48, Qwen2.5-Coder-1.5B): asked to add a task, to save a memory, the small model
answered "you can use the ... tool" and called nothing. That is an answer to "how do I ...?", not to
"do ...". When a tool-using model (local or the small profile) replies so and the question does not
ask how or why, the model is asked once to use the tools itself. After tools ran the same holds when
the reply cites no passage handle and gives no number a tool's result of this turn holds (stop 51:
after rag_search, "to cite the passage ..., you can use the `rag_search` function ..."); a reply that
does either is an answer that also explains itself.

The rule is grammatical, not a list of one model's phrasings: the reply addresses the reader as the
one who would act (`you` with a modal verb, or an opening purpose clause followed by an instruction:
"To do this, run ...") and names the means (one of the offered tools, a command in backticks). Costs
one request, at most once per turn, and only when the reply looks like that.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from astro_cli.agent.extensions import LoopExtension

if TYPE_CHECKING:
    from astro_cli.agent.extensions import TurnView

NUDGE = ("Your last reply tells the user how to do it; the user asked you to do it. Use your tools now: call the "
         "tool that does the task (or finds what the question asks for), then answer from its result.")
# After tools ran, what they returned is what the reply should have used (stop 52, development: after
# read_file returned the CSV, "I would use the `read_file` function to read the contents ...").
NUDGE_AFTER_TOOLS = ("Your last reply tells the user how to do it; the user asked you to do it, and your tools "
                     "already ran: answer the question now from their results above (give the values, cite "
                     "the passage handles), or call the tool that does what is still missing.")

# The reader as the actor: "you" + a modal verb (can, could, should, would, may, might, need/have to, will).
_YOU_WOULD = re.compile(r"\byou(?:'ll| will| would| can| could| should| may| might| need to| have to| must)\b",
                        re.IGNORECASE)
# An instruction behind a purpose clause: "To save it, run ...", "To do this, call ...".
_PURPOSE_THEN_DO = re.compile(r"(?:^|[.!?:]\s+|\n\s*)to\s+\w+[^.,;:\n]{0,80},\s+\w+", re.IGNORECASE)
# The question asks how or why (an explanation is the answer), not for the thing done.
_ASKS_HOW = re.compile(r"(?:^\s*(?:how|why|explain)\b|\bhow (?:do|does|can|could|should|would|to|is|are)\b"
                       r"|\bwhat(?:'s| is) the (?:best |right )?way\b)", re.IGNORECASE)
_CODE = re.compile(r"`[^`\n]+`")
_HANDLE = re.compile(r"\[[^\]\s]+:[^\]\s]+\]")  # a passage handle as answers cite it: [1001.0012:p3:c2]
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")


def asks_how(question: str) -> bool:
    return bool(_ASKS_HOW.search(question))


def describes_doing(reply: str, tool_names: list[str]) -> bool:
    """The reply tells the reader what to do (see the module's rule) and names a tool or a command."""
    if not (_YOU_WOULD.search(reply) or _PURPOSE_THEN_DO.search(reply)):
        return False
    words = set(re.findall(r"[\w.-]+", reply))
    return any(name in words for name in tool_names) or bool(_CODE.search(reply))


class DescribedNotDone(LoopExtension):
    """One nudge per turn to a local or small-profile model that described the task instead of doing it."""

    context_source = "described"

    def __init__(self) -> None:
        self._nudged_turn = -1

    def review_answer(self, state: TurnView, answer: str) -> bool:
        session = state.session
        if state.turn == self._nudged_turn or asks_how(state.prompt):
            return False
        if state.tool_log and gives_something(answer, turn_results(session.messages, state.prompt)):
            return False
        if not (session.llm.config.text_tool_calls or session.profile == "small"):
            return False
        tools = state.assembled.tools if state.assembled is not None else []
        names = [str((tool.get("function") or {}).get("name", "")) for tool in tools]
        if not describes_doing(answer, [name for name in names if name]):
            return False
        self._nudged_turn = state.turn
        state.inject(NUDGE_AFTER_TOOLS if state.tool_log else NUDGE, kind="nudge")
        return True


def turn_results(messages: list[dict[str, Any]], question: str) -> list[str]:
    """The tool results since the question was asked (the newest asking of it)."""
    results: list[str] = []
    for message in reversed(messages):
        if message.get("role") == "user" and message.get("content") == question:
            break
        if message.get("role") == "tool":
            results.append(str(message.get("content") or ""))
    return results


def gives_something(answer: str, results: list[str]) -> bool:
    """The answer cites a passage handle, or gives a number one of `results` holds."""
    if _HANDLE.search(answer):
        return True
    shown = set(_NUMBER.findall("\n".join(results)))
    # One digit ("step 1", "[1]") is how text counts, not a value found.
    return any(number in shown and len(number.lstrip("-")) > 1 for number in _NUMBER.findall(answer))
