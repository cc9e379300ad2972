"""Issue 30: citation trails. With an ADS token, references()/citations()/similar() through the
stand-in ADS (the recorded q=star response as the answer, tests/research_server.py), paged and
marked against the library; without one, references from the emcee paper's own parsed
bibliography, resolved to ids, and "cited by" is one sentence."""

from __future__ import annotations

import pytest

from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from astro_cli.research.sources.http import ServiceError
from astro_cli.research.sources.paper_graph import (
    bibcode_of_reference,
    format_for_model,
    paper_graph,
    resolve_reference,
)
from tests.library_support import add_paper, make_app
from tests.research_server import ADS_TOKEN, CLIENT_TIMEOUT, research, research_app  # noqa: F401 - fixtures


def _ads_params(server) -> list[dict[str, list[str]]]:
    return [hit.query for hit in server.hits("/v1/search/query")]


def test_references_come_from_ads_with_counts_years_and_library_marks(research_app, research):  # noqa: F811
    research.graph_total = 25
    Library.of(research_app).upsert_paper({"id": "2021NewA...8301477S", "bibcode": "2021NewA...8301477S",
                                        "title": "already here", "authors": ["S"], "year": 2021})
    page = paper_graph(Library.of(research_app), "2013PASP..125..306F", "refs", rows=10)
    assert _ads_params(research)[0]["q"] == ["references(bibcode:2013PASP..125..306F)"]
    assert _ads_params(research)[0]["rows"] == ["10"]
    assert page.total == 25 and len(page.neighbours) == 10
    marked = [n.record.bibcode for n in page.neighbours if n.in_library]
    assert marked == ["2021NewA...8301477S"]
    text = format_for_model(page)
    assert text.startswith("References of 2013PASP..125..306F (NASA ADS): 1-10 of 25; 1 of these in the library.")
    assert ("[2] bibcode 2021NewA...8301477S · arXiv:2008.08379 · doi 10.1016/j.newast.2020.101477 · 2021 · "
            "0 citations · in library") in text
    assert "More: paper_graph id=2013PASP..125..306F direction=refs start=10." in text


def test_ten_thousand_citations_are_a_page_and_a_count(research_app, research):  # noqa: F811
    research.graph_total = 10_000
    page = paper_graph(Library.of(research_app), "2013PASP..125..306F", "cited-by", rows=20, start=9_990)
    assert _ads_params(research)[0]["q"] == ["citations(bibcode:2013PASP..125..306F)"]
    assert _ads_params(research)[0]["start"] == ["9990"]
    text = format_for_model(page)
    assert text.splitlines()[0] == ("Papers citing 2013PASP..125..306F (NASA ADS): 9991-10000 of 10,000; "
                                    "0 of these in the library.")
    assert text.count("\n[") == 10 and "More:" not in text  # the last page


def test_an_arxiv_id_is_resolved_to_its_bibcode_first(research_app, research):  # noqa: F811
    paper_graph(Library.of(research_app), "arXiv:1202.3665", "similar", rows=5)
    queries = [p["q"][0] for p in _ads_params(research)]
    assert queries == ['identifier:"arXiv:1202.3665"', "similar(bibcode:2013PASP..125..306F)"]


def test_a_paper_is_never_its_own_neighbour(research_app, research):  # noqa: F811
    research.graph_total = 25
    page = paper_graph(Library.of(research_app), "2021NewA...8301491M", "refs", rows=25)
    bibcodes = [n.record.bibcode for n in page.neighbours]
    assert "2021NewA...8301491M" not in bibcodes and len(bibcodes) == len(set(bibcodes)) == 24


@pytest.mark.parametrize(("args", "sentence"), [
    (("", "refs", 20, 0), "Give the paper's bibcode, arXiv id or DOI (or its id in the library)."),
    (("2013PASP..125..306F", "cites", 20, 0), "direction must be one of refs, cited-by, similar, not 'cites'."),
    (("2013PASP..125..306F", "refs", 500, 0), "rows must be between 1 and 50."),
    (("2013PASP..125..306F", "refs", 20, -5), "start must be 0 or more (the first neighbour is 0)."),
])
def test_bad_arguments_are_one_sentence(research_app, research, args, sentence):  # noqa: F811
    with pytest.raises(ServiceError) as caught:
        paper_graph(Library.of(research_app), *args)
    assert str(caught.value) == sentence
    assert research.requests == []


