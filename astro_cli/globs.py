"""Glob patterns, one way for everyone: the glob_files and grep_files tools and a conditional
skill's `paths:` match the same paths.

Glob rules (gitignore-like, as Claude Code skills expect): `*` and `?` stay inside one path
segment, `**` crosses segments, `[abc]` is a class. A pattern without a `/` matches the file's
name at any depth (`*.fits` matches `data/raw/m31.fits`); a pattern with a `/` matches the path
relative to the workspace (`data/**/*.fits`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=512)
def compile_glob(pattern: str) -> re.Pattern[str]:
    out, i, n = [], 0, len(pattern)
    while i < n:
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out.append(re.escape(char))
            else:
                inner = pattern[i + 1 : end].replace("\\", "\\\\")
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                out.append(f"[{inner}]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    try:
        return re.compile("".join(out) + r"\Z")
    except re.error:  # a class like [z-a]: match it literally rather than fail
        return re.compile(re.escape(pattern) + r"\Z")


def matches(patterns: tuple[str, ...] | list[str], path: Path, root: Path) -> bool:
    """Does `path` (absolute) match any pattern, relative to the workspace `root`?"""
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = path.as_posix()
    name = path.name
    for pattern in patterns:
        pattern = pattern.strip().removeprefix("./")
        if not pattern:
            continue
        target = rel if "/" in pattern.rstrip("/") else name
        if pattern.endswith("/"):  # a folder pattern: anything inside it
            pattern += "**"
            target = rel
        if compile_glob(pattern).match(target):
            return True
    return False
