"""Figures and tables of a LaTeX source as text: whole captions, and table rows in the exact-text convention.

The prose reader (latex.py) cuts the text at every `$...$` before it cleans the prose, so a float
holding math was read in pieces: a table with `$8000\\pm 700$` cells stayed raw LaTeX, and a caption
ended at its first `$` ("[Caption: Fitted outflow velocities for the]"). Floats are therefore taken
out whole before that cut: the caption is read as prose (its math kept as written, as in the text),
and each table row is written as the PDF route writes one, cells joined by ` | ` and numbers as
printed (`8000 ± 700`, `10^{−4}`, `T_{eff}`; docs/library.md). The block is marked as a float, so it
follows its section's prose as a paragraph of its own (latex_markup.floats_last).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from astro_cli.research.text.latex_markup import FLOAT_MARK, braced
from astro_cli.research.text.latex_symbols import MATH_SYMBOLS

_FLOAT = re.compile(r"\\begin\{(figure|table|deluxetable|sidewaystable|sidewaysfigure|wrapfigure|wraptable)"
                    r"(\*?)\}(.*?)\\end\{\1\2\}", re.DOTALL)
_TABULAR = re.compile(r"\\begin\{(tabular[x*]?|longtable|array)\}(.*?)\\end\{\1\}", re.DOTALL)
_DELUXE = re.compile(r"\\startdata(.*?)\\enddata", re.DOTALL)
_RULES = re.compile(r"\\(?:hline|toprule|midrule|bottomrule|endhead|endfirsthead|endfoot|endlastfoot|"
                    r"tableline|noalign\s*\{[^}]*\}|cline\s*\{[^}]*\}|cmidrule\s*(?:\([^)]*\))?\s*\{[^}]*\})")
_UNWRAPPED = ("mathrm", "mathit", "mathbf", "mathsf", "mathtt", "mathcal", "mathbb", "text", "textrm", "textit",
              "textbf", "mbox", "hbox", "rm", "it", "bf", "boldsymbol", "bm", "operatorname", "textnormal",
              "emph", "multirow", "colhead", "textsc", "ensuremath", "hat", "bar", "tilde", "vec", "overline",
              "widetilde", "widehat", "dot", "ddot")


PLACE = "\ufdd1"  # around a block's number until put_back: the prose cleaner leaves it alone, str.strip() too


def render_floats(text: str, to_text: Callable[[str], str], blocks: list[str]) -> str:
    """Every figure/table float (and a bare tabular) replaced by a marked placeholder; the texts go to blocks."""
    text = _FLOAT.sub(lambda m: _marked(_render(m.group(3), to_text), blocks), text)
    return _TABULAR.sub(lambda m: _marked(_table_rows(m.group(2), m.group(1)), blocks), text)


def put_back(text: str, blocks: list[str]) -> str:
    """The placeholders of render_floats replaced by their blocks."""
    if not blocks:
        return text
    return re.sub(PLACE + r"(\d+)" + PLACE, lambda m: blocks[int(m.group(1))], text)


def _marked(block: str, blocks: list[str]) -> str:
    if not block.strip():
        return "\n"
    blocks.append(block)
    return f"\n\n{FLOAT_MARK}{PLACE}{len(blocks) - 1}{PLACE}{FLOAT_MARK}\n\n"


def _render(body: str, to_text: Callable[[str], str]) -> str:
    parts = []
    for match in re.finditer(r"\\(?:caption|tablecaption)\*?\s*(?:\[[^\]]*\])?\s*(?=\{)", body):
        caption, _ = braced(body, match.end())
        text = re.sub(r"\s+", " ", to_text(caption)).strip()
        if text:
            parts.append(f"[Caption: {text}]")
    heads = [_cell(braced(body, m.end())[0]) for m in re.finditer(r"\\colhead\s*(?:\[[^\]]*\])?\s*(?=\{)", body)]
    if heads:
        parts.append(" | ".join(heads))
    rows = [_table_rows(m.group(2), m.group(1)) for m in _TABULAR.finditer(body)]
    rows += [_table_rows(m.group(1), "") for m in _DELUXE.finditer(body)]
    notes = re.search(r"\\tablecomments\s*(?=\{)", body)
    parts += [r for r in rows if r]
    if notes:
        parts.append(re.sub(r"\s+", " ", to_text(braced(body, notes.end())[0])).strip())
    return "\n".join(parts)


def _table_rows(body: str, kind: str) -> str:
    """`a & $1\\pm 2$ \\\\` rows -> `a | 1 ± 2` lines (the column spec of a tabular is skipped)."""
    if kind:
        _, end = braced(body, 0)  # {lcr}
        if kind in ("tabular*", "tabularx"):
            _, end = braced(body, end)
        body = body[end:]
    body = _RULES.sub(" ", body)
    lines = []
    for row in re.split(r"\\\\(?:\s*\[[^\]]*\])?|\\tablenewline", body):
        cells = [_cell(c) for c in re.split(r"(?<!\\)&", row)]
        if any(cells):
            lines.append(" | ".join(cells).strip())
    return "\n".join(lines)


def _cell(text: str) -> str:
    """One cell, math and text alike, in the exact-text convention."""
    text = re.sub(r"\\multicolumn\s*\{[^}]*\}\s*\{[^}]*\}", "", text)
    text = math_text(text)
    return re.sub(r"\s+", " ", text).strip()


def math_text(latex: str) -> str:
    """LaTeX math as printed: `$8000\\pm 700$` -> `8000 ± 700`, `10^{-4}` -> `10^{−4}`; no command left."""
    text = latex.replace("$", "")
    text = re.sub(r"\\(?:left|right|big|Big|bigg|Bigg)[lr]?(?![A-Za-z])\s*\\?", "", text)
    text = re.sub(r"\\[,;:! ]|~", " ", text)
    for name in _UNWRAPPED:
        text = re.sub(r"\\" + name + r"(?![A-Za-z])\s*(?:\[[^\]]*\])?", "", text)
    text = re.sub(r"\\([A-Za-z]+|[%$&#_{}])", lambda m: _symbol(m.group(1)), text)
    text = re.sub(r"(?<=[\s(=\[{^_])-|^-", "−", text)
    text = re.sub(r"\{\s+", "{", re.sub(r"\s+\}", "}", text))
    text = re.sub(r"([\^_])\{([^{}])\}", r"\1\2", text)  # one character needs no braces
    text = re.sub(r"(?<![\^_])\{([^{}]*)\}", r"\1", text)  # grouping braces
    text = re.sub(r"\^\{?(?:°|\\circ)\}?", "°", text)
    return re.sub(r"\s+", " ", text).replace("( ", "(").replace(" )", ")").strip()


def _symbol(name: str) -> str:
    found = MATH_SYMBOLS.get(name)
    if found is None:
        return ""  # an unknown command is dropped, never left as raw LaTeX
    return f" {found} " if found in "±∓×∼≃≈≲≳≤≥≪≫≠∝→←" else found
