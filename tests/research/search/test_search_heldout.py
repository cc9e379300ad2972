"""Issue 30's held-out questions (tests/fixtures/questions: heldout_questions.json on the three
tuning papers, heldout_papers_questions.json on three papers nothing was tuned on), searched over
one library of all six: every literal question finds its passage in the top 3, through the command
line too. Keyword search (vectors off): embedding six papers would take minutes here; the hybrid
figures are in benchmarks/RESULTS.md (bench_search_stages.py)."""

from __future__ import annotations

import json

import pytest

from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from astro_cli.research.search.passages import search_library
from tests.conftest import base_env
from tests.library_support import add_paper, make_app
from tests.question_set import HELDOUT, HELDOUT_PAPERS, answered, load_questions, score

PAPERS = ("1001.0012", "1111.2011", "1202.3665", "1604.08036", "1703.09710", "1905.09831")
QUESTIONS = load_questions(HELDOUT) + load_questions(HELDOUT_PAPERS)
LITERAL = [q for q in QUESTIONS if q.kind == "literal"]
# In the paper's words but for one: "no-circulation limit" where the paper writes "the T_{ε=0} limit".
# Its passage shares "day-side effective temperature significantly above" with it; single words and
# pairs ranked it below passages repeating "circulation" and "limit" (fts.literal_runs).
NO_CIRCULATION = "Which planet has a day-side effective temperature significantly above the no-circulation limit?"


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    root = tmp_path_factory.mktemp("heldout") / "ws"
    app = make_app(root)
    for paper_id in PAPERS:
        add_paper(app, paper_id)
        parse_paper(Library.of(app), paper_id, vectors="none")
    yield app
    app.close()


def test_each_answer_is_one_passage_of_the_paper_asked_about(library):
    assert len([q for q in QUESTIONS if q.paper in PAPERS[3:]]) == 24
    texts = [(r["paper_id"], " ".join(r["text"].split())) for r in library.db.query("SELECT paper_id, text FROM chunks")]
    for question in QUESTIONS:
        for answer in question.answers:
            holders = [paper for paper, text in texts if " ".join(answer.split()) in text]
            assert holders == [question.paper], (question.question, answer)


def test_every_literal_question_finds_its_passage_in_the_top_three(library):
    result = score(LITERAL, lambda q: search_library(Library.of(library), q.question, k=3).hits)
    assert result.missed == [] and result.total == 27


def test_the_three_word_runs_are_what_finds_the_no_circulation_passage(library):
    [question] = [q for q in LITERAL if q.question == NO_CIRCULATION]
    assert answered(search_library(Library.of(library), question.question, k=3).hits, question)
    assert not answered(search_library(Library.of(library), question.question, k=3, literal_runs=False).hits, question)


def test_the_command_line_answers_it_in_the_top_three(library, run_astro, tmp_path):
    [question] = [q for q in LITERAL if q.question == NO_CIRCULATION]
    result = run_astro(["library", "search", NO_CIRCULATION, "-k", "3", "--json"], base_env(tmp_path),
                       cwd=library.workspace.root)
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)["hits"]
    assert any(" ".join(question.answers[0].split()) in " ".join(hit["text"].split()) for hit in hits)
    assert any("literal" in hit["ranks"] for hit in hits)


def test_runs_are_three_content_words_in_a_row_and_skip_words_too_common_to_search():
    from astro_cli.research.search.fts import literal_runs

    runs = literal_runs(NO_CIRCULATION).alternatives
    assert runs == (("day side effective",), ("side effective temperature",), ("effective temperature significantly",))
    assert literal_runs(NO_CIRCULATION, dropped=["Temperature"]).alternatives == (("day side effective",),)
    assert not literal_runs("What is the stretch move?")  # a stop word breaks every run
