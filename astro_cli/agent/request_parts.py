"""The parts of a request (one, or two things asked at once), and the tool each part needs.

Recorded (issue 48, stop 53, old 8-task set, readme; stop 50, todo_summary_task; Qwen2.5-Coder-1.5B):
"Summarise the README and list the other files in this folder" read the README, then, offered the
answer, answered the first half only; "Summarise notes/todo.md and add a task for the first open item"
read the file and answered, no task recorded. A request whose clauses each open with a verb ("...
and list ...", "...; add ...") has a part per clause; where the server enforces a call schema (llama.cpp),
the answer is offered only once each part with a tool of its own has had a successful call of it: until
then the next call must be one of the next part's tools. A request for one change (a note, a task, a
memory) is a part as well: once its tool has done the work, the answer alone is offered (stop 53
held-out, note_nirspec_date: after save_note, an empty reply, then a plan to search ADS and a
"Created ..." line no tool wrote, given as the answer); if another tool ran first, the change's tool
is the next call (stop 50, memory_vega: save_note where save_memory was asked). If a call fails, the
steps are left free again (the model then says what it could not do).
"""

from __future__ import annotations

import re
from typing import Any

from astro_cli.agent.call_schema import ANSWER_TOOL
from astro_cli.agent.first_step import LIBRARY_TOOL, names_library
from astro_cli.agent.request_kind import ASKING_OPENINGS, CHANGE_VERBS, asks_for_change

# A clause's start: after a sentence's end, a semicolon, a comma or "and" / "then", a verb opens it.
_BOUNDARY = re.compile(r"(?:[.;!?]\s+|,\s*(?:and\s+|then\s+)*|\s+(?:and|then)\s+(?:then\s+)?)(?:please\s+)?([a-z]+)\b",
                       re.IGNORECASE)
_FILE = re.compile(r"(?:\b[\w.-]+/|(?<![\w.])[\w-]+\.[A-Za-z][A-Za-z0-9]{1,4}\b|\breadme\b)", re.IGNORECASE)
_NAMED_FILE = re.compile(r"(?:(?<![\w.])[\w-]+\.[A-Za-z][A-Za-z0-9]{1,4}\b|\breadme\b)", re.IGNORECASE)
_FILES = re.compile(r"\b(?:files|folder|directory|contents)\b", re.IGNORECASE)
_TASK = re.compile(r"\b(?:tasks?|to-?do(?: list)?)\b", re.IGNORECASE)
_NOTE = re.compile(r"\bnotes?\b", re.IGNORECASE)
_MEMORY = re.compile(r"\b(?:memory|remember|(?:keep|bear) in mind|(?:future|later|next|coming) sessions?|from now on"
                     r"|going forward|preference)\b", re.IGNORECASE)
_LISTING = frozenset({"list", "which", "what", "show", "name", "count"})
MAX_PARTS = 3
WRITES = frozenset({"todo_write", "save_memory", "save_note"})  # the tools of the parts that ask for a change


def request_parts(request: str) -> list[str]:
    """The request's clauses that open with a verb (one part when it has no such boundary)."""
    cuts = [match.start() for match in _BOUNDARY.finditer(request)
            if match.group(1).lower() in ASKING_OPENINGS | CHANGE_VERBS]
    bounds = [0, *cuts, len(request)]
    parts = [request[start:end].strip(" ,.;") for start, end in zip(bounds, bounds[1:])]
    return [part for part in parts if part]


def part_tools(part: str) -> frozenset[str] | None:
    """The tools that do this part of a request; None when no one tool family is its own."""
    verb = (re.match(r"\W*(?:and\s+|then\s+|please\s+)*([a-z]+)", part, re.IGNORECASE) or [None, ""])[1] or ""
    changes = asks_for_change(part)
    if changes and _TASK.search(part):
        return frozenset({"todo_write"})
    if changes and _MEMORY.search(part):
        return frozenset({"save_memory"})
    if changes and _NOTE.search(part):
        return frozenset({"save_note"})
    if verb.lower() in _LISTING and _FILES.search(part) and not _FILE.search(part.replace("files", "")):
        return frozenset({"glob_files"})
    if not changes and names_library(part):
        return frozenset({LIBRARY_TOOL})
    if not changes and _FILE.search(part):
        # A file named is read; a folder alone may be listed first.
        return frozenset({"read_file"}) if _NAMED_FILE.search(part) else frozenset({"read_file", "glob_files"})
    return None


def part_step_tools(request: str, step: int, log: list[dict[str, Any]],
                    tools: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """For a request of two or more parts with tools of their own, after the first call: the offered
    tools of the first part not yet done (a required call), or the answer alone once every part is
    done. None (the steps as they are) for a one-part request, after a failed call, or past the parts."""
    needs = [found for found in map(part_tools, request_parts(request)) if found is not None]
    if not needs or len(needs) > MAX_PARTS or not log or step > len(needs) + 2:
        return None
    if len(set(needs)) < len(needs) or (len(needs) == 1 and not needs[0] <= WRITES):
        return None  # one part that reads: agent/first_step.py's answer step
    if not all(call.get("ok") for call in log):
        return None
    done = {str(call.get("name")) for call in log}
    pending = [need for need in needs if not need & done]
    if not pending:
        return [ANSWER_TOOL]
    offered = [tool for tool in tools if (tool.get("function") or {}).get("name") in pending[0]]
    return offered or None


def answer_note(request: str) -> str | None:
    """For the answer step of a request in two or more parts: the parts, so that the answer covers each.
    Recorded (stop 54 development, readme): after read_file and glob_files, the answer gave the listing
    alone and called it the README's content."""
    parts = [part for part in request_parts(request) if part_tools(part) is not None]
    if len(parts) < 2:
        return None
    listed = "; ".join(f"({number}) {part.removeprefix('and ').strip()}" for number, part in enumerate(parts, 1))
    return f"Each part of the request has been done; the results are above. In your answer, cover every part in turn: {listed}."
