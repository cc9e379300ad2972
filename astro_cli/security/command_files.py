"""Which workspace files a command runs, or reads as code: what a hook or MCP server depends on.

A hook or server the researcher trusted is only what it was if the files it runs are too. This
module reads a command as the shell (or, for an MCP server, exec) would start it and names every
workspace path whose content decides what runs, whether the file exists yet or not:

- the programs and scripts it names, relative to the folder it is in after `cd DIR &&`, with
  `$PWD`, `${ASTRO_PROJECT_DIR:-.}` (and Claude Code's `$CLAUDE_PROJECT_DIR`) expanded;
- the script of `sh`/`bash` (and the command of `bash -c "..."`), sourced files (`. ./env.sh`,
  `source x`), and, read in turn, the files those shell scripts run;
- `python -m pkg`: the package `pkg/` or module `pkg.py` in the folder Python imports from first;
  `python x.py`: the script;
- `make`: its makefiles (`GNUmakefile`, `makefile`, `Makefile`, or `-f`, in `-C DIR`), what they
  `include`, and the files their recipes run;
- any other word that names a workspace path (has a `/`, or is an existing file), except the arguments of
  programs that only read or write files as data (`tee -a hook.log`, `cat`, `mkdir`: DATA_ONLY).

What cannot be known (a path built from another variable, `cd` to one) is reported as unknown, so
the trust question can say so. Paths are never followed out of the workspace.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from astro_cli.security.shell_words import SHELLS, commands, is_assignment, is_shell_script, python_imports

PROJECT_VARIABLES = ("ASTRO_PROJECT_DIR", "CLAUDE_PROJECT_DIR")
SOURCE = frozenset({".", "source"})
CD = frozenset({"cd", "pushd"})
MAKE = frozenset({"make", "gmake"})
WRAPPERS = frozenset({"env", "exec", "nohup", "time", "command", "builtin", "nice", "stdbuf", "sudo", "then",
                      "do", "else", "!", "{"})
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
# Programs that only read or write their file arguments as data (they run none of them): a hook's
# `tee -a hook.log` or `cat notes.md` does not make its log or notes part of what the hook runs, so the
# log changing at each run does not withhold the hook. Not here on purpose: sed (its `e` command runs a
# shell), awk (system()), find (-exec), xargs, tar (--to-command), and anything unknown.
DATA_ONLY = frozenset({"tee", "cat", "echo", "printf", "touch", "mkdir", "rm", "rmdir", "cp", "mv", "ln", "ls",
                       "head", "tail", "wc", "sort", "uniq", "cut", "tr", "grep", "egrep", "fgrep", "basename",
                       "dirname", "realpath", "readlink", "stat", "du", "chmod", "date", "true", "false", "sleep",
                       "diff", "cmp", "md5sum", "sha1sum", "sha256sum", "gzip", "gunzip", "logger"})
RUNNERS = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "rye", "conda", "pixi"})
PYTHON = re.compile(r"(?:python|pypy)[0-9.]*$")
PYTHON_VALUE_OPTIONS = frozenset({"-W", "-X", "--check-hash-based-pycs"})
REDIRECTS = frozenset({">", ">>", "<", "<<", "<<<", ">&", "<&", ">|", "&>"})
_VARIABLE = re.compile(r"\$\{(\w+)(?::?[-=+?][^}]*)?\}|\$(\w+)")
MAX_DEPTH = 4  # scripts that run scripts that run scripts...
MAX_SCRIPT_BYTES = 1 << 20
MAX_PACKAGE_FILES = 500


@dataclass
class CommandFiles:
    """Resolved workspace paths (a folder stands for every file in it) and what could not be known."""

    files: set[Path] = field(default_factory=set)
    unknown: list[str] = field(default_factory=list)


def shell_files(command: str, root: Path) -> CommandFiles:
    """The workspace files a `/bin/sh -c command` run from `root` (a hook) depends on."""
    reader = _Reader(root.resolve())
    reader.shell(command, reader.root, 0)
    return reader.found


def argv_files(argv: list[str], root: Path, cwd: Path | None = None) -> CommandFiles:
    """The workspace files an exec'd command line (an MCP server) run from `cwd` depends on."""
    reader = _Reader(root.resolve())
    reader.simple(argv, (cwd or root).resolve(), 0)
    return reader.found


