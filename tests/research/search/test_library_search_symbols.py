"""Issue 42: a symbol a researcher types as one word (`H0`, `AGN1`, `21cm`) finds the passage that
writes it in LaTeX (`$H_0$`, `A_{\\mathrm{AGN} 1}`) or with a space: the index splits those into two
tokens, so the question's one token never met them. The real astro process, keywords only."""

from __future__ import annotations

import json

from tests.conftest import base_env

PAPER = r"""\documentclass{aa}
\title{Walrus expansion}
\begin{document}
\section{Expansion}
We measure $H_0 = 67.4 \pm 0.5$ from the walrus sample alone.
\section{Feedback}
The feedback strength $A_{\mathrm{AGN} 1}$ scales the energy per unit accretion.
\section{Radio}
Intensity mapping at 21 cm needs a clean foreground model.
\section{Other}
A passage about the walrus colony and its cosmology, with neither symbol.
\end{document}
"""


def test_a_symbol_typed_as_one_word_finds_the_passage_that_typesets_it(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    (workspace / "walrus.tex").write_text(PAPER)
    added = run_astro(["library", "add", "./walrus.tex", "--year", "2024"], env)
    assert added.returncode == 0, added.stderr
    for question, wanted in (("H0?", "H_0 = 67.4"), ("What does AGN1 scale?", "A_{\\mathrm{AGN} 1}"),
                             ("21cm foregrounds", "21 cm needs")):
        result = run_astro(["library", "search", question, "--json", "-k", "3"], env)
        hits = json.loads(result.stdout)["hits"]
        assert hits and wanted in hits[0]["text"], (question, result.stdout[:300])
