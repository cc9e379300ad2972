"""Issue 45: a paper a tool listed travels as a `SourceEntry` record from the tool to the claim ledger; sessions
stored by older astro versions (the entry as a plain dict, in any shape they wrote) still load and check the same."""

from __future__ import annotations

import json

import pytest

from astro_cli.citations.check import check_answer
from astro_cli.citations.ledger import CitationLedger
from astro_cli.research.found import FoundPaper
from astro_cli.research.source_entry import ListedPapers, SourceEntry
from astro_cli.research.sources.merge import source_entry
from astro_cli.research.sources.remote_search import result_data
from tests.library_support import make_app

# What an older astro stored in a search_papers result's data: the full author list, arXiv's category name,
# Crossref's notice, and a key this version does not know (kept as stored).
OLD_ENTRY = {"id": "2013PASP..125..306F", "title": "emcee: The MCMC Hammer", "bibcode": "2013PASP..125..306F",
             "arxiv_id": "1202.3665", "doi": None, "url": None, "year": 2013,
             "authors": ["Foreman-Mackey, D.", "Hogg, D. W.", "Lang, D.", "Goodman, J."],
             "primary_category": "astro-ph.IM", "journal": "PASP", "pub_year": "2013",
             "updates": [{"type": "retraction", "year": 2014, "doi": "10.1086/x"}], "catalogue": False}


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path / "ws")
    yield app
    app.close()


def _store_old_session(app, sources: list[dict]) -> str:
    """A session as an older astro stored it in SQLite: one search_papers call and its result's data."""
    session_id = app.sessions.create(str(app.workspace.root), "old")
    call = {"id": "c1", "type": "function", "function": {"name": "search_papers", "arguments": "{}"}}
    app.sessions.append(session_id, {"role": "assistant", "content": "", "tool_calls": [call]}, turn=1)
    app.sessions.append(session_id, {"role": "tool", "tool_call_id": "c1", "name": "search_papers",
                                     "content": "1 paper"}, turn=1, meta={"ok": True, "data": {"sources": sources}})
    return session_id


def test_an_old_stored_session_still_verifies_its_papers_by_id_and_by_author_year(app):
    session_id = _store_old_session(app, [OLD_ENTRY, {"id": "1202.3665", "arxiv_id": "1202.3665", "doi": "10.1086/670067"}])
    ledger = CitationLedger()
    ledger.load_session(app, session_id)
    [seen] = ledger.papers  # the two listings are one paper; the second filled the DOI the first lacked
    assert seen.entry.title == "emcee: The MCMC Hammer" and seen.entry.ref.doi == "10.1086/670067"
    assert seen.entry.ref.n_authors == 4 and seen.paper_id == "1202.3665"
    checked = check_answer(app, ledger, "Sampling used emcee (Foreman-Mackey et al. 2013; arXiv:1202.3665; "
                                        "doi:10.1086/670067).", False, 0.0)
    assert [c.status for c in checked.citations] == ["verified", "verified", "verified"]
    assert {c.as_dict().get("mark") for c in checked.citations} == {"retracted 2014"}  # the notice still shows


def test_the_entry_round_trips_its_json_and_keeps_keys_it_does_not_know():
    entry = SourceEntry.from_dict(OLD_ENTRY)
    assert entry.pub_year == 2013 and entry.journal == "PASP" and entry.ref.authors[0] == "Foreman-Mackey, D."
    stored = json.loads(json.dumps(entry.as_dict()))
    assert stored["primary_category"] == "astro-ph.IM" and stored["catalogue"] is False
    assert SourceEntry.from_dict(stored) == entry
    assert SourceEntry.from_dict({"title": 5, "authors": "not a list", "updates": "x", "biblio": 3}).as_dict()[
        "authors"] == []  # wrong types are dropped, not raised


def test_a_search_result_is_typed_until_its_json_and_the_ledger_reads_it_back():
    found = FoundPaper.from_record({"arxiv_id": "1001.0012", "title": "Albedos", "year": 2010,
                                    "authors": ["Nicolas B. Cowan", "Eric Agol"], "abstract": "We fit albedos.",
                                    "journal": "ApJ", "sources": ["arxiv"]}).but(id="1001.0012")
    listed = result_data([found])
    assert isinstance(listed, ListedPapers) and listed.sources == (source_entry(found),)
    assert [p.handle for p in listed.passages] == ["1001.0012:abs"]
    ledger = CitationLedger()
    ledger.ingest("search_papers", {}, "1 paper", json.loads(json.dumps(listed.as_dict())), True)
    assert ledger.find("arXiv:1001.0012").entry == source_entry(found)
    assert ledger.passage("1001.0012:abs").ref.short_cite() == "Cowan & Agol 2010"


def test_a_damaged_stored_result_is_passed_over_and_the_rest_of_the_session_still_counts(app):
    """A tool row whose data is not an object (hand-edited, cut short) must not stop the session loading."""
    session_id = _store_old_session(app, [OLD_ENTRY])
    for n, data in enumerate(["not json data", {"sources": "2013PASP..125..306F", "passages": 7},
                              {"subagent": ["x"], "sources": [None, 3]}], start=2):
        call = {"id": f"c{n}", "type": "function", "function": {"name": "search_papers", "arguments": "{}"}}
        app.sessions.append(session_id, {"role": "assistant", "content": "", "tool_calls": [call]}, turn=n)
        app.sessions.append(session_id, {"role": "tool", "tool_call_id": f"c{n}", "name": "search_papers",
                                         "content": "x"}, turn=n, meta={"ok": True, "data": data})
    ledger = CitationLedger()
    ledger.load_session(app, session_id)
    assert [p.paper_id for p in ledger.papers] == ["1202.3665"]
    checked = check_answer(app, ledger, "As in Foreman-Mackey et al. (2013).", False, 0.0)
    assert [c.status for c in checked.citations] == ["verified"]


def test_a_session_stored_before_typed_passages_still_checks_claims_against_what_it_showed(app):
    """An older astro stored rag_search's passages only as frames in the result's text: resuming that
    session must still find them, so a wrong number cited to one is not 'supported' and a right one is."""
    from astro_cli.citations.grounding import ground
    from astro_cli.research.textblock import frame

    shown = frame("We measure a day-side brightness temperature of 1605 K for HD 189733b.", "1001.0012",
                  section="4 Results", page=3, handle="1001.0012:p3:c7")
    session_id = app.sessions.create(str(app.workspace.root), "old")
    call = {"id": "c1", "type": "function", "function": {"name": "rag_search", "arguments": '{"query": "T"}'}}
    app.sessions.append(session_id, {"role": "assistant", "content": "", "tool_calls": [call]}, turn=1)
    app.sessions.append(session_id, {"role": "tool", "tool_call_id": "c1", "name": "rag_search", "content": shown},
                        turn=1, meta={"ok": True, "data": {"sources": [{"id": "1001.0012", "arxiv_id": "1001.0012"}]}})
    ledger = CitationLedger()
    ledger.load_session(app, session_id)
    assert ledger.passage("1001.0012:p3:c7") is not None
    statuses = {}
    for value in ("1605 K", "1905 K"):
        answer = f"The day-side temperature of HD 189733b is {value} [1001.0012:p3:c7]."
        [claim] = ground(ledger, answer, check_answer(app, ledger, answer, False, 0.0)).claims
        statuses[value] = claim.status
    assert statuses == {"1605 K": "supported", "1905 K": "unsupported"}
