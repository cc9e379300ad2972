"""Issue 42 (stop 50): the candidates of a search ranked again by their best sentence window, fused
as one more list (passages.candidate_lists, windows.py)."""

from __future__ import annotations

import pytest

from astro_cli.research.library.parse import Chunk, store_chunks
from astro_cli.research.library.service import Library
from astro_cli.research.search.passages import search_library
from astro_cli.research.search.windows import best_window, idf, sentences
from tests.library_support import make_app

FILLER = "The dust temperature of the field was recorded with the bolometer array on night {n}."


@pytest.fixture
def library(tmp_path):
    app = make_app(tmp_path / "ws")
    library = Library.of(app)
    library.upsert_paper({"id": "cmb", "title": "Cosmological parameters"})
    chunks = [Chunk("2 Data", 1, n, FILLER.format(n=n)) for n in range(20)]
    # A short chunk with the question's words far apart, and a long one that states the value once.
    chunks.append(Chunk("3 Likelihoods", 2, 20, "The optical bench was aligned first. Cables were then checked. "
                        "The spare parts were counted. The depth of the archive was set. The lowE files were kept."))
    chunks.append(Chunk("3 Likelihoods", 2, 21, " ".join(
        [f"The noise model of map {n} was checked against simulations and found adequate." for n in range(12)]
        + ["From lowE alone the optical depth is 0.0506 ± 0.0086."])))
    store_chunks(library, "cmb", chunks, "pdf", 6)
    yield library
    app.close()


def test_the_chunk_whose_sentences_hold_the_question_is_first_by_its_window(library):
    # `library search --json` shows each hit's rank in every fused list: the long chunk that states
    # the value is first by its best two sentences, whatever BM25 (which favours the short one) says.
    result = search_library(library, ["What optical depth does lowE give?", "lowE optical depth"], k=3)
    ranks = [(hit.text[:20], hit.ranks) for hit in result.hits]
    value = next(hit for hit in result.hits if "0.0506" in hit.text)
    spread = next(hit for hit in result.hits if hit.text.startswith("The optical bench"))
    assert value.ranks["window"] == 1 and spread.ranks["window"] > 1, ranks
    assert result.hits.index(value) <= 1


def test_a_long_chunk_is_scored_by_its_best_sentences():
    weights = idf({"optical": 2, "depth": 2, "lowE": 1}, 100)
    long = " ".join(["The optical design of the focal plane was described before."] * 6
                    + ["The depth of the survey is limited by noise."] * 6
                    + ["From lowE alone the optical depth is 0.0506 ± 0.0086."])
    spread = "The optical bench. " + "Other words here. " * 8 + "The depth. Nothing on lowE until here: lowE."
    assert len(sentences(long)) == 13
    assert best_window(long, weights) == pytest.approx(sum(weights.values()))  # all three words in one window
    assert best_window(spread, weights) < best_window(long, weights)  # the words far apart score less

