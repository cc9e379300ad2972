"""General file tools: read_file, grep_files, glob_files (read-only) and file_write, file_edit.

All of them stay inside the workspace (plus config `allowed_paths`): every path is resolved with
its links, what lies outside is skipped (listing, searching) or refused (reading, writing), and
writes never touch astro's own state (security/paths.py). Writes need permission and are atomic.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from astro_cli.tools.base import ToolError, ToolResult
from astro_cli.tools.bounded_regex import compile_bounded, search_bounded
from astro_cli.tools.context import ToolContext
from astro_cli.tools.fits_summary import is_fits, summarise_fits
from astro_cli.tools.table_summary import summarise
from astro_cli.tools.typed import as_tool, tool

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.security.paths import Confinement

SKIP_DIRS = {".git", ".astro", ".venv", "__pycache__", "node_modules", ".mypy_cache", ".ruff_cache"}
MAX_MATCHES = 200


def _rel(ctx: ToolContext, path: Path) -> str:
    try:
        return str(path.relative_to(ctx.workspace_root))
    except ValueError:
        return str(path)


@tool(key_argument="path")
def read_file(ctx: ToolContext, path: str, offset: int | None = None, limit: int | None = None) -> ToolResult:
    """Read a text file of the workspace with line numbers. Use offset and limit for long files;
    a folder path lists its entries.

    Args:
        path: Path relative to the workspace (or absolute inside it).
        offset: First line to read (1-based).
        limit: Number of lines to read (default 2000).
    """
    return _read(ctx, ctx.resolve_path(path, must_exist=True), max(offset or 1, 1), limit or 2000)


def _read(ctx: ToolContext, path: Path, offset: int, limit: int) -> ToolResult:
    if path.is_dir():
        entries = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
        return ToolResult("\n".join(entries) or "(empty folder)")
    ctx.touched(path)
    if is_fits(path):
        return ToolResult(summarise_fits(path, _rel(ctx, path)))
    raw = path.read_bytes()
    if b"\x00" in raw[:4096]:
        raise ToolError(f"{_rel(ctx, path)} is a binary file; use a tool made for its format (e.g. parse_paper for PDFs).")
    lines = raw.decode("utf-8", errors="replace").splitlines()
    chunk = lines[offset - 1 : offset - 1 + limit]
    text = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(chunk, start=offset))
    budget = ctx.settings.typed["read.max_chars"]
    notes = []
    if len(text) > budget:
        text = text[:budget]
        notes.append(f"[cut at {budget} characters]")
    partial = bool(notes) or offset > 1
    if offset - 1 + limit < len(lines):
        notes.append(f"[{len(lines)} lines in all; continue with offset={offset + limit}]")
        partial = True
    summary = summarise(raw.decode("utf-8", errors="replace"), path.suffix, partial)
    if summary:
        notes.append(summary)
    return ToolResult("\n".join([text, *notes]) if notes else text)


def _walk(root: Path) -> Iterator[Path]:
    """Files under `root`, sorted; folder links are not followed (a link out of the workspace leads nowhere)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            yield Path(dirpath) / name


@tool(key_argument="pattern")
def grep_files(ctx: ToolContext, pattern: str, path: str | None = None, glob: str | None = None,
               case_sensitive: bool = False) -> ToolResult:
    """Search the workspace's text files for a regular expression. Returns file:line: text for each match.

    Args:
        pattern: Python regular expression.
        path: File or folder to search (default: the workspace).
        glob: Only files whose path matches this glob, e.g. '*.tex'.
        case_sensitive: Default false.
    """
    budget = float(ctx.settings.typed["grep.timeout"])
    regex = compile_bounded(pattern, case_sensitive=case_sensitive)
    root = ctx.resolve_path(path or ".", must_exist=True)
    files = [root] if root.is_file() else _walk(root)
    confinement = ctx.confinement
    hits: list[str] = []
    deadline = time.monotonic() + budget
    for file in files:
        if glob and not file.match(glob):
            continue
        if not confinement.contains(file.resolve()):
            continue  # a link to a file outside the workspace
        before = len(hits)
        try:
            with file.open(encoding="utf-8", errors="strict") as handle:
                for number, line in enumerate(handle, start=1):
                    if search_bounded(regex, line, deadline, pattern, budget):
                        hits.append(f"{_rel(ctx, file)}:{number}: {line.rstrip()[:300]}")
                        if len(hits) >= MAX_MATCHES:
                            break
        except (UnicodeDecodeError, OSError):
            continue
        if len(hits) > before:
            ctx.touched(file)
        if len(hits) >= MAX_MATCHES:
            hits.append(f"[stopped at {MAX_MATCHES} matches; narrow the pattern or the path]")
            break
    return ToolResult("\n".join(hits) if hits else f"No line matches '{pattern}'.")


def _split_glob(pattern: str) -> tuple[list[str], list[str]]:
    """The literal folders a pattern starts with, and the rest (from the first wildcard on)."""
    parts = [part for part in pattern.replace("\\", "/").split("/") if part not in ("", ".")]
    literal: list[str] = []
    for part in parts:
        if any(char in part for char in "*?["):
            break
        literal.append(part)
    return literal, parts[len(literal):]


def _similar(ctx: ToolContext, missing: Path) -> str:
    """Names beside a missing path that start like it ("README" -> README.md), as a hint."""
    folder, stem = missing.parent, missing.name.lower()
    if not stem or not folder.is_dir() or not ctx.confinement.contains(folder.resolve()):
        return ""
    near = sorted(p for p in folder.iterdir() if p.name.lower().startswith(stem) and p.name not in SKIP_DIRS)[:5]
    return f" Did you mean: {', '.join(_rel(ctx, p) for p in near)}?" if near else ""


