"""The paper's own macros: \\newcommand, \\providecommand and \\def collected, their definitions
dropped from the text, and their uses expanded pass after pass within the reader's budget (latex.py).
"""

from __future__ import annotations

import re

from astro_cli.research.text.latex_limits import Budget
from astro_cli.research.text.latex_markup import braced

__all__ = ["_NEWCOMMAND", "Macros", "collect_macros", "drop_definitions", "expand_macros"]

_BRACE = re.compile(r"[{}]")
_NEWCOMMAND = re.compile(r"\\(?:(?:re)?newcommand|providecommand)\*?\s*\{?\\([A-Za-z]+)\}?\s*(?:\[(\d)\])?"
                         r"\s*(?:\[([^\]]*)\])?\s*\{")
_DEF = re.compile(r"\\[egx]?def\s*\\([A-Za-z]+)\s*((?:#\d)*)\s*\{")
_BOX_PRIMITIVE = re.compile(r"\\(?:setbox|copy|box|wd|ht|dp)\s*\d")
Macros = dict[str, tuple[int, str, str | None]]  # name -> (arguments, body, default of an optional first one)


def collect_macros(text: str) -> Macros:
    """The paper's own \\newcommand and \\def macros: name -> (number of arguments, body).

    Braces are matched once for the whole text: with `braced` per definition, twenty thousand
    unclosed definitions each scanned to the end of the text (quadratic). An unclosed body defines
    nothing (LaTeX would stop there too)."""
    macros: Macros = {}
    closing = _closing_braces(text)
    for pattern in (_NEWCOMMAND, _DEF):
        for match in pattern.finditer(text):
            at = match.end() - 1
            while at < len(text) and text[at] in " \t\n":
                at += 1
            if at >= len(text) or text[at] != "{" or at not in closing:
                continue
            if pattern is _NEWCOMMAND:
                nargs, default = int(match.group(2) or 0), match.group(3) if match.group(2) else None
            else:  # \def\x#1#2{...}
                nargs, default = match.group(2).count("#"), None
            body = text[at + 1 : closing[at]]
            # A body that draws with TeX's box registers (a poor man's bold: `\pmb#1` sets #1 in a box
            # and prints it three times, shifted by \kern) prints its argument; its primitives
            # (`\setbox0=\hbox{$$}\copy0\kern-\wd0`) leaked into Planck 2018 VI's text.
            if nargs and _BOX_PRIMITIVE.search(body):
                body = "\\mbox{#1}"
            macros.setdefault(match.group(1), (nargs, body, default))
    return macros


def _closing_braces(text: str) -> dict[int, int]:
    """Each unescaped '{' that is closed -> the index of its '}', in one pass (as `braced` pairs them)."""
    pairs: dict[int, int] = {}
    open_at: list[int] = []
    for found in _BRACE.finditer(text):
        at = found.start()
        if at and text[at - 1] == "\\":
            continue
        if found.group() == "{":
            open_at.append(at)
        elif open_at:
            pairs[open_at.pop()] = at
    return pairs


def drop_definitions(text: str) -> str:
    """Remove \\newcommand / \\def definitions (they were collected; their bodies are not prose)."""
    for pattern in (_NEWCOMMAND, _DEF):
        out, pos = [], 0
        for match in pattern.finditer(text):
            if match.start() < pos:
                continue
            _, end = braced(text, match.end() - 1)
            out.append(text[pos : match.start()])
            pos = end
        text = "".join(out) + text[pos:]
    return text


def expand_macros(text: str, macros: Macros, budget: Budget | None = None) -> str:
    """Replace uses of the paper's macros by their bodies, pass after pass (macros use macros),
    within the budget's passes and output size: a pass that would pass a bound is not kept."""
    if not macros:
        return text
    budget = budget or Budget()
    names = sorted(macros, key=len, reverse=True)
    use = re.compile(r"\\(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z])")
    done = 0
    while budget.allow_pass(done):
        out, pos, changed, size = [], 0, False, 0
        for match in use.finditer(text):
            if match.start() < pos:
                continue
            nargs, body, default = macros[match.group(1)]
            end, first = match.end(), 1
            if default is not None and nargs:  # \newcommand{\x}[2][5cm]{...}: #1 is optional
                given = re.match(r"\s*\[([^\]]*)\]", text[end:])
                body = body.replace("#1", given.group(1) if given else default)
                end, first = (end + given.end() if given else end), 2
            for n in range(first, nargs + 1):
                arg, end = braced(text, end)
                body = body.replace(f"#{n}", arg)
            piece = text[pos : match.start()] + body
            size += len(piece)
            if not budget.allow_output(size + len(text) - end):
                return text  # the last pass that stayed within bounds
            out.append(piece)
            pos, changed = end, True
        text = "".join(out) + text[pos:]
        done += 1
        if not changed or not use.search(text):  # nothing left to expand: done, whatever the pass count
            break
    return text
