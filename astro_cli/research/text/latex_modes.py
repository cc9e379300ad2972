"""TeX's plumbing that a paper's macros leave behind, read as TeX would read it (issue 42).

Macros written for typesetting expand to primitives no reader wants: Planck's `\\oneonesig` left
`\\mbox{\\rm{\\parbox{4cm}{\\begin{flushleft} (68\\,\\%,~\\ifmmode {\\rm TT}\\else TT\\fi) ...}}}` inside
its equations, and those words (`parbox`, `flushleft`, `ifmmode`) reached the index and the vectors.
Two rules, neither naming a macro:
- `\\ifmmode A\\else B\\fi` is A where TeX is in math mode and B where it is not (the mode is
  followed through `$`, `$$`, `\\[ \\]`, `\\( \\)`, math environments and text boxes inside math);
  `\\iffalse X\\fi` is nothing; other conditionals are left to the prose cleaner.
- Inside math, a text box (`\\mbox`, `\\text`, `\\hbox`, `\\parbox{width}`) holds words: they are kept
  as plain words, and the box, its width, `flushleft` and `\\allowbreak` are dropped (null delimiters,
  `\\left.`, are math and stay: dropping them moved a held-out question out of the top 3 through one
  chunk's vector, benchmarks/RESULTS.md "Stop 51 — retrieval").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_MATH_ENV = r"(?:equation|align|eqnarray|gather|multline|displaymath|math)\*?"
_TOKEN = re.compile(
    r"\\\\|\\\$|\$\$|\$|\\\[|\\\]|\\\(|\\\)"
    r"|\\begin\{" + _MATH_ENV + r"\}|\\end\{" + _MATH_ENV + r"\}"
    r"|\\if[A-Za-z@]*(?![A-Za-z@])|\\else(?![A-Za-z])|\\fi(?![A-Za-z])"
    r"|\\(?:mbox|text|textrm|hbox|parbox\s*\{[^{}]*\})\s*\{"
    r"|\\[{}]|[{}]"
)
_BOX = re.compile(r"\\(?:mbox|text|textrm|textnormal|hbox|parbox\s*\{[^{}]*\})\s*\{")
MAX_BOXES = 8  # levels of boxes in boxes read per math block (each level is one pass over the block)
# a box whose words hold at most one level of braces (`\\textit{Planck}`): the innermost boxes
_INNER_BOX = re.compile(_BOX.pattern + r"((?:[^{}]|\{[^{}]*\})*)\}")
_OLD_FONT = re.compile(r"\\rm\s*\{([^{}\\]*)\}")  # `\rm{words}` left once a box inside it was read
# The astronomers' decimal glyphs (`0\fdg59643` is 0.59643 degrees): papers define them with box
# registers and kerns (`\setbox0=\hbox{$^\circ$}\rlap{\hskip.11\wd0 .}`) that no reader can follow.
DECIMAL_GLYPHS = {"fdg": "°", "pdeg": "°", "farcs": "″", "farcm": "′", "fs": "ˢ", "fm": "ᵐ", "fh": "ʰ", "fd": "ᵈ",
                  "fp": ""}
_DECIMAL = re.compile(r"(\d)\\(" + "|".join(DECIMAL_GLYPHS) + r")(?![A-Za-z])\s*(\d*)")
_PLUMBING = re.compile(r"\\allowbreak(?![A-Za-z])|\\(?:begin|end)\{flush(?:left|right)\}"
                       r"|\\(?:begin|end)\{center\}")


@dataclass
class _Condition:
    kind: str  # "mode": \ifmmode; "false": \iffalse; "other": kept as written
    math: bool  # the mode where it was met
    then: bool = True  # in the first branch

    def hides(self) -> bool:
        return self.kind == "false" and self.then or self.kind == "mode" and self.then != self.math


def resolve_conditionals(text: str) -> str:
    """`\\ifmmode`/`\\iffalse` resolved by the mode TeX would be in at that point; one pass, linear
    (counters, not scans of the open braces and conditions: a hostile source nests them deep)."""
    if "\\if" not in text:
        return text
    out: list[str] = []
    pos = 0
    math = ""  # the closing token of the math we are in ("$", "$$", "\\]", "\\)", "\\end"), "" in text
    braces: list[bool] = []  # per open brace: does it open a text box inside math
    boxes = 0  # how many of those are open
    conditions: list[_Condition] = []
    hiding = 0  # how many open conditions hide what follows

    for match in _TOKEN.finditer(text):
        token = match.group(0)
        was_shown = not hiding
        if was_shown:
            out.append(text[pos : match.start()])
        pos = match.end()
        in_math = bool(math) and not boxes
        if token.startswith("\\if"):
            kind = "mode" if token == "\\ifmmode" else "false" if token == "\\iffalse" else "other"
            conditions.append(_Condition(kind, in_math))
            hiding += conditions[-1].hides()
            if kind == "other" and was_shown:
                out.append(token)
            continue
        if token in ("\\else", "\\fi") and conditions:
            condition = conditions[-1]
            hiding -= condition.hides()
            if token == "\\else":
                condition.then = False
                hiding += condition.hides()
            else:
                conditions.pop()
            if condition.kind == "other" and not hiding:
                out.append(token)
            continue
        if not was_shown:
            continue
        out.append(token)
        if token in ("\\\\", "\\$", "\\{", "\\}"):
            continue
        if token == "{" or token.endswith("{"):
            braces.append(token != "{" and in_math)
            boxes += braces[-1]
        elif token == "}":
            if braces:
                boxes -= braces.pop()
        elif not math and token in ("$", "$$", "\\[", "\\("):
            math = {"$": "$", "$$": "$$", "\\[": "\\]", "\\(": "\\)"}[token]
        elif not math and token.startswith("\\begin"):
            math = "\\end"
        elif math and (token == math or math == "\\end" and token.startswith("\\end")):
            math = ""
    if not hiding:
        out.append(text[pos:])
    return "".join(out)


def text_boxes_in_math(math: str, prose: Callable[[str], str]) -> str:
    """Math with its text boxes' words as plain words (`prose` cleans them) and its spacing plumbing dropped.
    Innermost boxes first, all of a level in one regex pass, at most MAX_BOXES levels: linear per level."""
    math = _PLUMBING.sub(" ", math)
    for _ in range(MAX_BOXES):  # boxes nest (\\mbox{\\rm{\\parbox{..}{..}}})
        math, count = _INNER_BOX.subn(lambda m: " " + prose(m.group(1)).strip() + " ", math)
        if not count:
            break
    math = re.sub(r"\n[ \t]*(?=\n)", "", _OLD_FONT.sub(r"\1", math))  # no blank line inside math (a paragraph break)
    return re.sub(r"[ \t]{2,}", " ", math)


def decimal_glyphs(text: str) -> str:
    """`0\\fdg59643` -> `0.59643°` (and arcseconds, hours...), whatever the paper defined the macro as."""
    return _DECIMAL.sub(lambda m: f"{m.group(1)}.{m.group(3)}{DECIMAL_GLYPHS[m.group(2)]}", text)
