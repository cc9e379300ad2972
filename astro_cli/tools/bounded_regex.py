"""Regular expressions from the model, searched with a deadline.

A pattern such as `(a+)+$` backtracks for minutes on a long line. The `regex` package (the same
syntax as `re`) takes a timeout per search; grep gives each search what is left of its budget, so
one search over the whole workspace never takes longer than `grep.timeout`.
"""

from __future__ import annotations

import time
from typing import Any

import regex

from astro_cli.tools.base import ToolError


def compile_bounded(pattern: str, case_sensitive: bool = False) -> Any:
    try:
        return regex.compile(pattern, 0 if case_sensitive else regex.IGNORECASE)
    except (regex.error, ValueError, TypeError) as exc:
        raise ToolError(f"'{pattern}' is not a valid regular expression ({exc}).") from None


def search_bounded(compiled: Any, text: str, deadline: float, pattern: str, budget: float) -> bool:
    """Does `compiled` match in `text`? ToolError once the search's deadline has passed."""
    left = deadline - time.monotonic()
    try:
        if left <= 0:
            raise TimeoutError
        return compiled.search(text, timeout=left) is not None
    except TimeoutError:
        raise ToolError(
            f"The pattern took too long: the search stopped after {budget:g} s ('{pattern}' backtracks "
            "heavily or the folder is large). Use a simpler pattern or narrow the path."
        ) from None
