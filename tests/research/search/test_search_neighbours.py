"""Issue 42: an answer split over two neighbouring chunks is scored with its neighbour
(retrieval.with_neighbours). The real `astro` process on a Markdown paper, keyword search.

A sentence names what is asked and the next chunk gives the value: on its own the value's chunk
scores no better than any passage using the same words elsewhere, and came after the one that was
stored first; with a tenth of its neighbour's score it comes up."""

from __future__ import annotations

import json

from tests.conftest import base_env

PAPER = """# Galactic winds in a suite of simulations

## 1 Data

The wind speed is v_w = 7.5 in the stacked absorption spectra of the survey.

## 2 Halo catalogues

Haloes are found with a friends-of-friends algorithm and their subhaloes with a second pass over the particles.

## 3 Feedback model

In the feedback model the wind speed set at launch follows the local dark matter velocity dispersion.

## 4 Launching

The wind speed is v_w = 3.5 in units of the dark matter velocity dispersion.
"""


def test_the_chunk_after_the_sentence_that_names_the_answer_comes_up_with_it(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)  # keyword search: vectors off
    (workspace / "winds.md").write_text(PAPER)
    assert run_astro(["library", "add", "./winds.md", "--year", "2021"], env).returncode == 0
    found = run_astro(["library", "search", "How is the wind speed set in the feedback model?", "--json", "-k", "4"],
                      env)
    assert json.loads(found.stdout)["hits"][0]["ranks"].keys() >= {"bm25", "literal"}  # the lists fused
    assert found.returncode == 0, found.stderr
    texts = [" ".join(hit["text"].split()) for hit in json.loads(found.stdout)["hits"]]
    value = next(n for n, text in enumerate(texts) if "v_w = 3.5" in text)
    other = next(n for n, text in enumerate(texts) if "v_w = 7.5" in text)
    assert "wind speed set at launch" in texts[0]
    # the same words on their own; the value that follows the sentence naming it ranks first of the two
    assert value < other, texts


def test_only_a_neighbour_in_the_same_paper_adds_and_ties_keep_their_order():
    from astro_cli.research.search.retrieval import with_neighbours

    ranked = [(1, 1.0), (7, 0.5), (9, 0.5), (4, 0.5)]
    places = {1: ("a", None, 3), 7: ("b", None, 4), 9: ("a", None, 10), 4: ("a", None, 4)}
    # 4 follows 1 in paper a; 7 has order 4 too, but in paper b; 9 has no neighbour in the list
    assert with_neighbours(ranked, places, 0.1) == [(1, 1.05), (4, 0.6), (7, 0.5), (9, 0.5)]
    assert with_neighbours(ranked, places, 0.0) == ranked
