"""Passages of tool results stored before the typed records (stop 51): read from their frames.

A session saved by an earlier astro kept only the frame text of what rag_search and get_paper_content
showed (`<paper-text source=".." handle=".." page="..">...</paper-text>`), no `passages` in the result's
data. Resuming it must still let the claim check find those passages, so the ledger reads such a
result's frames here, once, when its data has no `passages` at all. New results never come this way.
Astro escapes frames in everything else it shows, so a file or a paper cannot forge one.
"""

from __future__ import annotations

import html
import re

from astro_cli.citations.handles import key_of
from astro_cli.research.records import PaperRef, Passage

OPEN = "<paper-text "
CLOSE = "</paper-text>"
ATTR = re.compile(r'(\w+)="([^"]*)"')


def stored_passages(content: str) -> list[Passage]:
    """The framed passages with a handle in a stored tool result's text."""
    if 'handle="' not in content:
        return []
    out: list[Passage] = []
    start = content.find(OPEN)
    while start >= 0:  # str.find, not one regex over the text: linear even when a frame is never closed
        head_end = content.find(">\n", start)
        end = content.find(CLOSE, head_end) if head_end >= 0 else -1
        if end < 0:
            break
        attrs = {k: html.unescape(v) for k, v in ATTR.findall(content[start + len(OPEN):head_end])}
        handle = attrs.get("handle")
        if handle and key_of(handle) is not None:
            page = attrs.get("page")
            out.append(Passage(handle, PaperRef(attrs.get("source", "")), html.unescape(content[head_end + 2:end]),
                               int(page) if page and page.isdigit() else None, attrs.get("section")))
        start = content.find(OPEN, end)
    return out
