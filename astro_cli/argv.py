"""`astro "question"` and `astro -p "question"`: the habits researchers bring from `claude` and `llm`.

The command line is read once, before typer, without importing anything heavy: the first word that
is not an option is either a sub-command (`astro sessions`) or a question. A question starts the
REPL with it as the first turn; with `-p/--print` it is `astro run` (one answer, then exit). A
question that is also a sub-command's name comes after `--` (`astro -- search`).
"""

from __future__ import annotations

# Kept in step with cli.py by tests/test_everyday_cli.py (importing typer here would slow every start).
SUBCOMMANDS = frozenset({
    "init", "run", "trust", "search", "target", "sessions", "config", "library", "prompt", "memory", "skills",
    "hooks", "keys", "worker", "mcp", "doctor", "papers", "catalog",
})
# Options of `astro` (and of `astro run`, which `-p` becomes) that take a value.
VALUE_OPTIONS = frozenset({"-m", "--model", "--api-base", "-r", "--resume", "--max-steps", "--output-format",
                           "--allow"})
PRINT_FLAGS = ("-p", "--print")
QUESTION_OPTION = "--question"  # hidden option of the REPL's callback: the first turn


def rewrite(argv: list[str]) -> list[str]:
    """The arguments after `astro`, with a bare question made explicit for typer.

    `astro -m M "q"` -> `astro -m M --question q`; `astro -p -m M "q"` -> `astro run -m M q`;
    `astro -p` alone -> `astro run` (the question from stdin). Sub-commands pass unchanged.
    """
    if _subcommand_first(argv):
        return argv  # `astro library search Q -p ID`: a flag after a sub-command is the sub-command's
    printing = any(arg in PRINT_FLAGS for arg in _before_double_dash(argv))
    options: list[str] = []
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            words = argv[index + 1:]
            return _question(options, words, printing)
        if arg in PRINT_FLAGS:
            index += 1
            continue
        if arg.startswith("-") and arg != "-":
            options.append(arg)
            if arg in VALUE_OPTIONS and index + 1 < len(argv):
                options.append(argv[index + 1])
                index += 1
            index += 1
            continue
        if arg in SUBCOMMANDS and not printing:
            return argv
        return _question(options, argv[index:], printing)
    if printing:
        return _run(options, [])
    return argv


def _subcommand_first(argv: list[str]) -> bool:
    """The first word that is not an option (nor an option's value) is a sub-command, and no -p precedes it."""
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--" or arg in PRINT_FLAGS:
            return False
        if arg.startswith("-") and arg != "-":
            index += 2 if arg in VALUE_OPTIONS else 1
            continue
        return arg in SUBCOMMANDS
    return False


def _before_double_dash(argv: list[str]) -> list[str]:
    return argv[: argv.index("--")] if "--" in argv else argv


def _run(options: list[str], rest: list[str]) -> list[str]:
    """`astro run ...`; --debug, an option of `astro` itself, stays in front of `run`."""
    debug = ["--debug"] if "--debug" in options else []
    return [*debug, "run", *(o for o in options if o != "--debug"), *rest]


def _question(options: list[str], words: list[str], printing: bool) -> list[str]:
    question = " ".join(words)
    if printing:
        return _run(options, ["--", question] if words else [])
    if not words:
        return options
    return [*options, QUESTION_OPTION, question]
