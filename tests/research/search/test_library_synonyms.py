"""Issue 30: query expansion with the field's words (research/search/synonyms.py), an opt-in stage
(`library.synonyms`, off by default: it helped the tuning set, not the held-out one). A
researcher's everyday phrase finds the passage in the paper's terms when it is on."""

from __future__ import annotations

from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from astro_cli.research.search.passages import search_library
from astro_cli.research.search.synonyms import expansion
from tests.library_support import add_paper, make_app

INSTALL = "The easiest way to install emcee is using"


def test_an_everyday_phrase_finds_the_passage_in_the_papers_terms(tmp_path):
    app = make_app(tmp_path / "ws")
    add_paper(app, "1202.3665")
    parse_paper(Library.of(app), "1202.3665")
    question = "How do I get the package onto my computer?"
    plain = search_library(Library.of(app), question, k=3, synonyms=False)
    assert not any(INSTALL in hit.text for hit in plain.hits)  # the question shares no word with the passage
    assert search_library(Library.of(app), question, k=3).hits[0].ranks.get("bm25:synonyms") is None  # off by default
    expanded = search_library(Library.of(app), question, k=3, synonyms=True)
    found = [hit for hit in expanded.hits if INSTALL in hit.text]  # in the top 3, as the question set counts
    assert found and found[0].ranks.get("bm25:synonyms") == 1
    app.close()
    on = make_app(tmp_path / "ws", **{"library.synonyms": True})
    assert any(INSTALL in hit.text for hit in search_library(Library.of(on), question, k=3).hits)
    on.close()


def test_the_table_adds_only_terms_the_question_lacks():
    assert expansion("How much light do these planets bounce back?") == "albedo reflected"
    assert expansion("Where should the chains start?") == "walkers ensemble initialization initialize"
    assert expansion("Where should the chains of walkers start?") == "ensemble initialization initialize"  # walkers: there
    assert expansion("acceptance fraction of the sampler") is None
