"""astro's own prompt tags, and the one function that keeps text from files from forming them.

The model reads `<system-reminder>`, `<project-memory-context>`, `<paper-text>`, `<note-text>`,
`<command-name>`, `<environment>`, `<attached-file>` and `<shell-output>` as structure. Text that astro did not write itself (files,
papers, notes, skills, memories, tool results, hook output) passes through `escape_tags` before it
is placed in a prompt, so it can never open or close one of them: the `<` of any spelling of these
tags (any case, `_` for `-`, spaces, full-width brackets) becomes `&lt;`. A new tag is added to
PROMPT_TAGS; a test fails when a closing tag appears in the source that is not listed here.
"""

from __future__ import annotations

import re

PROMPT_TAGS = (
    "system-reminder",
    "project-memory-context",
    "paper-text",
    "note-text",
    "command-name",
    "environment",
    "attached-file",
    "shell-output",
)

_LESS_THAN = "<\uff1c\ufe64"  # ASCII, full-width and small forms


def _tag_pattern(tags: tuple[str, ...]) -> re.Pattern[str]:
    names = "|".join(r"[-_\s]*".join(re.escape(part) for part in tag.split("-")) for tag in tags)
    return re.compile(rf"[{_LESS_THAN}](\s*/?\s*(?:{names}))(?=[\s>/\uff1e]|$)", re.IGNORECASE)


_PATTERN = _tag_pattern(PROMPT_TAGS)


def escape_tags(text: str) -> str:
    """`text` with every opening or closing astro tag defused (`<system-reminder>` -> `&lt;system-reminder>`)."""
    if not text or not any(char in text for char in _LESS_THAN):
        return text
    return _PATTERN.sub(lambda match: "&lt;" + match.group(1), text)


def prompt_tag_in(text: str) -> str | None:
    """The first of astro's prompt tags that `text` opens or closes (any spelling), as listed in
    PROMPT_TAGS; None when it has none. Text holding one is astro's own format, not a reply's words."""
    match = _PATTERN.search(text) if text else None
    if match is None:
        return None
    said = re.sub(r"[-_\s/]", "", match.group(1)).lower()
    return next((tag for tag in PROMPT_TAGS if tag.replace("-", "") == said), said)
