"""`astro "question"` and `astro -p "question"`: the habits researchers bring from `claude` and `llm`.

The command line is read once, before typer, without importing anything heavy: the first word that
is not an option is either a sub-command (`astro sessions`) or a question. A question starts the
REPL with it as the first turn; with `-p/--print` it is `astro run` (one answer, then exit).
Options may come anywhere, before or after the question (`astro -p "q" --output-format json`), as
with `claude` and `llm`: a word is an option when it starts with `-` and a letter. A question that
is also a sub-command's name, or that starts like an option, comes after `--` (`astro -- search`).
"""

from __future__ import annotations

import re

from astro_cli.commands.builtin import builtin_commands

# astro's own commands, as they register (commands/builtin.py: declaring them imports no typer); a
# plugin's are added by main.py when the first word is none of these (plugin_commands.py).
SUBCOMMANDS = builtin_commands().names()
# Options of `astro` (and of `astro run`, which `-p` becomes) that take a value.
VALUE_OPTIONS = frozenset({"-m", "--model", "--api-base", "-r", "--resume", "--max-steps", "--output-format",
                           "--allow", "--allowedTools", "--profile", "--system-prompt", "--append-system-prompt", "--max-budget-usd",
                           "--disallowedTools", "--disallowed-tools", "--add-dir", "--session-id", "-a", "--attach"})
PRINT_FLAGS = ("-p", "--print")
QUESTION_OPTION = "--question"  # hidden option of the REPL's callback: the first turn
_OPTION = re.compile(r"--?[A-Za-z]")  # `-m`, `--model`; not `-`, `-5` or `-0.3 dex` (words of a question)


def is_option(arg: str) -> bool:
    return _OPTION.match(arg) is not None


def first_word(argv: list[str]) -> str | None:
    """The first word that is not an option, before any `--` (a command's name, or a question's start)."""
    _, words = split_options(split_double_dash(argv)[0])
    return words[0] if words else None


def wants_plugin_commands(argv: list[str]) -> bool:
    """Whether plugins' commands must be known: the command line names none of astro's own (a plugin's
    command, a question, the REPL, `astro --help`). `astro run` and the other built-ins load no plugin."""
    return first_word(argv) not in SUBCOMMANDS


def rewrite(argv: list[str], commands: frozenset[str] = SUBCOMMANDS) -> list[str]:
    """The arguments after `astro`, with a bare question made explicit for typer.

    `astro -m M "q"` and `astro "q" -m M` -> `astro -m M --question q`; `astro -p "q" -m M` ->
    `astro run -m M -- q`; `astro -p` alone -> `astro run` (the question from stdin). Sub-commands
    pass unchanged.
    """
    head, tail = split_double_dash(argv)
    printing = any(arg in PRINT_FLAGS for arg in head)
    options, words = split_options(head)
    if words and words[0] in commands and not any(arg in PRINT_FLAGS for arg in head[: head.index(words[0])]):
        # `astro sessions list ...`, `astro --debug run q`: typer reads these as they are; a flag after a
        # sub-command is the sub-command's (`astro library search Q -p ID` filters by paper)
        return argv
    words = words + tail
    if printing:
        return _run(options, ["--", " ".join(words)] if words else [])
    if not words:
        return options
    return [*options, QUESTION_OPTION, " ".join(words)]


def split_double_dash(argv: list[str]) -> tuple[list[str], list[str]]:
    """The arguments before `--` and the words after it (all of them words of the question)."""
    if "--" in argv:
        at = argv.index("--")
        return argv[:at], argv[at + 1:]
    return argv, []


def split_options(args: list[str]) -> tuple[list[str], list[str]]:
    """Options (with the value of those that take one) and the other words, each in their order."""
    options: list[str] = []
    words: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in PRINT_FLAGS:
            index += 1
            continue
        if is_option(arg):
            options.append(arg)
            if arg in VALUE_OPTIONS and index + 1 < len(args):
                options.append(args[index + 1])
                index += 1
        else:
            words.append(arg)
        index += 1
    return options, words


def _run(options: list[str], rest: list[str]) -> list[str]:
    """`astro run ...`; --debug, an option of `astro` itself, stays in front of `run`."""
    debug = ["--debug"] if "--debug" in options else []
    return [*debug, "run", *(o for o in options if o != "--debug"), *rest]


def mistyped_command(argv: list[str], commands: frozenset[str] = SUBCOMMANDS) -> str | None:
    """`astro sesions` or `astro libary add f.pdf`: the command meant, when the words look like a
    mistyped command rather than a question (the first word is close to a command's name and no word
    holds a space), so a typo never becomes a paid question. None for anything else."""
    head, tail = split_double_dash(argv)
    if tail or "--" in argv or any(arg in PRINT_FLAGS for arg in head):
        return None
    _, words = split_options(head)
    if not words or words[0] in commands or any(any(c.isspace() for c in word) for word in words):
        return None
    import difflib

    word = words[0].lower()
    swapped = [name for name in sorted(commands) if sorted(name) == sorted(word)]  # `congif`
    close = swapped or difflib.get_close_matches(word, sorted(commands), n=1, cutoff=TYPO_CUTOFF)
    return close[0] if close else None


def typo_sentence(argv: list[str], meant: str) -> str:
    """What `astro sesions` prints instead of asking the model (exit code 2)."""
    _, words = split_options(split_double_dash(argv)[0])
    rest = " ".join([meant, *words[1:]])
    return (f"astro: '{words[0]}' is not a command; did you mean `astro {rest}`? "
            f"(nothing was sent to the model; a question that starts with this word goes after --: "
            f"astro -- {' '.join(words)})")


TYPO_CUTOFF = 0.75  # `sesions`, `libary`, `serch` are caught; `hello`, `unit`... are questions
