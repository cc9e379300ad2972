"""What LaTeX commands print, for the reader's text: symbols in a table's math and in prose.

A command neither table names is dropped by its reader (its braced argument's words stay), so no
raw `\\command` reaches a chunk (issue 42: `\\oneonesig[3cm]` leaked into Planck's text).
"""

from __future__ import annotations

import re

MATH_SYMBOLS = {
    "pm": "±", "mp": "∓", "times": "×", "cdot": "·", "sim": "∼", "simeq": "≃", "approx": "≈", "lesssim": "≲",
    "gtrsim": "≳", "la": "≲", "ga": "≳", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "ll": "≪", "gg": "≫",
    "neq": "≠", "ne": "≠", "infty": "∞", "odot": "⊙", "sun": "⊙", "circ": "°", "degree": "°", "prime": "′",
    "propto": "∝", "rightarrow": "→", "to": "→", "leftarrow": "←", "ldots": "…", "dots": "…", "cdots": "⋯",
    "partial": "∂", "nabla": "∇", "sum": "∑", "int": "∫", "sqrt": "√", "AA": "Å", "star": "⋆", "ast": "∗",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "ell": "ℓ", "%": "%", "$": "$", "&": "&",
    "#": "#", "_": "_", "{": "{", "}": "}",
    **{name: f"{name} " for name in ("log", "ln", "exp", "sin", "cos", "tan", "min", "max", "lim", "det", "arg")},
}
# math written by \\ensuremath in running text ($...$) is skipped: group 1 keeps it as it is
PROSE_COMMAND = re.compile(r"(\$[^$]*\$)|\\([A-Za-z]+)\*?(?:\[[^\]]*\])?")


def prose_symbol(match: re.Match[str]) -> str:
    """PROSE_COMMAND's replacement: the math as it is, a known command's symbol, else nothing."""
    return match.group(1) or PROSE_SYMBOLS.get(match.group(2), "")
PROSE_SYMBOLS = {"AA": "Å", "aa": "å", "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "l": "ł", "degr": "°",
                  "arcsec": "″", "arcmin": "′", "farcs": "″.", "farcm": "′.", "sun": "⊙", "odot": "⊙", "etal": "et al.",
                  "ie": "i.e.", "eg": "e.g.", "LaTeX": "LaTeX", "TeX": "TeX", "dag": "†", "S": "§", "ldots": "…",
                  "dots": "…", "textasciitilde": "~", "textbackslash": "", "pm": "±", "sim": "∼", "times": "×",
                  "deg": "°", "micron": "μm", "kms": "km s⁻¹", "ion": "", "textless": "<", "textgreater": ">"}

DROP_WITH_ARG = (
    "label", "ref", "eqref", "pageref", "includegraphics", "plotone", "plottwo", "epsscale", "bibliographystyle",
    "bibliography", "vspace", "hspace", "usepackage", "documentclass", "altaffilmark", "altaffiltext",
    "definecolor", "hypersetup", "lstset", "setlength", "addtolength", "thanks", "affiliation", "email",
    "affil", "keywords", "sectlabel", "eqlabel", "figlabel", "tablabel", "algolabel", "title", "author",
    "shorttitle", "shortauthors", "received", "accepted", "journalinfo", "submitted", "slugcomment",
)
UNWRAP = (
    "emph", "textbf", "textit", "textrm", "textsc", "texttt", "textsf", "mbox", "hbox", "underline", "url",
    "project", "foreign", "ensuremath", "sffamily", "text", "small", "large", "footnotesize",
)
