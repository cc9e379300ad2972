"""Issue 45: a paper as the services found it is one typed record (`FoundPaper`), merged by one stated rule
and stored by `upsert` as it is. The records come from the real parsers of recorded ADS, arXiv and Crossref
answers (tests/fixtures), the library is real SQLite."""

from __future__ import annotations

import json

from astro_cli.research.found import Conflict, FoundPaper
from astro_cli.research.library.service import Library
from astro_cli.research.sources import crossref
from astro_cli.research.sources.merge import merge, source_entry
from tests.library_support import make_app
from tests.research_server import FIXTURES


def _ads() -> FoundPaper:
    return FoundPaper.from_record({
        "id": "1202.3665", "arxiv_id": "1202.3665", "bibcode": "2013PASP..125..306F", "doi": "10.1086/670067",
        "title": "emcee: The MCMC Hammer", "authors": ["Foreman-Mackey, Daniel", "Hogg, David W.", "Lang, Dustin",
                                                        "Goodman, Jonathan"],
        "year": 2013, "citation_count": 7000, "journal": "Publications of the Astronomical Society of the Pacific",
        "volume": "125", "page": "306", "pub_year": 2013, "biblio": {"doctype": "article", "month": "mar"},
        "sources": ["ads"]})


def _arxiv() -> FoundPaper:
    return FoundPaper.from_record({
        "id": "1202.3665", "arxiv_id": "1202.3665", "version": "v4", "bibcode": None, "doi": None,
        "title": "emcee: The MCMC Hammer", "authors": ["Daniel Foreman-Mackey", "David W. Hogg"],
        "year": 2012, "abstract": "We introduce a stable, well tested Python implementation.",
        "citation_count": None, "primary_category": "astro-ph.IM", "biblio": {"comment": "Code at github", "month": "feb"},
        "sources": ["arxiv"]})


def test_two_sources_merge_by_the_stated_rule_and_keep_who_said_what():
    [paper] = merge([_ads()], [_arxiv()])  # ADS first, as search_papers asks it
    assert (paper.id, paper.arxiv_id, paper.bibcode, paper.doi) == (
        "1202.3665", "1202.3665", "2013PASP..125..306F", "10.1086/670067")  # identifiers united
    assert paper.authors[0] == "Foreman-Mackey, Daniel" and len(paper.authors) == 4  # the first service's value
    assert paper.abstract == "We introduce a stable, well tested Python implementation."  # a gap filled
    assert (paper.version, paper.primary_class) == ("v4", "astro-ph.IM")
    assert paper.citation_count == 7000 and paper.sources == ("ads", "arxiv")
    assert dict(paper.biblio) == {"doctype": "article", "month": "mar", "comment": "Code at github"}  # per fact
    assert (paper.said["title"], paper.said["abstract"], paper.said["version"]) == ("ads", "arxiv", "arxiv")
    assert paper.conflicts == (Conflict("year", "arxiv", "2012"),)  # the disagreement is kept, not lost
    # The other order: arXiv's values are kept and ADS's year is the conflict.
    [other] = merge([_arxiv()], [_ads()])
    assert other.year == 2012 and other.conflicts == (Conflict("year", "ads", "2013"),)
    assert other.bibcode == "2013PASP..125..306F" and other.citation_count == 7000


def test_notices_from_crossref_are_united_and_reach_the_library_through_upsert(tmp_path):
    message = json.loads((FIXTURES / "crossref" / "works_10.5555_12345678_updated-by_retraction.json").read_text())["message"]
    notices = crossref.work_to_record(message)
    assert [n.type for n in notices.updates] == ["retraction", "corrigendum"]
    found = _arxiv().but(doi=notices.doi) + notices
    assert found.sources == ("arxiv", "crossref") and found.updates == notices.updates
    assert source_entry(found).updates[0]["type"] == "retraction"  # /sources and the footer carry it
    app = make_app(tmp_path / "ws")
    try:
        library = Library.of(app)
        stored = library.upsert(found, pdf_path=None).paper  # the record itself, no dict in between
        assert (stored.id, stored.title, stored.authors) == ("1202.3665", "emcee: The MCMC Hammer",
                                                             ("Daniel Foreman-Mackey", "David W. Hogg"))
        assert [u["type"] for u in stored.biblio["updates"]] == ["retraction", "corrigendum"]
        again = library.upsert(_ads()).paper  # a later source fills what the row left empty
        assert (again.id, again.bibcode, again.citation_count) == ("1202.3665", "2013PASP..125..306F", 7000)
    finally:
        app.close()


def test_a_record_of_wrong_types_reads_as_absent():
    odd = FoundPaper.from_record({"id": 5, "title": ["not", "a", "string"], "authors": "Smith", "year": "20x1",
                                  "citation_count": True, "updates": "retracted", "sources": ["plugin"]})
    assert (odd.title, odd.authors, odd.year, odd.citation_count, odd.updates) == (None, (), None, None, ())
    assert odd.id == "5" and odd.source == "plugin"
