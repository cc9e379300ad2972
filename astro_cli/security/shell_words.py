"""How the shell splits a command into simple commands, and what a script file looks like.

The reading astro needs to know which files a hook or MCP server runs (command_files.py): words
as `/bin/sh` would split them (quotes, `&&`, `;`, `|`, newlines, subshell parentheses, comments),
the top-level modules a Python source imports, and whether a file is a shell script.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"})
SEPARATORS = frozenset({"&&", "||", ";", ";;", "|", "&", "(", ")", "|&", "\n"})


def tokens(command: str) -> list[str]:
    """Shell words; a newline outside quotes is a token of its own, comments are left out."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>\n")
    lexer.whitespace_split = True
    lexer.whitespace = " \t\r"
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote: the shell would refuse it too; judge the plain words
        tokens = [token for line in command.splitlines() for token in [*line.split(), "\n"]]
    kept: list[str] = []
    comment = False
    for token in tokens:
        comment = (comment or token.startswith("#")) and "\n" not in token
        if not comment:
            kept.append(token)
    return kept


def commands(command: str) -> list[list[str] | str]:
    """Simple commands, split where the shell would run the next one; "(" and ")" kept (a subshell's
    `cd` ends with it)."""
    out: list[list[str] | str] = [[]]
    for token in tokens(command):
        if token in ("(", ")"):
            out += [token, []]
        elif token in SEPARATORS or (token and set(token) <= set(";&|()\n")):
            out.append([])
        else:
            last = out[-1]
            if isinstance(last, list):
                last.append(token)
    return [item for item in out if item]


def is_assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and name.isidentifier()


_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b|import[ \t]+([^#;\n]+))", re.MULTILINE)


def python_imports(source: bytes) -> set[str]:
    """The top-level names a Python source imports absolutely (`import a.b, c`, `from a import b`).

    A pattern, not a parse: ast takes seconds on a package of hundreds of files, and a line that only
    looks like an import (in a string) merely protects one more name."""
    names: set[str] = set()
    for match in _IMPORT.finditer(source):
        if match.group(1):
            names.add(match.group(1).decode())
        else:
            for part in match.group(2).decode("utf-8", errors="replace").strip("()\\ \t").split(","):
                name = part.strip().split(" ")[0].split(".")[0]
                if name.isidentifier():
                    names.add(name)
    return names


def is_shell_script(path: Path) -> bool:
    """A file without a #! line, or with one naming a shell: read as a script of commands."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(128)
    except OSError:
        return False
    if not head.startswith(b"#!"):
        return path.suffix in (".sh", ".bash", "")
    first = head.split(b"\n", 1)[0].decode("utf-8", errors="replace").split()
    return any(os.path.basename(part) in SHELLS for part in first[:2])
