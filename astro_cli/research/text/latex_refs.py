"""Cross-references in LaTeX: \\label collected with the number LaTeX would print, \\ref resolved.

Without this, a dropped \\ref leaves "Section )", "Equation ()" and "Algorithm ." in the text. The
numbers follow LaTeX's own counters as a paper uses them: sections (appendix sections lettered),
numbered equation environments row by row (\\nonumber and \\notag skip a row), figures, tables,
algorithms and the lines of an algorithmic block. A label outside all of them takes the number of
its section, as \\ref does. A reference to a label the source does not define (a figure file's
.tex that was not shipped, a typo) becomes its key in brackets, like a citation key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SECTION_LEVELS = {"section": 1, "subsection": 2, "subsubsection": 3}
EQUATIONS = {"equation", "multline", "eqnarray", "align", "gather", "flalign", "alignat"}
ROWS = {"eqnarray", "align", "gather", "flalign", "alignat"}  # one number per row
FLOATS = {"figure": "figure", "table": "table", "deluxetable": "table", "algorithm": "algorithm"}
NAMES = {"section": "Section", "appendix": "Appendix", "equation": "Eq.", "figure": "Figure", "table": "Table",
         "algorithm": "Algorithm", "line": "line"}
_STEPS = "STATE|FOR|FORALL|IF|ELSIF|ELSE|ENDIF|ENDFOR|WHILE|ENDWHILE|REPEAT|UNTIL|LOOP|ENDLOOP|RETURN|PRINT"
_TOKEN = re.compile(
    r"\\(section|subsection|subsubsection)(\*?)\s*(?:\[[^\]]*\])?\s*\{"
    r"|\\(appendix)(?![A-Za-z])"
    r"|\\begin\{([A-Za-z]+)(\*?)\}"
    r"|\\end\{([A-Za-z]+)(\*?)\}"
    r"|\\label\s*\{([^}]*)\}"
    r"|(\\\\)"
    r"|\\(nonumber|notag)(?![A-Za-z])"
    r"|\\(" + _STEPS + r")(?![A-Za-z])"
)
_PAGEREF = re.compile(r"(?:\s*,?\s*(?:starting\s+)?(?:on|at)\s+|\s*)?\bpages?\s*~?\s*\\pageref\s*\{[^}]*\}")
_REF = re.compile(r"\\(ref|eqref|autoref|cref|Cref|vref|pageref)\*?\s*\{([^}]*)\}")


@dataclass
class Label:
    number: str
    kind: str  # a key of NAMES


@dataclass
class SectionCounter:
    """Section numbers as LaTeX prints them: 2.1, and A, A.1 after \\appendix."""

    counters: list[int] = field(default_factory=lambda: [0, 0, 0])
    appendix: bool = False

    def start_appendix(self) -> None:
        if not self.appendix:
            self.appendix, self.counters = True, [0, 0, 0]

    def step(self, level: int) -> str:
        self.counters[level - 1] += 1
        self.counters[level:] = [0] * (3 - level)
        return self.current(level)

    def current(self, level: int | None = None) -> str:
        depth = level or max((n + 1 for n, c in enumerate(self.counters) if c), default=0)
        if depth == 0:
            return ""
        first = chr(64 + self.counters[0]) if self.appendix and self.counters[0] else str(self.counters[0])
        return ".".join([first, *map(str, self.counters[1:depth])])


@dataclass
class _State:
    sections: SectionCounter = field(default_factory=SectionCounter)
    counts: dict[str, int] = field(default_factory=lambda: {"equation": 0, "figure": 0, "table": 0, "algorithm": 0})
    stack: list[tuple[str, bool]] = field(default_factory=list)  # (environment, starred)
    row_labels: list[str] = field(default_factory=list)
    row_numbered: bool = True
    row_start: int = 0
    line: int = 0
    labels: dict[str, Label] = field(default_factory=dict)


def collect_labels(body: str) -> dict[str, Label]:
    """Every \\label of the body with the number and kind a \\ref to it prints."""
    state = _State()
    for match in _TOKEN.finditer(body):
        if match.group(1):
            if not match.group(2):
                state.sections.step(SECTION_LEVELS[match.group(1)])
        elif match.group(3):
            state.sections.start_appendix()
        elif match.group(4):
            _begin(state, match.group(4), bool(match.group(5)))
            state.row_start = match.end()
        elif match.group(6):
            _end(state, match.group(6), bool(body[state.row_start : match.start()].strip()))
        elif match.group(8) is not None:
            _label(state, match.group(8).strip())
        elif match.group(9):
            _row_end(state)
            state.row_start = match.end()
        elif match.group(10):
            state.row_numbered = False
        elif match.group(11) and _inside(state, "algorithmic"):
            state.line += 1
    return state.labels


def _inside(state: _State, name: str) -> bool:
    return any(env == name for env, _ in state.stack)


def _begin(state: _State, env: str, starred: bool) -> None:
    state.stack.append((env, starred))
    if env in FLOATS:
        state.counts[FLOATS[env]] += 1
    elif env == "algorithmic":
        state.line = 0
    elif env in EQUATIONS:
        state.row_labels, state.row_numbered = [], not starred


def _end(state: _State, env: str, last_row_written: bool) -> None:
    if env in EQUATIONS and state.stack and state.stack[-1][0] == env:
        if env not in ROWS or last_row_written or state.row_labels:  # a trailing '\\' opens no row
            _row_end(state, last=True)
    for n in range(len(state.stack) - 1, -1, -1):
        if state.stack[n][0] == env:
            del state.stack[n:]
            break


def _row_end(state: _State, last: bool = False) -> None:
    """A row of a numbered display ends: it takes the next equation number unless told not to."""
    if not state.stack or state.stack[-1][0] not in EQUATIONS:
        return
    env = state.stack[-1][0]
    if env not in ROWS and not last:
        return  # '\\\\' inside a multline or a matrix: still one equation
    if state.row_numbered and (state.row_labels or env in ROWS or last):
        state.counts["equation"] += 1
        for key in state.row_labels:
            state.labels[key] = Label(str(state.counts["equation"]), "equation")
    state.row_labels, state.row_numbered = [], not state.stack[-1][1]


def _label(state: _State, key: str) -> None:
    if not key or key in state.labels:
        return
    for env, starred in reversed(state.stack):
        if env in EQUATIONS and not starred:
            state.row_labels.append(key)
            return
        if env == "algorithmic":
            state.labels[key] = Label(str(state.line), "line")
            return
        if env in FLOATS:
            kind = FLOATS[env]
            state.labels[key] = Label(str(state.counts[kind]), kind)
            return
    number = state.sections.current()
    kind = "appendix" if state.sections.appendix and "." not in number else "section"
    state.labels[key] = Label(number or "?", kind)


def resolve_refs(body: str, labels: dict[str, Label]) -> str:
    """\\ref{x} -> 2.1, \\eqref{x} -> (3), \\autoref/\\cref -> 'Eq. (3)'; page references dropped
    (a text has no pages); an unknown key -> [key]."""
    body = _PAGEREF.sub("", body)

    def render(match: re.Match[str]) -> str:
        command = match.group(1)
        if command == "pageref":
            return ""
        parts = []
        for key in (k.strip() for k in match.group(2).split(",")):
            label = labels.get(key)
            if label is None:
                parts.append(f"[{key}]")
            elif command == "eqref" or (command in ("autoref", "cref", "Cref", "vref") and label.kind == "equation"):
                number = f"({label.number})"
                parts.append(f"Eq. {number}" if command != "eqref" else number)
            elif command in ("autoref", "cref", "Cref", "vref"):
                parts.append(f"{NAMES[label.kind]} {label.number}")
            else:
                parts.append(label.number)
        return ", ".join(parts)

    return _REF.sub(render, body)