@tool(key_argument="pattern")
def glob_files(ctx: ToolContext, pattern: str, path: str | None = None) -> ToolResult:
    """List workspace paths that match a glob pattern. Examples: '**/*.fits', 'papers/*.pdf'.

    Args:
        pattern: Glob pattern, relative to path.
        path: Folder to search from (default: the workspace).
    """
    pattern = pattern.strip()
    if not pattern:
        raise ToolError("No glob pattern was given (e.g. '**/*.tex').")
    root_text = str(ctx.resolve_path(".")) + "/"
    if pattern.startswith(root_text):  # the workspace's own absolute path: the same pattern, relative
        pattern = pattern[len(root_text):] or "*"
    elif pattern.startswith("/"):
        pattern = pattern.lstrip("/") or "*"  # "/*.md": small models' way of saying the workspace's top folder
    if pattern.startswith(("/", "~")):
        raise ToolError("Give the pattern relative to the workspace (or to 'path'), e.g. 'papers/*.pdf'.")
    root = ctx.resolve_path(path or ".", must_exist=True)
    literal, rest = _split_glob(pattern)
    root = _pattern_root(ctx, root, literal)
    start = root.joinpath(*literal)
    confinement = ctx.confinement
    if not confinement.contains(start.resolve()):
        return ToolResult(f"No path matches '{pattern}': paths outside the workspace are not listed.")
    hidden = any(part in SKIP_DIRS for part in literal)
    if not rest and start.is_dir() and not hidden:
        rest = ["*"]  # a folder named without a wildcard: what is in it
    if not rest:
        if start.exists() and not hidden:
            return ToolResult(_rel(ctx, start))
        return ToolResult(f"No path matches '{pattern}'." + _similar(ctx, start))
    found = sorted(_glob_walk(start.resolve(), start, rest, confinement))
    shown = [_rel(ctx, item) + ("/" if is_dir else "") for item, is_dir in found[:500]]
    for item, _ in found[:500]:
        ctx.touched(item)
    if len(found) > 500:
        shown.append("[stopped at 500 paths]")
    return ToolResult("\n".join(shown) if shown else f"No path matches '{pattern}'.")


def _pattern_root(ctx: ToolContext, root: Path, literal: list[str]) -> Path:
    """The folder the pattern is read from: the workspace when the pattern already starts with `path`
    ('scripts/*.py' with path 'scripts', a small model's habit) and `path` holds no folder of that name."""
    workspace = ctx.resolve_path(".")
    try:
        own = root.relative_to(workspace).parts
    except ValueError:
        return root
    repeats = bool(own) and tuple(literal[:len(own)]) == own
    return workspace if repeats and not root.joinpath(*own).exists() else root


def _glob_walk(real_start: Path, shown_start: Path, rest: list[str], confinement: Confinement) -> Iterator[tuple[Path, bool]]:
    """(path, is_dir) under `shown_start` matching `rest`; links are listed only when they stay inside."""
    from astro_cli.globs import compile_glob

    regex = compile_glob("/".join(rest))
    max_depth = None if any("**" in part for part in rest) else len(rest)
    for dirpath, dirnames, filenames in os.walk(real_start):
        relative = Path(dirpath).relative_to(real_start)
        depth = len(relative.parts) + 1
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name, is_dir in [*((d, True) for d in dirnames), *((f, False) for f in sorted(filenames))]:
            rel = (relative / name).as_posix()
            if regex.match(rel):
                shown = shown_start / relative / name
                if confinement.contains(shown.resolve()):
                    yield shown, is_dir or shown.is_dir()
        if max_depth is not None and depth >= max_depth:
            dirnames[:] = []


@tool(read_only=False, needs_permission=True, key_argument="path")
def file_write(ctx: ToolContext, path: str, content: str) -> ToolResult:
    """Create or replace a file in the workspace with the given content. Needs the user's permission.

    Args:
        path: Path relative to the workspace (or absolute inside it).
    """
    target = ctx.writable_path(path)
    existed = target.exists()
    ctx.confinement.write_text(target, content)
    ctx.touched(target)
    verb = "Replaced" if existed else "Created"
    return ToolResult(f"{verb} {_rel(ctx, target)} ({len(content.encode())} bytes).")


@tool(read_only=False, needs_permission=True, key_argument="path")
def file_edit(ctx: ToolContext, path: str, old_string: str, new_string: str, replace_all: bool = False) -> ToolResult:
    """Replace an exact piece of text in a workspace file. Needs the user's permission.

    Args:
        path: Path relative to the workspace (or absolute inside it).
        old_string: Text to find, exactly as in the file.
        new_string: Replacement text.
        replace_all: Replace every occurrence (default false).
    """
    target = ctx.writable_path(path)
    if not target.is_file():
        raise ToolError(f"'{path}' does not exist; use file_write to create it.")
    if not old_string:
        raise ToolError("'old_string' must not be empty: give the text to replace.")
    text = target.read_text(encoding="utf-8")
    count = text.count(old_string)
    if count == 0:
        raise ToolError(f"'old_string' was not found in {_rel(ctx, target)}; read the file and copy the text exactly.")
    if count > 1 and not replace_all:
        raise ToolError(f"'old_string' occurs {count} times in {_rel(ctx, target)}; add context or set replace_all.")
    edited = text.replace(old_string, new_string) if replace_all else text.replace(old_string, new_string, 1)
    ctx.confinement.write_text(target, edited)
    ctx.touched(target)
    return ToolResult(f"Edited {_rel(ctx, target)} ({count if replace_all else 1} replacement(s)).")


def install(app: AppContext) -> None:
    for function in (read_file, grep_files, glob_files, file_write, file_edit):
        app.tools.register(as_tool(function))
