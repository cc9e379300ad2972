"""The options `astro` and `astro run` share with `claude` (its names, so habits carry over), as settings.

Each becomes a setting of the command-line layer, the highest: `--disallowedTools` adds to
permissions.deny, `--add-dir` to allowed_paths, `--system-prompt` replaces the identity section,
`--append-system-prompt` adds a section after it (config `persona`).
"""

from __future__ import annotations

import re
from typing import Any, Optional

import typer

SYSTEM_PROMPT = typer.Option(None, "--system-prompt", help="Replace astro's identity section of the system prompt "
                             "(the tools, skills and memory sections stay).")
APPEND_SYSTEM_PROMPT = typer.Option(None, "--append-system-prompt", help="Add this text to the system prompt, "
                                    "after the identity section.")
DISALLOWED_TOOLS = typer.Option(None, "--disallowedTools", "--disallowed-tools", help="Tools that never run "
                                "(repeatable; commas or spaces separate several), as config permissions.deny.")
ATTACH = typer.Option(None, "--attach", "-a", help="A file for this question only (a PDF, a .tex, a table, "
                      "a log), read as the library reads it, not added to it (repeatable).")
SESSION_ID = typer.Option(None, "--session-id", help="The id of the new session (8-64 letters, digits or -, "
                          "e.g. a UUID), so a script knows it before the run.")
ADD_DIR = typer.Option(None, "--add-dir", help="Another folder the file tools may use (repeatable).")


def _names(values: Optional[list[str]]) -> list[str] | None:
    """`--disallowedTools "run_bash,file_write" --disallowedTools web` -> three names."""
    names = [name for value in values or [] for name in re.split(r"[,\s]+", value) if name]
    return names or None


def session_flags(base: dict[str, Any], system_prompt: Optional[str], append_system_prompt: Optional[str],
                  disallowed: Optional[list[str]], add_dir: Optional[list[str]]) -> dict[str, Any]:
    """The settings these options set (None: not given), added to `base` (model, api_base, ...)."""
    from pathlib import Path

    dirs = [str(Path(d).expanduser().resolve()) for d in add_dir or []] or None
    return {**base, "identity": system_prompt, "persona": append_system_prompt,
            "permissions.deny": _names(disallowed), "allowed_paths": dirs}


def new_session_id(value: Optional[str]) -> str | None:
    """--session-id, checked: 8-64 letters, digits or dashes (a UUID fits), else one sentence."""
    if value is None:
        return None
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9-]{7,63}", value):
        raise typer.BadParameter(f"{value!r} is not a session id: 8-64 letters, digits or -, e.g. a UUID",
                                 param_hint="'--session-id'")
    return value
