"""Issue 15: the ADS query syntax astro documents, translated to arXiv's search_query, with what
arXiv cannot express named in the result notes (the stand-in arXiv records what it was sent)."""

from __future__ import annotations

import pytest

from astro_cli.research.sources.arxiv_query import translate
from astro_cli.research.sources.remote_search import search_papers
from astro_cli.research.sources.web import Web
from tests.research_server import research, research_app  # noqa: F401 - fixtures

README_EXAMPLE = 'author:"Agol, E" abs:"hot Jupiter" property:refereed'


@pytest.mark.parametrize(("query", "arxiv", "dropped"), [
    (README_EXAMPLE, 'au:Agol_E AND abs:"hot Jupiter"', ["property:refereed"]),
    ("hot Jupiter (albedo OR recirculation) -HD209458",
     "all:hot AND all:Jupiter AND (all:albedo OR all:recirculation) ANDNOT all:HD209458", []),
    ("albedo NOT title:review year:2010-2015",
     # issue 30: ADS's year is publication, arXiv's date submission: the window opens a year early
     "all:albedo AND submittedDate:[200901010000 TO 201512312359] ANDNOT ti:review", []),
    ("-HD209458 albedo", "all:albedo ANDNOT all:HD209458", []),  # arXiv cannot open with ANDNOT
    ('author:("Cowan, N" OR "Del Maestro, A.") year:[2010 TO 2012]',
     "(au:Cowan_N OR au:Del_Maestro_A) AND submittedDate:[200901010000 TO 201212312359]", []),
    ("bibstem:ApJ property:refereed citation_count:[10 TO 100]", "",
     ["bibstem:ApJ", "property:refereed", "citation_count:[10 TO 100]"]),
    ("cat:astro-ph.EP AND ti:albedo", "cat:astro-ph.EP AND ti:albedo", []),  # arXiv's own syntax
])
def test_translation(query, arxiv, dropped):
    result = translate(query)
    assert (result.text, result.dropped) == (arxiv, dropped)


def test_first_author_is_searched_among_all_authors_and_said_so():
    result = translate('author:"^Agol, E" albedo')
    assert result.text == "au:Agol_E AND all:albedo"
    assert result.notes() == ['arXiv cannot search by first author: author:"^Agol, E" was searched among all authors.']


def test_search_papers_sends_the_translation_and_names_what_was_dropped(research_app, research):  # noqa: F811
    outcome = search_papers(Web.of(research_app), README_EXAMPLE, source="arxiv", rows=3)
    assert research.hits("/api/query")[0].query["search_query"] == ['au:Agol_E AND abs:"hot Jupiter"']
    assert ('arXiv cannot search by property:refereed, so its results ignore that (arXiv was asked: au:Agol_E '
            'AND abs:"hot Jupiter").') in outcome.notes
    search_papers(Web.of(research_app), "hot Jupiter (albedo OR recirculation) -HD209458", source="arxiv", rows=3)
    assert research.hits("/api/query")[1].query["search_query"] == [
        "all:hot AND all:Jupiter AND (all:albedo OR all:recirculation) ANDNOT all:HD209458"]
