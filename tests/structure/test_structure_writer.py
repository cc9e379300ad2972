"""One file writer (astro_cli/security/writer.py): nothing else in astro_cli opens a file for
writing, renames, links or copies one.

Read from the code (ast), not the running program: `open(..., "w"/"a"/"x"/"+")` (also `Path.open`,
`os.fdopen`, `gzip.open`, any mode that may write), `os.open` with a write or create flag,
`Path.write_text/write_bytes/touch/rename`, `os.replace/rename/link/symlink`, `shutil` copies and moves,
and `tempfile` files, also when imported by name (`from os import replace`). Writes through a
Confinement (`ctx.confinement.write_text`) or the `writer` module are the writer itself. ALLOWED
lists the exceptions, each with its reason; an entry that no longer matches fails too, so the list
can only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import REPO_ROOT

PACKAGE = REPO_ROOT / "astro_cli"
WRITER = "security/writer.py"

# (module below astro_cli/, what it does) -> why it may. Only ever remove entries.
ALLOWED: dict[tuple[str, str], str] = {
    ("worker/server.py", "os.replace"): "the worker's socket, renamed in its private 0700 run folder (not a file)",
    ("worker/server.py", "os.open"): "the worker's lock file in its private run folder, held with flock",
    ("worker/lifecycle.py", "os.open"): "the worker's lock file in its private run folder, held with flock",
    ("worker/daemon.py", "os.replace"): "the worker's own log rotated in its private run folder",
    ("worker/daemon.py", "os.open"): "/dev/null as the daemon's stdin/stdout",
    ("worker/daemon.py", "logging.FileHandler"): "the worker's own log in its private run folder",
    ("debuglog.py", "logging.FileHandler"): "the --debug log in ASTRO_HOME (0600), appended and rotated by "
                                            "logging; no project can reach it",
    ("worker/process_state.py", "open"): "an inherited fd (the terminal), wrapped, not a file opened by name",
    ("store/locks.py", "os.open"): "a SQLite lock file beside astro.db, held with flock, never written",
    ("commands/memory_cmd.py", "tempfile.mkstemp"): "a private temporary file in the system temp folder for "
                                                     "the researcher's editor",
    ("commands/memory_cmd.py", "open"): "the fd mkstemp just made (above), filled for the editor",
    ("mcp/connection.py", "tempfile.TemporaryFile"): "an unnamed temporary file holding an MCP server's stderr",
}

WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
OS_MOVES = {"replace", "rename", "link", "symlink", "renames"}
SHUTIL = {"copy", "copy2", "copyfile", "copytree", "move", "copyfileobj"}
TEMPFILES = {"mkstemp", "NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile"}
PATH_WRITES = {"write_text", "write_bytes", "rename", "symlink_to", "hardlink_to"}
LOG_FILES = {"FileHandler", "RotatingFileHandler", "TimedRotatingFileHandler", "WatchedFileHandler"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "?"


def _writing_mode(node: ast.Call, position: int) -> bool:
    """Does the call's mode (positional `position` or mode=) allow writing? Any string in it counts."""
    mode: ast.AST | None = node.args[position] if len(node.args) > position else None
    for keyword in node.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
    if mode is None:
        return False
    texts = [n.value for n in ast.walk(mode) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return any(set(text) & set("wax+") for text in texts)


def _writes(node: ast.Call) -> str | None:
    """What kind of write this call is, or None."""
    func = node.func
    if isinstance(func, ast.Name) and func.id == "open":
        return "open" if _writing_mode(node, 1) else None
    if (func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")) in LOG_FILES:
        return "logging.FileHandler"  # appends to a path, following a link there
    if not isinstance(func, ast.Attribute):
        return None
    receiver, attr = _dotted(func.value), func.attr
    if receiver.split(".")[-1].lower() in ("confinement", "writer"):
        return None  # the one writer
    if receiver == "os":
        if attr == "open" and receiver != "Image":  # PIL reads
            flags = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "") for n in ast.walk(node)}
            return "os.open" if flags & WRITE_FLAGS else None
        if attr == "fdopen":
            return "open" if _writing_mode(node, 1) else None
        return f"os.{attr}" if attr in OS_MOVES else None
    if receiver == "shutil" and attr in SHUTIL:
        return f"shutil.{attr}"
    if receiver == "tempfile" and attr in TEMPFILES:
        return f"tempfile.{attr}"
    if attr == "open" and receiver != "Image":  # PIL reads
        return "open" if _writing_mode(node, 1 if receiver in ("gzip", "io", "bz2", "lzma") else 0) else None
    if attr in PATH_WRITES:
        return f"Path.{attr}"
    if attr == "touch" and not node.args:
        return "Path.touch"
    return None


def _imported(node: ast.ImportFrom) -> list[str]:
    """`from os import replace` and the like: a way round the calls above."""
    names = {"os": OS_MOVES, "shutil": SHUTIL, "tempfile": TEMPFILES}.get(node.module or "", set())
    return [f"{node.module}.{alias.name}" for alias in node.names if alias.name in names]


def violations() -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module == WRITER:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            kinds = _imported(node) if isinstance(node, ast.ImportFrom) else []
            if isinstance(node, ast.Call) and (kind := _writes(node)):
                kinds.append(kind)
            for kind in kinds:
                found.setdefault((module, kind), []).append(node.lineno)
    return found


def test_the_checker_sees_every_way_of_writing(tmp_path: Path) -> None:
    source = (
        "import os, shutil, tempfile, gzip\n"
        "open(p, 'w'); open(p, mode='ab'); p.open('x'); os.fdopen(fd, 'wb'); gzip.open(p, 'wb')\n"
        "p.write_text('x'); p.write_bytes(b''); os.replace(a, b); shutil.copyfile(a, b); tempfile.mkstemp()\n"
        "os.open(p, os.O_WRONLY | os.O_CREAT); p.open('ab' if done else 'wb'); p.touch(); RotatingFileHandler(p)\n"
        "open(p); p.open(); p.open('rb'); os.open(p, os.O_RDONLY); s.replace('a', 'b')\n"
        "ctx.confinement.write_text(p, 'x'); writer.write_bytes(place, b'')\n"
    )
    kinds = [k for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and (k := _writes(n))]
    assert sorted(kinds) == sorted(["open", "open", "open", "open", "open", "Path.write_text", "Path.write_bytes",
                                    "os.replace", "shutil.copyfile", "tempfile.mkstemp", "os.open", "open",
                                    "Path.touch", "logging.FileHandler"])
    imported = ast.parse("from os import replace, getcwd\nfrom shutil import copyfile, which\n").body
    assert [k for n in imported if isinstance(n, ast.ImportFrom) for k in _imported(n)] == ["os.replace",
                                                                                         "shutil.copyfile"]


def test_every_file_astro_writes_goes_through_the_one_writer() -> None:
    found = violations()
    unexplained = {f"{module}:{lines[0]} {kind}" for (module, kind), lines in found.items()
                   if (module, kind) not in ALLOWED}
    assert not unexplained, ("Write files through astro_cli/security/writer.py (no link followed, atomic, "
                             f"replacing needs permission), not directly: {sorted(unexplained)}")


def test_the_allow_list_only_shrinks() -> None:
    stale = set(ALLOWED) - set(violations())
    assert not stale, f"These no longer write outside the writer; remove them from ALLOWED: {sorted(stale)}"
