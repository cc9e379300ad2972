"""Help and usage errors in plain words: `--model MODEL` not `<str>`, whole summaries, no pydantic.

typer (0.29) prints metavars as Python types (`<str>`, `<list[str]>`), cuts each command's summary
at ~45 characters with `...`, and words a bad value as pydantic does ("Value error, 'yaml' is not one
of", "Input should be a valid integer, unable to parse string as an integer"). `plain_help` fixes
the first two on the built click command; `plain_errors` rewords the third.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

# Metavars by the parameter's name; others are its name in capitals (`--model MODEL`, `slug SLUG`).
NAMED = {"session_id": "ID", "paper_id": "ID", "resume": "ID", "api_base": "URL", "output": "PATH",
         "path": "PATH", "k": "N", "limit": "N", "max_steps": "N", "rows": "N", "question": "QUESTION"}


def _metavar(param: Any) -> str | None:
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    name = param.name or ""
    if name in NAMED:
        return NAMED[name]
    if name.endswith("_id") or name == "id":
        return "ID"
    return name.upper().replace("_", "-") or None


def plain_help(command: Any) -> None:
    """Give every option and argument a word for its value, and every sub-command its whole summary."""
    for param in getattr(command, "params", []):
        if param.metavar is None:
            param.metavar = _metavar(param)
        if param.param_type_name == "argument":  # "QUESTION", not "question <str>", in the list of arguments
            setattr(param, "display_type_rich", lambda ctx: None)  # noqa: B010 - an instance override
    for sub in getattr(command, "commands", {}).values():
        if not sub.short_help and sub.help:
            sub.short_help = sub.help.strip().split("\n\n")[0].replace("\n", " ")
        plain_help(sub)


def _plain_message(exc: Any) -> str:
    errors = exc.errors()
    if not errors:
        return str(exc)
    first = errors[0]
    given = first.get("input")
    kind = first.get("type", "")
    if kind == "int_parsing":
        return f"{given!r} is not a whole number"
    if kind in ("float_parsing", "float_type"):
        return f"{given!r} is not a number"
    if kind == "bool_parsing":
        return f"{given!r} is not true or false"
    text = str(first.get("msg") or exc).removeprefix("Value error, ")
    return text.encode("unicode_escape").decode("ascii") if any(ord(c) < 32 for c in text) else text


def plain_errors() -> None:
    """Word typer's bad-value errors as sentences (it builds them from pydantic's validation errors)."""
    try:
        from typer import _coercion
    except ImportError:  # another typer: its own wording stays
        log.debug("typer has no _coercion module; its error wording is kept")
        return
    if hasattr(_coercion, "get_error_msg"):
        _coercion.get_error_msg = _plain_message
