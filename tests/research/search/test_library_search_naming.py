"""Issue 42: a question that names a paper of the library ("in WALRUS, ...") is answered from that
paper, by the question's other words. Before stop 52 the name was one search word among others:
another paper's passage that repeats the asked words came first, and inside the named paper the
passages that repeat its name beat the one that answers. The real astro process, keywords only."""

from __future__ import annotations

import json

from tests.conftest import base_env

NAMED = r"""\documentclass{aa}
\title{The WALRUS survey: Gaussian mocks}
\begin{document}
\section{Introduction}
WALRUS is a survey. The WALRUS fields were chosen so that WALRUS covers the WALRUS targets well.
\section{Simulations}
Our mocks use a softening length of 2 kpc.
\end{document}
"""

OTHER = r"""\documentclass{aa}
\title{Seal simulations}
\begin{document}
\section{Numerics}
The softening length matters: a softening length of 0.5 kpc, the smallest softening length we tried.
\section{Fields}
Our initial fields are Gaussian; a Gaussian field with a Gaussian smoothing of the softening length.
\end{document}
"""


def test_a_question_naming_a_paper_is_answered_from_that_paper(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    for name, text in (("walrus.tex", NAMED), ("seal.tex", OTHER)):
        (workspace / name).write_text(text)
        added = run_astro(["library", "add", f"./{name}", "--year", "2024"], env)
        assert added.returncode == 0, added.stderr
    result = run_astro(["library", "search", "What is the softening length in WALRUS?", "--json", "-k", "3"], env)
    found = json.loads(result.stdout)
    assert "2 kpc" in found["hits"][0]["text"], result.stdout[:600]
    assert {hit["source"] for hit in found["hits"]} == set(found["named_papers"]) and len(found["named_papers"]) == 1
    shown = run_astro(["library", "search", "What is the softening length in WALRUS?", "-k", "3"], env)
    assert "named in the question" in shown.stdout and "2 kpc" in shown.stdout, shown.stdout
    # Not a name: the same word lower-case, a title's word other papers use as much (a topic), or any
    # word when the user chose the paper.
    plain = run_astro(["library", "search", "softening length", "--json", "-k", "3"], env)
    assert json.loads(plain.stdout)["named_papers"] == []
    topic = run_astro(["library", "search", "Are the fields Gaussian?", "--json", "-k", "3"], env)
    assert json.loads(topic.stdout)["named_papers"] == [], topic.stdout[:400]
    chosen = run_astro(["library", "search", "What is the softening length in WALRUS?", "--json", "-k", "3",
                        "--paper", found["hits"][0]["source"]], env)
    assert json.loads(chosen.stdout)["named_papers"] == []
