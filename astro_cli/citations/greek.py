"""Greek letters as the field spells them in names (`α Cen` = `alpha Cen`), for the name checks."""

from __future__ import annotations

import re

GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon", "ζ": "zeta",
         "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi",
         "ο": "omicron", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi",
         "χ": "chi", "ψ": "psi", "ω": "omega"}
_GREEK = re.compile("|".join(GREEK))
# capitals too, for symbols (`Γ_a` is LaTeX's `\Gamma_a`): a name and a symbol read alike
SYMBOLS = str.maketrans({**{k: f" {v}" for k, v in GREEK.items()}, **{
    "Γ": " Gamma", "Δ": " Delta", "∆": " Delta", "Θ": " Theta", "Λ": " Lambda", "Ξ": " Xi", "Π": " Pi", "Σ": " Sigma",
    "Φ": " Phi", "Ψ": " Psi", "Ω": " Omega"}})
NAMES = frozenset(GREEK.values()) | {"gamma", "delta", "theta", "lambda", "xi", "pi", "sigma", "phi", "psi", "omega"}


def spell_greek(text: str) -> str:
    """Greek letters as their names (`α Cen` -> `alpha Cen`)."""
    return _GREEK.sub(lambda m: GREEK[m.group(0)], text) if _has_greek(text) else text


def _has_greek(text: str) -> bool:
    return any("\u0370" <= ch <= "\u03ff" for ch in text)
