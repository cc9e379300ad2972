"""Text from the model, files or commands, made safe to print: no control sequence reaches the terminal.

A tool argument such as `touch X # \\x1b[2K\\x1b[1G  command: ls papers/` would erase its own line
and show only the harmless tail; a paper title can carry an OSC 52 clipboard write or a screen
clear. Every control character (C0 and C1, DEL), and every invisible character that reorders or
hides text (Unicode's format characters: bidirectional marks and overrides such as U+061C,
zero-width spaces, the soft hyphen U+00AD, U+180E, the interlinear annotations U+FFF9-FFFB, the
tag characters U+E0000-E007F, line and paragraph separators), is shown as its escape (`\\x1b`,
`\\u202e`, `\\U000e0041`) instead. Newlines stay (and tabs, unless asked), so multi-line commands
still read as lines.

This is the one escaping function for text from outside (papers, sessions, the model, commands).
Where rich renders it, `rich_text` also keeps rich from reading `[link=...]` or `[bold]` in it.
"""

from __future__ import annotations

import re
from typing import Any

# Unicode's format characters (category Cf) and the line/paragraph separators, as of Unicode 15.
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f"
)
_HIDDEN = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_FORMAT}]")
_HIDDEN_WITH_TABS = re.compile(f"[\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f{_FORMAT}]")
_NAMED = {"\r": "\\r", "\t": "\\t", "\x08": "\\b", "\x1b": "\\x1b", "\x00": "\\0"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str, tabs: bool = False) -> str:
    """`text` with every control or invisible character replaced by its escape; newlines kept."""
    return (_HIDDEN_WITH_TABS if tabs else _HIDDEN).sub(_escape, str(text))


def rich_text(text: str, tabs: bool = False, style: str = "") -> Any:
    """`visible(text)` as a rich Text: printed as it is, never read as markup (`[link=...]`)."""
    from rich.text import Text

    return Text(visible(str(text), tabs=tabs), style=style)


def markup_safe(text: object) -> str:
    """`visible(text)` for a place inside astro's own rich markup: its `[` can open no tag of rich's."""
    from rich.markup import escape

    return escape(visible(str(text)))


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


def name_shown(text: str, limit: int = 60) -> str:
    """A name (a tool argument's key) on one line: newlines shown as `\\n` too, cut at `limit` with a
    count. A key made of 200 newlines and `command` must not pass for the `command` line."""
    flat = visible(str(text), tabs=True).replace("\n", "\\n")
    if len(flat) <= limit:
        return flat
    return f"{flat[:limit]}… ({len(flat):,} characters)"


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON spells a character beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def visible_json(value: Any, **options: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, ...)` with every control or invisible character written as
    its JSON escape (`\\u009b`, `\\u202e`): the same JSON value, but printing it cannot drive the
    terminal. (json.dumps escapes C0 controls itself, not C1 ones such as CSI U+009B nor format characters.)"""
    import json

    return _HIDDEN_WITH_TABS.sub(_json_escape, json.dumps(value, ensure_ascii=False, **options))
