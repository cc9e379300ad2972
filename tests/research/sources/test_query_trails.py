"""Issue 30: ADS query syntax parsed and sent right, asserted on what the stand-in arXiv and ADS
receive (tests/research_server.py); the six translation bugs of the issue, then bad input."""

from __future__ import annotations

import pytest

from astro_cli.research.sources.web import Web

try:
    from astro_cli.research.sources.arxiv_query import arxiv_author, translate
except ImportError:
    arxiv_author = translate = None
from astro_cli.research.sources.http import ServiceError
from astro_cli.research.sources.remote_search import search_papers
from tests.research_server import research, research_app  # noqa: F401 - fixtures


def _arxiv_queries(server) -> list[str]:
    return [hit.query.get("search_query", [""])[0] for hit in server.hits("/api/query")]


def _ads_queries(server) -> list[str]:
    return [hit.query["q"][0] for hit in server.hits("/v1/search/query")]


@pytest.mark.parametrize("query", [
    "citations(bibcode:2013PASP..125..306F)", "references(bibcode:2013PASP..125..306F)",
    'similar(abs:"hot Jupiter albedo")', "trending(exoplanet atmospheres)",
    'topn(10, "hot Jupiter", citation_count desc)', "citations(author:\"Agol, E\") year:2020",
])
def test_1_operators_go_to_ads_alone_and_arxiv_is_left_out_with_one_sentence(research_app, research, query):  # noqa: F811
    outcome = search_papers(Web.of(research_app), query, rows=5)
    assert research.hits("/api/query") == []  # no unrelated arXiv keyword matches merged in
    assert _ads_queries(research) == [query]
    name = query.split("(")[0]
    assert [n for n in outcome.notes if "arXiv" in n] == [
        next(n for n in outcome.notes if n.startswith(f"arXiv was not searched: {name}() is an ADS operator"))]


def test_1_an_operator_without_an_ads_token_is_one_sentence(research_app, research, monkeypatch):  # noqa: F811
    monkeypatch.delenv("ADS_API_TOKEN")
    with pytest.raises(ServiceError, match=r"^citations\(\) is an ADS operator .* no ADS_API_TOKEN is set"):
        search_papers(Web.of(research_app), "citations(bibcode:2013PASP..125..306F)")
    assert research.requests == []


def test_2_exact_match_author_is_an_author_search(research_app, research):  # noqa: F811
    search_papers(Web.of(research_app), '=author:"Agol, E"', source="arxiv")
    search_papers(Web.of(research_app), '=author:"Agol, E"', source="ads")
    assert _arxiv_queries(research) == ["au:Agol_E"]
    assert _ads_queries(research) == ['=author:"Agol, E"']


@pytest.mark.parametrize("quoted", ["“Agol, E”", "„Agol, E“", "«Agol, E»", "″Agol, E″"])
def test_3_curly_quotes_are_quotes(research_app, research, quoted):  # noqa: F811
    search_papers(Web.of(research_app), f"author:{quoted} albedo", rows=3)
    assert _arxiv_queries(research) == ["au:Agol_E AND all:albedo"]
    assert _ads_queries(research) == ['author:"Agol, E" albedo']  # ADS gets ASCII quotes too


def test_4_an_arxiv_identifier_is_looked_up_on_arxiv_by_id(research_app, research):  # noqa: F811
    outcome = search_papers(Web.of(research_app), "arXiv:1111.2011", rows=3)
    hits = research.hits("/api/query")
    assert [h.query.get("id_list") for h in hits] == [["1111.2011"]]
    assert "1111.2011" in [r.arxiv_id for r in outcome.records]
    assert outcome.notes == []  # nothing was left out, so nothing is said


def test_4_a_doi_or_bibcode_goes_to_ads_without_a_misleading_note(research_app, research):  # noqa: F811
    for query in ("doi:10.1086/670067", "bibcode:2013PASP..125..306F", "https://doi.org/10.1086/670067"):
        outcome = search_papers(Web.of(research_app), query, rows=3)
        assert [r.bibcode for r in outcome.records] == ["2013PASP..125..306F"], query
        assert outcome.notes == [], query
    assert research.hits("/api/query") == []
    assert _ads_queries(research)[-1] == 'identifier:"10.1086/670067"'  # a pasted URL becomes the DOI


