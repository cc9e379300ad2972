"""Words a PDF's glyphs spell wrong but their context makes plain.

Ionisation states: TeX papers set the roman numeral of `H II`, `Fe I`, `[O III]` in small capitals
(`H~{\\sc ii}`), whose glyphs are lower-case letters, so PDFium gives `H ii`, `[O iii]`: a reader
(or a search for "H II region") meets a different word. A lower-case roman numeral standing alone
right after a chemical element's symbol (in brackets or not, the forbidden line's bracket closed
before the numeral or after it: `[O iii]`, `[O] i`) is that element's ionisation state and is written
upper case. Nothing else is: `Al, V` or `V i.e.` are left as printed.
"""

from __future__ import annotations

import re

# Elements whose spectral lines papers name (a symbol that is an English word, `In`, `As`, `No`, is
# left out: `In i` could be prose).
_ELEMENTS = (
    "H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge Se Kr Rb Sr "
    "Y Zr Nb Mo Ru Rh Pd Ag Cd Sn Sb Te Xe Cs Ba La Ce Pr Nd Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re "
    "Ir Pt Au Hg Tl Pb Bi Th U"
).split()
_NUMERAL = r"(?:x{0,2}(?:ix|iv|v?i{0,3})|xxx)"
_SYMBOL = "(?:" + "|".join(sorted(_ELEMENTS, key=len, reverse=True)) + ")"
_STATE = re.compile(
    r"(?<![\w/])((?:\[" + _SYMBOL + r"\]?|" + _SYMBOL + r")[ \u00a0~])"
    r"(" + _NUMERAL + r")(?=\]|[\s,;:)/λ]|\.(?!\w)|$)"
)
_CANDIDATE = re.compile(r"[A-Z][a-z]?\]?[ \u00a0~][ivx]")

# Operator names TeX sets upright in the text's roman font (`\exp`, `\ln`, `\det`): letters of a text
# font that are no word of prose, so a display formula that holds one is still mathematics.
MATH_FUNCTIONS = frozenset({"exp", "log", "ln", "lg", "sin", "cos", "tan", "cot", "min", "max", "det", "diag",
                            "lim", "sup", "inf", "arg", "sinh", "cosh", "tanh", "coth", "arcsin", "arccos",
                            "arctan", "erf", "erfc", "mod", "sgn", "ker", "dim", "deg", "sec", "csc", "Tr", "tr"})


def ionisation_states(line: str) -> str:
    """`H ii` -> `H II`, `[O iii]` -> `[O III]`, `[O] i` -> `[O] I`, `Fe i` -> `Fe I`; a line without
    one is returned as is."""
    if not _CANDIDATE.search(line):  # most lines: no capital, space and i, v or x in a row
        return line
    return _STATE.sub(_upper, line)


def _upper(found: re.Match[str]) -> str:
    numeral = found.group(2)
    return found.group(1) + numeral.upper() if numeral else found.group(0)
