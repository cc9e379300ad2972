"""Issue 42, stop 54: feedback from the first results (research/search/feedback.py). The passage that
answers a question in other words shares the topic's words with the passages the question does find;
those words, searched as one more list, bring it in. Before stop 54 such a passage shared no word
with the question and was not found at all."""

from __future__ import annotations

import json

from astro_cli.research.search.feedback import feedback_words
from tests.conftest import base_env

PAPER = r"""\documentclass{aa}
\title{Foregrounds of the sky maps}
\begin{document}
\section{Foreground removal}
The thermal dust foreground of the Galactic plane is removed with the Commander component separation,
and the synchrotron template is taken from the Haslam survey.
\section{Residuals}
After the Commander component separation with the Haslam synchrotron template, what is left of the
emission from grains is below 0.3 microkelvin.
\section{Lensing}
The lensing potential is reconstructed from the temperature maps with a quadratic estimator.
\section{Clusters}
Sunyaev-Zeldovich clusters are masked before the power spectrum is measured.
\end{document}
"""


def test_a_passage_answering_in_other_words_is_found_through_the_first_results(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)  # keywords alone: feedback needs no vectors
    (workspace / "sky.tex").write_text(PAPER)
    added = run_astro(["library", "add", "./sky.tex", "--year", "2024"], env)
    assert added.returncode == 0, added.stderr
    result = run_astro(["library", "search", "How much thermal dust foreground remains in the Galactic plane?",
                        "--json", "-k", "3"], env)
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)["hits"]
    assert "Commander component separation," in hits[0]["text"]  # the question's own words still rank first
    answer = [hit for hit in hits if "0.3 microkelvin" in hit["text"]]
    assert answer, [hit["text"] for hit in hits]
    assert set(answer[0]["ranks"]) == {"bm25:feedback"}  # found by the feedback list alone


def test_feedback_words_are_the_first_passages_rare_words_the_question_lacks():
    frequencies = {"haslam": 1, "commander": 2, "template": 2, "maps": 40, "foreground": 3}
    words = feedback_words(["The foreground maps: Commander and the Haslam template.", "maps maps template"],
                           ["foregrounds"], lambda ws: {w: frequencies.get(w, 0) for w in ws}, chunks=50, n=3)
    assert "foreground" not in words  # the question's word (compared by its stem) is not added again
    assert "maps" not in words  # common in the library: worth little
    assert words[0] == "template" and set(words) == {"template", "haslam", "commander"}
    assert feedback_words([], ["x"], lambda ws: {}, chunks=10) == []