def test_a_colon_in_prose_is_a_word_and_an_empty_field_one_sentence():
    assert translate("Review: hot Jupiters").text == "all:Review AND all:hot AND all:Jupiters"
    with pytest.raises(ValueError, match=r"^The field 'author:' is followed by nothing"):
        translate("author: Agol")


def test_4_an_arxiv_url_or_arxiv_bibcode_is_an_arxiv_id():
    assert translate("https://arxiv.org/abs/1111.2011v2").ids == ["1111.2011v2"]
    assert translate("bibcode:2012arXiv1202.3665F").ids == ["1202.3665"]
    assert translate("10.48550/arXiv.1202.3665").ids == ["1202.3665"]


def test_5_accented_authors_are_folded_to_arxivs_spelling(research_app, research):  # noqa: F811
    outcome = search_papers(Web.of(research_app), 'author:"Tešanović, Z"', source="arxiv")
    assert _arxiv_queries(research) == ["au:Tesanovic_Z"]
    assert [r.arxiv_id for r in outcome.records] == ["1111.2011"]


@pytest.mark.parametrize(("name", "arxiv"), [
    ("Eric Agol", "Agol_E"), ("Agol, E", "Agol_E"), ("E. Agol", "Agol_E"), ("Agol E", "Agol_E"),
    ("Tešanović, Zlatko", "Tesanovic_Z"), ("Adrian Del Maestro", "Del_Maestro_A"), ("Del Maestro, A.", "Del_Maestro_A"),
    ("Jan van der Berg", "van_der_Berg_J"), ("Müller, Anna-Lena", "Muller_A_L"), ("Agol", "Agol"),
])
def test_5_author_names_in_arxivs_form(name, arxiv):
    assert arxiv_author(name) == arxiv


def test_5_a_first_last_name_is_sent_surname_first(research_app, research):  # noqa: F811
    search_papers(Web.of(research_app), 'author:"Eric Agol"', source="arxiv")
    assert _arxiv_queries(research) == ["au:Agol_E"]


def test_6_ads_year_finds_a_paper_submitted_the_year_before(research_app, research):  # noqa: F811
    # 1111.2011 was submitted in November 2011 and published in Phys. Rev. B in 2012.
    outcome = search_papers(Web.of(research_app), 'author:"Tesanovic, Z" year:2012', source="arxiv")
    assert _arxiv_queries(research) == ["au:Tesanovic_Z AND submittedDate:[201101010000 TO 201212312359]"]
    assert [r.arxiv_id for r in outcome.records] == ["1111.2011"]
    # ... and its journal year keeps it out of 2011, though arXiv has it as submitted then
    outcome = search_papers(Web.of(research_app), "author:\"Tesanovic, Z\"", source="arxiv", year_from=2011, year_to=2011)
    assert _arxiv_queries(research)[-1] == "au:Tesanovic_Z AND submittedDate:[201001010000 TO 201112312359]"
    assert outcome.records == []


@pytest.mark.parametrize(("query", "sentence"), [
    ('author:"Agol, E albedo', "The query has an unbalanced quote (opened at character 8); close the phrase or "
                               "remove the quote."),
    ("hot Jupiter (albedo OR recirculation", "The query has an unbalanced parenthesis: a '(' is never closed."),
    ("hot Jupiter albedo)", "The query has an unbalanced parenthesis: a ')' closes nothing."),
    ("citations(bibcode:2013PASP..125..306F", "The query has an unbalanced parenthesis: a '(' is never closed."),
    ("autor:Agol albedo", "'autor:' is not an ADS search field; use author:, title:, abs:, year:, bibcode:, doi:, "
                          "arXiv: or full: (or plain words)."),
    ("albedo OR", "The query has an operator (AND, OR, NOT) or '()' with nothing on one side."),
    ("hot " * 500, "The query is 1,999 characters long; search takes at most 1,000: name the key terms, authors or "
                   "identifiers instead of pasting a passage."),
])
def test_bad_queries_are_one_sentence_and_no_request(research_app, research, query, sentence):  # noqa: F811
    with pytest.raises(ServiceError) as caught:
        search_papers(Web.of(research_app), query)
    assert str(caught.value) == sentence
    assert research.requests == []
