"""Text from the model, files or commands, made safe to print: no control sequence reaches the terminal.

A tool argument such as `touch X # \\x1b[2K\\x1b[1G  command: ls papers/` would erase its own line
and show only the harmless tail. Every control character (C0 and C1, DEL), and the invisible
characters that reorder or hide text (bidirectional overrides, zero-width spaces), is shown as
its escape (`\\x1b`, `\\u202e`) instead. Newlines stay (and tabs, unless asked), so multi-line
commands still read as lines.
"""

from __future__ import annotations

import re

_HIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_HIDDEN_WITH_TABS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_NAMED = {"\r": "\\r", "\t": "\\t", "\x08": "\\b", "\x1b": "\\x1b", "\x00": "\\0"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, tabs: bool = False) -> str:
    """`text` with every control or invisible character replaced by its escape; newlines kept."""
    return (_HIDDEN_WITH_TABS if tabs else _HIDDEN).sub(_escape, str(text))


def clipped(text: str, limit: int) -> str:
    """`text` up to `limit` characters, then an explicit count of what is not shown."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… {len(text) - limit:,} more characters not shown"


def one_line(text: str, limit: int) -> str:
    """`text` on one line within `limit` characters, control characters shown as escapes; a longer
    text is cut at a word with an ellipsis (mid-word only when one word is that long: a path, a URL)."""
    flat = " ".join(visible(str(text), tabs=True).split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"
