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


TYPESET = r"""\documentclass{aa}
\title{Walrus parameters}
\begin{document}
\section{Amplitude}
The primordial amplitude of the walrus spectrum is $A_{\rm s} = (2.1 \pm 0.3)\times 10^{-9}$.
\section{Matter}
The walrus density gives $\Omega_{\mathrm{m}} = 0.315 \pm 0.007$.
\section{Model}
The $\Lambda$CDM model fits every walrus spectrum.
\section{Other}
Walruses are preferred as the colony grows, as one would expect of it, as it is.
\end{document}
"""


def test_a_symbol_typed_as_plain_text_finds_its_typeset_form(run_astro, workspace, tmp_path):
    """`As` (a stop word as a word: "as"), `Omega_m` and `lambdaCDM` as a researcher types them, against
    `A_{\\rm s}`, `\\Omega_{\\mathrm{m}}` and `$\\Lambda$CDM`: the index holds the font command and splits the
    symbol into tokens, so before issue 42's stop 52 the first found only the passage full of "as",
    the others nothing."""
    env = base_env(tmp_path)
    (workspace / "params.tex").write_text(TYPESET)
    added = run_astro(["library", "add", "./params.tex", "--year", "2024"], env)
    assert added.returncode == 0, added.stderr
    for question, wanted in (("What is the constraint on As with lowE?", "A_{\\rm s} = (2.1"),
                             ("What is Omega_m?", "\\Omega_{\\mathrm{m}} = 0.315"),
                             ("Is lambdaCDM preferred?", "CDM model fits")):
        result = run_astro(["library", "search", question, "--json", "-k", "3"], env)
        hits = json.loads(result.stdout)["hits"]
        assert hits and wanted in hits[0]["text"], (question, result.stdout[:300])