@pytest.fixture
def arxiv_only(tmp_path, monkeypatch):
    """A library with the emcee paper parsed from its LaTeX, and no ADS token anywhere."""
    for name in ("ADS_API_TOKEN", "ADS_DEV_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ASTRO_HOME", str(tmp_path / "home"))
    app = make_app(tmp_path / "ws")
    add_paper(app, "1202.3665")
    parse_paper(Library.of(app), "1202.3665")
    yield app
    app.close()


def test_without_ads_references_come_from_the_papers_bibliography_resolved_to_ids(arxiv_only):
    Library.of(arxiv_only).upsert_paper({"id": "2012ApJ...753..148B", "bibcode": "2012ApJ...753..148B",
                                      "title": "Bovy et al.", "authors": ["Bovy, J."], "year": 2012})
    page = paper_graph(Library.of(arxiv_only), "1202.3665", "refs", rows=50)
    by_key = {n.text.split("]")[0][1:]: n for n in page.neighbours}
    assert by_key["akeret2012"].record.arxiv_id == "1212.1721"
    assert by_key["bovy2012"].record.bibcode == "2012ApJ...753..148B" and by_key["bovy2012"].in_library
    assert page.total == len(page.neighbours) > 20
    text = format_for_model(page)
    assert text.startswith(f"References of 1202.3665 (its own bibliography): 1-{page.total} of {page.total}; "
                           "1 of these in the library.")
    assert "'cited-by' needs ADS." in text


def test_without_ads_cited_by_is_one_sentence(arxiv_only):
    with pytest.raises(ServiceError, match=r"^Finding who cites a paper needs NASA ADS's citation index: set "
                                           r"ADS_API_TOKEN"):
        paper_graph(Library.of(arxiv_only), "1202.3665", "cited-by")


def test_references_are_spelled_as_ads_bibcodes():
    assert bibcode_of_reference("2013", "PASP", "125", "306", "Foreman-Mackey, D.") == "2013PASP..125..306F"
    assert bibcode_of_reference("2012", "ApJL", "758", "L17", "Brammer, G. B.") == "2012ApJ...758L..17B"
    assert bibcode_of_reference("2005", "MNRAS", "356", "925", "Lewis, A.") == "2005MNRAS.356..925L"
    assert bibcode_of_reference("2012", "Unknown Journal of Things", "1", "2", "X") is None
    record = resolve_reference("[x] Somebody, A. 2020, see doi:10.1086/670067 for details")
    assert record.doi == "10.1086/670067"


def test_astro_papers_cited_by_pages_from_the_command_line(cli, research, workspace):  # noqa: F811
    from tests.conftest import base_env

    research.graph_total = 10_000
    env = {**base_env(workspace.parent), **research.env(ASTRO_HTTP_TIMEOUT=CLIENT_TIMEOUT),
           "ADS_API_TOKEN": ADS_TOKEN}
    result = cli(["papers", "cited-by", "2013PASP..125..306F", "--rows", "3", "--start", "20"], env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "Papers citing 2013PASP..125..306F (NASA ADS): 21-23 of 10,000"
    assert "more: --start 23" in result.stderr
    result = cli(["papers", "refs", "2013PASP..125..306F", "--rows", "0"], env=env)
    assert result.exit_code != 0 and "rows must be between 1 and 50." in result.stderr


def test_without_ads_a_pdf_papers_run_on_reference_list_is_cut_into_entries(tmp_path, monkeypatch):
    """Cowan & Agol (1001.0012) parsed from its PDF: the references are one run of text."""
    for name in ("ADS_API_TOKEN", "ADS_DEV_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ASTRO_HOME", str(tmp_path / "home"))
    app = make_app(tmp_path / "ws")
    try:
        add_paper(app, "1001.0012")
        parse_paper(Library.of(app), "1001.0012")
        page = paper_graph(Library.of(app), "1001.0012", "refs", rows=50, start=0)
        texts = [n.text for n in page.neighbours]
        agol = next(n for n in page.neighbours if n.text.startswith("Agol, E., Cowan, N. B."))
        assert agol.record.bibcode == "2010ApJ...721.1861A"
        beerer = next(n for n in page.neighbours if n.text.startswith("Beerer, I. M."))
        assert beerer.record.arxiv_id == "1011.4066"
        assert any("Leigh, C. J., Collier Cameron, A., & Pinfield, D. J. 2007, MNRAS, 382, 473" in t for t in texts)
        assert page.total > 80 and len(page.neighbours) == 50  # a page of a long list
        rest = paper_graph(Library.of(app), "1001.0012", "refs", rows=50, start=50)
        assert len(rest.neighbours) == page.total - 50
        resolved = [n for n in page.neighbours + rest.neighbours if n.record.id]
        assert len(resolved) >= page.total - 3
    finally:
        app.close()
