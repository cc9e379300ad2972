"""YAML frontmatter, parsed one way for every Markdown file astro reads (skills, memories, agents, notes).

The rules are the most lenient correct ones the three former parsers had between them: a byte-order
mark and CRLF line ends are accepted, the fences may carry trailing spaces, the block may close with
`---` or YAML's own document end `...`, and an empty block is an empty mapping. Anything else is a
FrontmatterError whose message is one sentence; callers prefix it with the file it came from.
"""

from __future__ import annotations

from typing import Any

import yaml

from astro_cli.safe_yaml import load_yaml

_CLOSERS = ("---", "...")


class FrontmatterError(ValueError):
    """A file whose frontmatter cannot be read; the message is the reason, in one sentence."""


def split_frontmatter(text: str) -> tuple[str, str]:
    """(frontmatter YAML text, body) of a Markdown file that must open with a `---` line."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError("it does not start with a '---' frontmatter block")
    for index in range(1, len(lines)):
        if lines[index].strip() in _CLOSERS:
            front = "".join(lines[1:index]).replace("\r\n", "\n")
            return front, "".join(lines[index + 1 :]).lstrip("\r\n")
    raise FrontmatterError("its frontmatter block is not closed (no second '---' line)")


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(mapping with text keys, body); the YAML is loaded safely and never raises anything but FrontmatterError."""
    front, body = split_frontmatter(text)
    try:
        data = load_yaml(front)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise FrontmatterError(f"its YAML frontmatter does not parse{where} ({problem})") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # odd scalars libyaml rejects late
        raise FrontmatterError(f"its YAML frontmatter holds a value YAML cannot read ({exc})") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("its frontmatter is not a set of 'key: value' fields")
    return {str(key): value for key, value in data.items()}, body
