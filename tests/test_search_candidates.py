"""Issue 42 (stop 50): the candidates of a search ranked again by their section path and by their
best sentence window, fused as two more lists (passages.candidate_lists, windows.py)."""

from __future__ import annotations

import pytest

from astro_cli.research.library.parse import Chunk, store_chunks
from astro_cli.research.library.service import Library
from astro_cli.research.search.passages import search_library
from astro_cli.research.search.windows import best_window, idf, path_ranking, sentences
from tests.library_support import make_app

FILLER = "The dust temperature of the field was recorded with the bolometer array on night {n}."


@pytest.fixture
def library(tmp_path):
    app = make_app(tmp_path / "ws")
    library = Library(app)
    library.upsert_paper({"id": "cmb", "title": "Cosmological parameters"})
    chunks = [Chunk("2 Data", 1, n, FILLER.format(n=n)) for n in range(20)]
    # Both chunks hold every word of the question; BM25 prefers the shorter one, from the lensing section.
    chunks.append(Chunk("5 Lensing", 3, 20, "Lensing is tested against the recombination history of the damping tail."))
    chunks.append(Chunk("7.7.1 Eigenmodes", 5, 21, "The standard recombination history is tested with principal "
                        "components of the free-electron fraction, as in earlier work, with two other methods."))
    outline = [("2 Data", 1), ("5 Lensing", 3), ("7 Extensions", 4), ("7.7 Recombination history", 5),
               ("7.7.1 Eigenmodes", 5)]
    store_chunks(library, "cmb", chunks, "pdf", 6, outline)
    yield library
    app.close()


def test_a_question_naming_a_section_subject_ranks_that_section_first(library):
    # The chunk's own heading ("7.7.1 Eigenmodes") is indexed, its parent's ("7.7 Recombination
    # history") was not: the lensing paragraph came first.
    phrasings = ["How is the recombination history tested?", "tests of the recombination history"]
    result = search_library(library, phrasings, k=3)
    assert result.hits[0].section == "7.7.1 Eigenmodes"
    assert result.hits[0].ranks["path"] == 1
    assert result.hits[1].section == "5 Lensing" and "path" not in result.hits[1].ranks


def test_a_long_chunk_is_scored_by_its_best_sentences():
    weights = idf({"optical": 2, "depth": 2, "lowE": 1}, 100)
    long = " ".join(["The optical design of the focal plane was described before."] * 6
                    + ["The depth of the survey is limited by noise."] * 6
                    + ["From lowE alone the optical depth is 0.0506 ± 0.0086."])
    spread = "The optical bench. " + "Other words here. " * 8 + "The depth. Nothing on lowE until here: lowE."
    assert len(sentences(long)) == 13
    assert best_window(long, weights) == pytest.approx(sum(weights.values()))  # all three words in one window
    assert best_window(spread, weights) < best_window(long, weights)  # the words far apart score less


def test_path_ranking_weighs_the_rarer_words():
    weights = idf({"recombination": 1, "history": 40}, 100)
    ranked = path_ranking({1: "3 Data history", 2: "7 Extensions › 7.7 Recombination history", 3: "2 Data"}, weights)
    assert [cid for cid, _ in ranked] == [2, 1]