class _Reader:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.found = CommandFiles()
        self.read: set[Path] = set()
        self.looked_up: set[tuple[Path, str]] = set()  # (import folder, module name)

    # --- words -----------------------------------------------------------------------------------
    def expand(self, word: str, cwd: Path | None) -> str | None:
        """The word with the variables astro knows replaced; None when another variable is left."""

        def value(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            if name in PROJECT_VARIABLES:
                return str(self.root)
            if name == "PWD" and cwd is not None:
                return str(cwd)
            return "\0"

        expanded = _VARIABLE.sub(value, word)
        return None if "\0" in expanded or "`" in expanded or "$(" in expanded else expanded

    def path(self, word: str, cwd: Path | None) -> Path | None:
        """The resolved workspace path a word names, or None (outside, or the workspace itself)."""
        if word.startswith("~"):
            return None
        candidate = Path(word)
        if not candidate.is_absolute():
            if cwd is None:
                return None
            candidate = cwd / candidate
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError):
            return None
        return resolved if resolved.is_relative_to(self.root) and resolved != self.root else None

    def run_file(self, word: str, cwd: Path | None, depth: int, as_shell: bool) -> None:
        """A file the command executes: recorded, and read in turn when it is a shell script."""
        expanded = self.expand(word, cwd)
        if expanded is None or (cwd is None and not os.path.isabs(expanded)):
            self.found.unknown.append(word)
            return
        path = self.path(expanded, cwd)
        if path is None:
            return
        self.found.files.add(path)
        if as_shell or is_shell_script(path):
            self.script(path, cwd, depth)

    def script(self, path: Path, cwd: Path | None, depth: int) -> None:
        if depth >= MAX_DEPTH or path in self.read or not path.is_file():
            return
        self.read.add(path)
        try:
            with open(path, "rb") as handle:
                text = handle.read(MAX_SCRIPT_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return
        self.shell(text, cwd, depth + 1)

    # --- commands --------------------------------------------------------------------------------
    def shell(self, command: str, cwd: Path | None, depth: int) -> None:
        outer: list[Path | None] = []
        for item in commands(command):
            if item == "(":
                outer.append(cwd)
            elif item == ")":
                cwd = outer.pop() if outer else cwd
            elif isinstance(item, list):
                cwd = self.simple(item, cwd, depth)

    def simple(self, words: list[str], cwd: Path | None, depth: int) -> Path | None:
        """Record what one simple command runs; the folder the next one runs in (after `cd`)."""
        words = self._redirected(words, cwd)
        while words:
            if is_assignment(words[0]):
                words = words[1:]
            elif os.path.basename(words[0]) in WRAPPERS:
                words = words[1:]
                while words and words[0].startswith("-"):
                    words = words[1:]
            else:
                break
        if not words:
            return cwd
        program, args = words[0], words[1:]
        name = os.path.basename(program)
        if name in CD:
            return self.cd(args, cwd)
        if name in RUNNERS and args[:1] == ["run"]:  # `uv run python -m pkg`: what it runs, from here
            rest = args[1:]
            while rest and rest[0].startswith("-"):
                rest = rest[1:]
            self.simple(rest, cwd, depth)
        if "/" in program or "$" in program:
            self.run_file(program, cwd, depth, as_shell=False)
        if name in SOURCE:
            if args:
                self.run_file(args[0], cwd, depth, as_shell=True)
        elif name in SHELLS:
            self.shell_program(args, cwd, depth)
        elif PYTHON.match(name):
            self.python(args, cwd)
        elif name in MAKE:
            self.make(args, cwd, depth)
        if name not in DATA_ONLY:
            self.named(args, cwd)
        return cwd

    def _redirected(self, words: list[str], cwd: Path | None) -> list[str]:
        """The words without redirections (a file fed on stdin is recorded: `sh < x.sh` runs it)."""
        kept: list[str] = []
        skip = False
        for index, word in enumerate(words):
            if skip:
                skip = False
                continue
            if word in REDIRECTS or word.rstrip("0123456789") in REDIRECTS:
                skip = True
                if word == "<" and index + 1 < len(words):
                    self.named([words[index + 1]], cwd)
                    if words and os.path.basename(words[0]) in SHELLS:
                        self.run_file(words[index + 1], cwd, 0, as_shell=True)
                continue
            kept.append(word)
        return kept

    def named(self, args: list[str], cwd: Path | None) -> None:
        """Arguments that name a workspace path: a word with a `/`, or an existing file."""
        for word in args:
            expanded = self.expand(word, cwd)
            if not expanded or expanded.startswith("-"):
                continue
            path = self.path(expanded, cwd)
            if path is not None and ("/" in expanded or path.is_file()):
                self.found.files.add(path)

    def cd(self, args: list[str], cwd: Path | None) -> Path | None:
        target = next((a for a in args if not a.startswith("-")), None)
        if target is None:
            return None  # $HOME: outside the workspace, as far as we can tell
        expanded = self.expand(target, cwd)
        if expanded is None or (cwd is None and not os.path.isabs(expanded)):
            self.found.unknown.append(f"cd {target}")
            return None
        folder = Path(expanded) if os.path.isabs(expanded) else (cwd or self.root) / expanded
        try:
            return folder.resolve()
        except (OSError, RuntimeError):
            return None

    def shell_program(self, args: list[str], cwd: Path | None, depth: int) -> None:
        for index, arg in enumerate(args):
            if arg == "-c" or (arg.startswith("-") and not arg.startswith("--") and arg.endswith("c")):
                if index + 1 < len(args):
                    self.shell(args[index + 1], cwd, depth + 1)
                return
            if arg in ("-o", "-O", "+o", "+O"):
                continue
            if not arg.startswith(("-", "+")) and args[index - 1:index] not in (["-o"], ["-O"], ["+o"], ["+O"]):
                self.run_file(arg, cwd, depth, as_shell=True)
                return

    def python(self, args: list[str], cwd: Path | None) -> None:
        """The script, `-m`'s module or `-c`'s imports, looked up first in the current folder (unless -I/-P)."""
        isolated = False
        index = 0
        while index < len(args):
            arg = args[index]
            if arg in PYTHON_VALUE_OPTIONS:
                index += 2
                continue
            if not arg.startswith("-") or arg == "-":
                if arg != "-":
                    self.run_file(arg, cwd, 0, as_shell=False)
                    path = self.path(self.expand(arg, cwd) or "", cwd) if cwd is not None else None
                    if path is not None and path.is_file():
                        self.imports(python_imports(path.read_bytes()), path.parent)
                return
            flags = "" if arg.startswith("--") else arg[1:]
            for position, flag in enumerate(flags):
                isolated = isolated or flag in "IP"
                rest = flags[position + 1:] or (args[index + 1] if index + 1 < len(args) else "")
                if flag == "m":
                    if not isolated:
                        self.imports({rest.split(".")[0]}, cwd)
                    return
                if flag == "c":
                    if not isolated:
                        self.imports(python_imports(rest.encode()), cwd)
                    return
                if flag in "WX":
                    index += 0 if flags[position + 1:] else 1
                    break
            index += 1

    def imports(self, names: set[str], folder: Path | None) -> None:
        """Top-level modules Python would import from `folder` first: `name/` and `name.py`, existing
        or not; a package found there is read for its own imports from the same folder."""
        if folder is None:
            self.found.unknown.extend(f"import {name}" for name in sorted(names))
            return
        for name in sorted(names):
            if not name.isidentifier() or (folder, name) in self.looked_up:
                continue
            self.looked_up.add((folder, name))
            for candidate in (folder / name, folder / f"{name}.py"):
                path = self.path(str(candidate), folder)
                if path is None or path in self.found.files:
                    continue
                self.found.files.add(path)
                sources = sorted(path.rglob("*.py"))[:MAX_PACKAGE_FILES] if path.is_dir() else [path]
                for source in sources:
                    if source.is_file() and source not in self.read:
                        self.read.add(source)
                        try:
                            self.imports(python_imports(source.read_bytes()), folder)
                        except OSError:
                            continue

    def make(self, args: list[str], cwd: Path | None, depth: int) -> None:
        folder, files = cwd, []
        index = 0
        while index < len(args):
            arg = args[index]
            value = args[index + 1] if index + 1 < len(args) else ""
            if arg in ("-C", "--directory") or arg.startswith(("-C", "--directory=")):
                raw = value if arg in ("-C", "--directory") else arg.split("=", 1)[1] if "=" in arg else arg[2:]
                folder = self.cd([raw], folder)
                index += 2 if arg in ("-C", "--directory") else 1
                continue
            if arg in ("-f", "--file", "--makefile") or arg.startswith(("--file=", "--makefile=")):
                files.append(value if "=" not in arg else arg.split("=", 1)[1])
                index += 2 if "=" not in arg else 1
                continue
            index += 1
        if folder is None:
            self.found.unknown.append("make (in an unknown folder)")
            return
        for raw in files or list(MAKEFILES):
            expanded = self.expand(raw, folder)
            path = self.path(expanded, folder) if expanded is not None else None
            if expanded is None:
                self.found.unknown.append(raw)
            elif path is not None:
                self.found.files.add(path)
                self.makefile(path, folder, depth)

    def makefile(self, path: Path, folder: Path, depth: int) -> None:
        """A makefile's `include`s and the files its recipes run (recipes run from the make folder)."""
        if depth >= MAX_DEPTH or path in self.read or not path.is_file():
            return
        self.read.add(path)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")[:MAX_SCRIPT_BYTES]
        except OSError:
            return
        for line in text.splitlines():
            if line.startswith("\t"):
                self.shell(line.lstrip("\t@-+"), folder, depth + 1)
            elif re.match(r"\s*-?s?include\s", line):
                for word in line.split()[1:]:
                    included = self.path(word, folder)
                    if included is not None:
                        self.found.files.add(included)
                        self.makefile(included, folder, depth + 1)
