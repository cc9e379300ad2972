"""Issue 30: DOIs through Crossref when ADS has no token, and Crossref's update relations marking a
retracted or corrected paper in search results, the library and the citation footer. The stand-in
Crossref serves the recorded answer for Crossref's test DOI 10.5555/12345678 (updated-by: a
retraction in 2009, a corrigendum in 2018)."""

from __future__ import annotations

import json

import pytest

from astro_cli.citations.footer import footer_parts
from astro_cli.research.found import FoundPaper
from astro_cli.research.sources import crossref
from astro_cli.research.sources.http import ServiceError
from astro_cli.research.sources.remote_search import format_for_model, search_papers
from astro_cli.research.sources.web import Web
from tests.research_server import FIXTURES, research, research_app  # noqa: F401 - fixtures

TEST_DOI = "10.5555/12345678"
RECORDED = json.loads((FIXTURES / "crossref" / "works_10.5555_12345678_updated-by_retraction.json").read_text())


@pytest.fixture
def no_ads(research_app, monkeypatch):  # noqa: F811
    monkeypatch.delenv("ADS_API_TOKEN")
    return research_app


def test_the_recorded_notices_give_the_mark():
    record = crossref.work_to_record(RECORDED["message"])
    assert record.title == "Toward a Unified Theory of High-Energy Metaphysics: Silly String Theory"
    assert record.authors == ("Carberry, Josiah",) and record.year == 2008
    assert [(u.type, u.year) for u in record.updates] == [("retraction", 2009), ("corrigendum", 2018)]
    assert crossref.status_mark(record.updates) == "retracted 2009; corrected 2018"
    assert crossref.status_mark(()) == ""


def test_a_doi_without_ads_resolves_through_crossref_and_shows_the_retraction(no_ads, research):  # noqa: F811
    outcome = search_papers(Web.of(no_ads), f"doi:{TEST_DOI}")
    hits = research.hits("/crossref/works/")
    assert [h.path for h in hits] == ["/crossref/works/10.5555%2F12345678"]
    assert research.hits("/api/query") == [] and research.hits("/v1/") == []  # neither arXiv nor ADS
    text = format_for_model(outcome)
    assert "[1] doi 10.5555/12345678 · 2008 · 11 citations · RETRACTED 2009; CORRECTED 2018" in text
    assert "Resolved through Crossref (no ADS_API_TOKEN)" in text


def test_an_unknown_doi_is_no_papers_and_a_bibcode_is_one_sentence(no_ads, research):  # noqa: F811
    outcome = search_papers(Web.of(no_ads), "doi:10.1086/670067")
    assert outcome.records == [] and format_for_model(outcome).startswith("No papers found for: doi:10.1086/670067")
    with pytest.raises(ServiceError, match=r"^Looking up the bibcode 2013PASP\.\.125\.\.306F needs NASA ADS"):
        search_papers(Web.of(no_ads), "bibcode:2013PASP..125..306F")


def test_a_downloaded_paper_keeps_its_notices_and_the_library_lists_the_mark(no_ads, research, monkeypatch):  # noqa: F811
    from astro_cli.research.library.service import Library

    record = FoundPaper(id="9999.00001", arxiv_id="9999.00001", doi=TEST_DOI, title="Silly String Theory",
                        authors=("Josiah Carberry",), year=2008)
    record = crossref.attach_updates(Web.of(no_ads), record)  # what download.resolve does for a journal DOI
    assert [u.type for u in record.updates] == ["retraction", "corrigendum"]
    Library.of(no_ads).upsert_paper(record)
    from typer.testing import CliRunner

    from astro_cli.cli import app

    monkeypatch.chdir(no_ads.workspace.root)
    monkeypatch.setenv("COLUMNS", "250")  # one line per row
    result = CliRunner().invoke(app, ["library", "list"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "RETRACTED 2009; CORRECTED 2018" in " ".join(result.output.split())


def test_a_crossref_outage_costs_only_the_mark(no_ads, research):  # noqa: F811
    research.fail("/crossref/", 503)
    record = FoundPaper(doi=TEST_DOI)
    assert crossref.attach_updates(Web.of(no_ads), record) == record
    crossref.attach_updates(Web.of(no_ads), FoundPaper(doi="10.48550/arXiv.1202.3665"))  # arXiv's DOIs are never asked
    assert len(research.hits("/crossref/")) == 1


def test_the_citation_footer_names_a_retracted_source():
    from astro_cli.citations.check import Citation
    from astro_cli.citations.extract import Cited

    cited = Cited(ident=TEST_DOI, kind="doi")  # type: ignore[call-arg]
    record = {"biblio": {"updates": [n.as_dict() for n in crossref.updates(RECORDED["message"])]}}
    entry = Citation(cited, "verified", "Silly String Theory", TEST_DOI, record).as_dict()
    assert entry["mark"] == "retracted 2009; corrected 2018"
    head, unverified = footer_parts([entry, {"id": "1001.0012", "kind": "arxiv", "status": "verified"}])
    assert head == "sources: 2 verified · 10.5555/12345678 retracted 2009; corrected 2018"
    assert unverified == []


def test_with_ads_a_looked_up_paper_is_checked_and_an_unknown_doi_falls_back_to_crossref(research_app, research):  # noqa: F811
    outcome = search_papers(Web.of(research_app), "doi:10.1086/670067")  # ADS knows emcee; Crossref has no notice
    assert [r.bibcode for r in outcome.records] == ["2013PASP..125..306F"]
    assert [h.path for h in research.hits("/crossref/")] == ["/crossref/works/10.1086%2F670067"]
    assert "RETRACTED" not in format_for_model(outcome)
    outcome = search_papers(Web.of(research_app), f"doi:{TEST_DOI}")  # ADS has no record of it: Crossref has
    assert [h.query["q"][0] for h in research.hits("/v1/search/query")][-1] == f"doi:{TEST_DOI}"
    assert "RETRACTED 2009; CORRECTED 2018" in format_for_model(outcome)
