"""MEMORY.md: the one-line-per-memory map of the memory folder, kept small enough to read at a glance.

It is rewritten after every change astro makes (and when a hand edit is noticed), newest first and
held to 200 lines and 25 KB: the oldest entries leave first and a closing line says how many are left
out. Archived versions (`<slug>_vN.md`) are history, not memories, so they are not listed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.memory.format import Memory

INDEX_NAME = "MEMORY.md"
# Markdown files in memory/ that are not memories: the index, and a README explaining the folder.
NOT_MEMORIES = frozenset({INDEX_NAME, "README.md"})
MAX_LINES = 200
MAX_BYTES = 25_000

HEADER = """\
# Project memory

What astro remembers about this project, newest first, one line each: `- [type] slug: description`.
astro rewrites this index on every change; edit the memory files themselves (memory/<slug>.md).
Earlier versions are kept as <slug>_vN.md, forgotten memories in memory/archive/.
"""


def _footer(left_out: int) -> str:
    noun = "memory is" if left_out == 1 else "memories are"
    return (
        f"\n({left_out} older {noun} left out of this index to keep it under {MAX_LINES} lines and "
        f"{MAX_BYTES // 1000} KB; `astro memory list` shows them all.)\n"
    )


def render_index(memories: list[Memory]) -> str:
    """The index text for `memories` (versions are skipped), within MAX_LINES and MAX_BYTES."""
    listed = sorted((m for m in memories if not m.is_version), key=lambda m: (m.updated, m.slug), reverse=True)
    head = HEADER + ("\n" if listed else "\n(No memories yet.)\n")
    lines = [m.index_line() + "\n" for m in listed]
    # Grow the kept prefix while the whole file (with the footer it would need) stays in bounds.
    kept = 0
    size = len(head.encode())
    head_lines = head.count("\n")
    for line in lines:
        left_out = len(lines) - kept - 1
        footer = _footer(left_out) if left_out else ""
        total_bytes = size + len(line.encode()) + len(footer.encode())
        total_lines = head_lines + kept + 1 + footer.count("\n")
        if total_bytes > MAX_BYTES or total_lines > MAX_LINES:
            break
        size += len(line.encode())
        kept += 1
    left_out = len(lines) - kept
    return head + "".join(lines[:kept]) + (_footer(left_out) if left_out else "")


def write_index(path: Path, memories: list[Memory]) -> bool:
    """Rewrite MEMORY.md if its text would change; returns whether it was written."""
    from astro_cli.security.writer import write_file

    text = render_index(memories)
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    write_file(path, text)  # in the memory folder, which the store opened
    return True
