"""The query plan on a library large enough that common words would cost more than they tell."""

from __future__ import annotations

import pytest

from astro_cli.research.library.parse import Chunk, store_chunks
from astro_cli.research.library.service import Library
from astro_cli.research.search.fts import parse_question, plan_query
from astro_cli.research.search.passages import format_hits, search_library, text_ranking
from tests.library_support import make_app

COMMON = "The observing time and the dust temperature of the telescope were recorded for the field."


@pytest.fixture
def app(tmp_path):
    context = make_app(tmp_path / "ws")
    library = Library.of(context)
    library.upsert_paper({"id": "survey", "title": "A survey"})
    chunks = [Chunk("2 Data", 1, n, f"{COMMON} Field {n}.") for n in range(300)]
    chunks[17] = Chunk("3 Results", 2, 17, f"{COMMON} The bolometer saw a cryogenic glitch in field 17.")
    chunks[211] = Chunk("3 Results", 3, 211, "A cryogenic pump failed; no bolometer data that night.")
    chunks[250] = Chunk("4 Discussion", 4, 250, "Cryogenic systems need care.")
    store_chunks(library, "survey", chunks, "pdf", 4)
    yield context
    context.close()


def test_words_are_counted_with_the_index_stemmer(app):
    frequencies = Library.of(app).store.document_frequencies(["temperatures", "Cryogenic", "bolometer", "quasar"])
    assert frequencies == {"temperatures": 298, "cryogenic": 3, "bolometer": 2, "quasar": 0}


def test_common_words_are_left_out_when_they_exceed_the_budget(app):
    question = "time and temperature of the cryogenic bolometer"
    plan = plan_query(Library.of(app).store, question, budget=100)
    assert plan.dropped == ["time", "temperature"]
    assert plan.expression.fts5() == '("cryogenic" AND "bolometer") OR "cryogenic bolometer"'
    assert plan.fallback.fts5() == '"cryogenic" OR "bolometer" OR "cryogenic bolometer"'
    assert plan.expression.websearch() == '"cryogenic" "bolometer" or "cryogenic bolometer"'
    # Within budget, every word is searched, exactly as on a small library.
    assert plan_query(Library.of(app).store, question, budget=10_000).dropped == []
    assert plan_query(Library.of(app).store, question, budget=10_000).fallback is None


def test_the_rarest_words_together_rank_first_and_the_fallback_widens(app):
    plan = plan_query(Library.of(app).store, "time and temperature of the cryogenic bolometer", budget=100)
    strict = text_ranking(Library.of(app), plan.expression, 50, None)
    texts = {cid: t for cid, t in app.db.execute("SELECT id, text FROM chunks").fetchall()}
    assert len(strict) == 2 and all("bolometer" in texts[c] and "ryogenic" in texts[c] for c, _ in strict)
    wide = text_ranking(Library.of(app), plan.fallback, 50, None)
    assert len(wide) == 3 and {c for c, _ in strict} <= {c for c, _ in wide}


def test_search_names_the_words_it_left_out(app):
    result = search_library(Library.of(app), "which telescope field had a cryogenic glitch")
    assert result.dropped == []  # 300 chunks: small enough to search every word
    assert "glitch in field 17" in result.hits[0].text
    result.dropped = ["telescope", "field"]
    assert "(Words too common in the library to search by: telescope, field.)" in format_hits("q", result)


def test_the_counts_follow_changes_to_the_index(app):
    before = Library.of(app).store.document_frequencies(["bolometer"])
    library = Library.of(app)
    library.upsert_paper({"id": "second"})
    store_chunks(library, "second", [Chunk("1", 1, 0, "Another bolometer.")], "pdf", 1)
    assert Library.of(app).store.document_frequencies(["bolometer"]) == {"bolometer": before["bolometer"] + 1}


def test_pairs_only_join_words_adjacent_in_the_question():
    parsed = parse_question('dust temperature of "cold clumps" and dust mass')
    assert parsed.words == ["dust", "temperature", "mass"] and parsed.phrases == ["cold clumps"]
    assert parsed.pairs == [("dust", "temperature"), ("dust", "mass")]
