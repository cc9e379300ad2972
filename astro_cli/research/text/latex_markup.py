"""LaTeX markup that carries meaning the plain-text conversion would drop (latex.py calls these).

- Front matter: affiliations (AASTeX `\\altaffiltext`/`\\affiliation`/`\\affil`, A&A
  `\\institute` split at `\\and`, MNRAS/elsarticle `\\address`) and keywords (`\\keywords{}`, MNRAS's
  `keywords` environment) become labelled lines of the "Front matter" section, so a researcher can
  ask where an author works or what the paper is filed under.
- Citations keep their optional text: `\\citep[e.g.][p.~3]{key}` -> `[e.g. key, p. 3]`.
- `algorithmic` (and algorithmicx's `algpseudocode`) blocks become numbered, readable steps, numbered
  as LaTeX numbers them (latex_refs.py resolves `\\ref` to a line with the same count):
  `1: Draw a proposal ...`, `4: if $r \\le q$ then`, `5:  $X(t+1) \\gets Y$`, `8: end if`; an
  `algorithm` float goes to the end of its section (`floats_last`), out of the paragraph it interrupts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_CITE = re.compile(r"\\(cite[a-zA-Z]*)\*?\s*(?:\[([^\[\]]*)\])?\s*(?:\[([^\[\]]*)\])?\s*\{([^}]*)\}")
_ALGORITHMIC = re.compile(r"\\begin\{algorithmic\}(?:\[[^\]]*\])?(.*?)\\end\{algorithmic\}", re.DOTALL)
# step macro -> (words before its argument, words after it, change of depth before, after)
_STEPS: dict[str, tuple[str, str, int, int]] = {
    "STATE": ("", "", 0, 0), "State": ("", "", 0, 0), "STATEx": ("", "", 0, 0), "Statex": ("", "", 0, 0),
    "IF": ("if ", " then", 0, 1), "If": ("if ", " then", 0, 1),
    "ELSIF": ("else if ", " then", -1, 1), "ElsIf": ("else if ", " then", -1, 1),
    "ELSE": ("else", "", -1, 1), "Else": ("else", "", -1, 1),
    "ENDIF": ("end if", "", -1, 0), "EndIf": ("end if", "", -1, 0),
    "FOR": ("for ", " do", 0, 1), "For": ("for ", " do", 0, 1), "FORALL": ("for all ", " do", 0, 1),
    "ForAll": ("for all ", " do", 0, 1), "ENDFOR": ("end for", "", -1, 0), "EndFor": ("end for", "", -1, 0),
    "WHILE": ("while ", " do", 0, 1), "While": ("while ", " do", 0, 1),
    "ENDWHILE": ("end while", "", -1, 0), "EndWhile": ("end while", "", -1, 0),
    "REPEAT": ("repeat", "", 0, 1), "Repeat": ("repeat", "", 0, 1),
    "UNTIL": ("until ", "", -1, 0), "Until": ("until ", "", -1, 0),
    "LOOP": ("loop", "", 0, 1), "Loop": ("loop", "", 0, 1), "ENDLOOP": ("end loop", "", -1, 0),
    "EndLoop": ("end loop", "", -1, 0), "RETURN": ("return ", "", 0, 0), "Return": ("return ", "", 0, 0),
    "PRINT": ("print ", "", 0, 0), "Procedure": ("procedure ", "", 0, 1), "EndProcedure": ("end procedure", "", -1, 0),
    "Function": ("function ", "", 0, 1), "EndFunction": ("end function", "", -1, 0),
}
FLOAT_MARK = "\ufdd0"  # around a float until latex.py places it; not whitespace: str.strip() must keep it
_FLOAT = re.compile(r"\\begin\{algorithm\*?\}(.*?)\\end\{algorithm\*?\}", re.DOTALL)
_MARKED = re.compile(FLOAT_MARK + "(.*?)" + FLOAT_MARK, re.DOTALL)
_INDENT = "\u2003"  # an em space per level (plain spaces are folded by the prose cleaner)
_UNNUMBERED = {"REQUIRE": "Require: ", "Require": "Require: ", "ENSURE": "Ensure: ", "Ensure": "Ensure: ",
               "STATEx": "", "Statex": ""}
_STEP = re.compile(r"\\(" + "|".join(sorted(set(_STEPS) | set(_UNNUMBERED), key=len, reverse=True)) + r")(?![A-Za-z])")
_TAKES_ARGUMENT = {"IF", "If", "ELSIF", "ElsIf", "FOR", "For", "FORALL", "ForAll", "WHILE", "While", "UNTIL",
                   "Until", "Procedure", "Function"}


def citations(text: str) -> str:
    """`\\citep[e.g.][p.~3]{a,b}` -> `[e.g. a, b, p. 3]`; one optional argument is the note after."""

    def render(match: re.Match[str]) -> str:
        first, second, keys = match.group(2), match.group(3), match.group(4)
        before, after = (first, second) if second is not None else ("", first)
        keys = ", ".join(k.strip() for k in keys.split(",") if k.strip())
        parts = " ".join(p for p in ((before or "").strip(), keys) if p)
        return f"[{parts}, {after.strip()}]" if after and after.strip() else f"[{parts}]"

    for _ in range(3):  # a citation inside another's note: [key, hereafter \citetalias{key}]
        text, found = _CITE.subn(render, text)
        if not found:
            break
    return text


def braced(text: str, start: int) -> tuple[str, int]:
    """The {group} opening at text[start] (or just before it), and the index after its closing brace."""
    i = start
    while i < len(text) and text[i] in " \t\n":
        i += 1
    if i >= len(text) or text[i] != "{":
        return "", start
    level = 0
    for j in range(i, len(text)):
        char = text[j]
        if char == "\\":
            continue
        if char == "{" and text[j - 1] != "\\":
            level += 1
        elif char == "}" and text[j - 1] != "\\":
            level -= 1
            if level == 0:
                return text[i + 1 : j], j + 1
    return text[i + 1 :], len(text)


def _argument(text: str, start: int) -> tuple[str, int]:
    arg, end = braced(text, start)
    return (arg, end) if end != start else ("", start)


def algorithmic_steps(text: str) -> str:
    """Every algorithmic block as numbered steps, one per line, nested steps indented."""

    def render(block: re.Match[str]) -> str:
        body, lines, depth, number = block.group(1), [], 0, 0
        marks = list(_STEP.finditer(body))
        for n, mark in enumerate(marks):
            name = mark.group(1)
            end = marks[n + 1].start() if n + 1 < len(marks) else len(body)
            rest_start = mark.end()
            argument = ""
            if name in _TAKES_ARGUMENT:
                argument, rest_start = _argument(body, rest_start)
                if name in ("Procedure", "Function"):  # \Procedure{Name}{args}
                    args, rest_start = _argument(body, rest_start)
                    argument = f"{argument}({args})"
            rest = " ".join(body[rest_start:end].split())
            if name in _UNNUMBERED:
                lines.append(f"{_UNNUMBERED[name]}{rest}".rstrip())
                continue
            before, after, shift, opens = _STEPS[name]
            depth = max(0, depth + shift)
            number += 1
            words = f"{before}{' '.join(argument.split())}{after}".strip()
            step = " ".join(p for p in (words, rest) if p)
            lines.append(f"{number}: {_INDENT * depth}{step}")
            depth += opens
        return "\n\n" + "\n".join(lines) + "\n\n"

    text = _ALGORITHMIC.sub(render, text)
    # an algorithm float is set apart from the prose (like a figure): it goes to the end of its
    # section (floats_last), so the paragraph it interrupts reads, and is searched, as one
    return _FLOAT.sub(lambda m: f"\n\n{FLOAT_MARK}{m.group(1)}{FLOAT_MARK}\n\n", text)


def floats_last(text: str) -> str:
    """The marked floats of a section's text moved after its prose, in their order, each opening with
    FLOAT_MARK."""
    if FLOAT_MARK not in text:
        return text
    floats = [m.group(1).strip() for m in _MARKED.finditer(text)]
    prose = _MARKED.sub("\n\n", text)
    # each float keeps one mark at its start: the chunker makes it a chunk of its own (parse.latex_chunks)
    joined = "\n\n".join([prose.strip(), *(FLOAT_MARK + f for f in floats)])
    return re.sub(r"\n{3,}", "\n\n", joined).strip()


def _commands(text: str, name: str) -> list[str]:
    """The first argument of every \\name[opt]{...} in the text."""
    out: list[str] = []
    pos = 0
    pattern = re.compile(r"\\" + name + r"\*?(?![A-Za-z])\s*(?:\[[^\]]*\])?")
    while True:
        match = pattern.search(text, pos)
        if not match:
            return out
        arg, end = _argument(text, match.end())
        if name == "altaffiltext":  # \altaffiltext{mark}{text}
            mark = arg
            arg, end = _argument(text, end)
            arg = f"[{mark.strip()}] {arg}"
        out.append(arg)
        pos = max(end, match.end())


def front_matter(text: str, to_text: Callable[[str], str]) -> str:  # latex.to_text, passed to avoid an import cycle
    """Labelled lines for authors, affiliations and keywords, or '' when the source declares none."""
    def plain(value: str) -> str:
        value = re.sub(r"\\(?:altaffilmark|thanks|footnotemark|orcidlink|email|inst)\s*\{[^{}]*\}", "", value)
        value = re.sub(r"\$\^\{?[^$]*\}?\$", "", value)  # MNRAS affiliation marks $^{1}$
        return " ".join(to_text(value).split()).strip(" ,;")

    lines = []  # the authors are in the paper's record already (arXiv, ADS)
    affiliations: list[str] = []
    for name in ("altaffiltext", "affiliation", "affil", "institute", "address"):
        for value in _commands(text, name):
            affiliations.extend(plain(part) for part in re.split(r"\\and(?![A-Za-z])", value))
    affiliations = [a for a in affiliations if a]
    if affiliations:
        lines.append("Affiliations: " + "; ".join(dict.fromkeys(affiliations)))
    keywords = _commands(text, "keywords")
    environment = re.search(r"\\begin\{keywords\}(.*?)\\end\{keywords\}", text, re.DOTALL)
    if environment:
        keywords.append(environment.group(1))
    words = [plain(k) for value in keywords for k in re.split(r"---|--|\\sep|\\and(?![A-Za-z])|;|–|—", value)]
    words = [w for w in words if w]
    if words:
        lines.append("Keywords: " + "; ".join(words))
    return "\n".join(lines)


_PDFSTRING = re.compile(r"\\texorpdfstring\s*(?=\{)")
_SPACING = re.compile(r"\\(?:vglue|hglue|vskip|hskip|kern|vspace\*?|hspace\*?)\s*\{?\s*-?[\d.]+\s*(?:mm|cm|pt|em|ex|in|bp)\}?")


def pdf_strings(text: str) -> str:
    """`\\texorpdfstring{TeX}{plain}` -> plain ("ΛCDM", "ℓ"), and TeX's spacing by a length (`\\vglue -10mm`)
    dropped with its length (Planck's title read "-10mmPlanck 2018 results")."""
    text = _SPACING.sub("", text)
    if "texorpdfstring" not in text:
        return text
    out, pos = [], 0
    for match in _PDFSTRING.finditer(text):
        if match.start() < pos:
            continue
        _, end = braced(text, match.end())
        plain, end = braced(text, end)
        out.append(text[pos : match.start()] + plain)
        pos = end
    return "".join(out) + text[pos:]
