"""A typed tool's docstring read as the model's text: the description, and each argument's line.

Google style, as `@tool` (tools/typed.py) documents it: the text before `Args:` is the description
(lines of a paragraph joined), each `name: text` under `Args:` describes that argument, continuation
lines indented further; a `Returns:` or `Raises:` section ends the arguments.
"""

from __future__ import annotations

import re


def split_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The description (lines of a paragraph joined) and the `Args:` section's text per argument."""
    lines = doc.splitlines()
    head, args_lines = lines, []
    for index, line in enumerate(lines):
        if line.strip() in ("Args:", "Arguments:", "Parameters:"):
            head, args_lines = lines[:index], lines[index + 1:]
            break
    paragraphs = " ".join(line.strip() or "\n\n" for line in head).split("\n\n")
    description = "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())
    described: dict[str, str] = {}
    current = None
    indent = None
    for line in args_lines:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        indent = depth if indent is None else indent
        if depth < indent:
            break  # the section ended (Returns:, Raises:, ...)
        match = re.match(r"\s*(\w+)(\s*\([^)]*\))?:\s*(.*)", line) if depth == indent else None
        if match:
            current = match.group(1)
            described[current] = match.group(3).strip()
        elif current is not None:
            described[current] = f"{described[current]} {line.strip()}".strip()
    return description, described
