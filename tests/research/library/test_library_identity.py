"""A library that never mixes two papers: rows merge only when their identifiers agree.

The defect (issue 14): an ADS that answered `identifier:"arXiv:1001.0012"` with an unrelated
record gave 1001.0012 that record's bibcode and title, and adding 1111.2011 next rewrote the same
row (new arXiv id, title and PDF) while keeping 1001.0012's chunks. The real command runs here
against the stand-in services, with ADS scripted to answer every search with the recorded q=star
response (papers that have nothing to do with the ones asked for).
"""

from __future__ import annotations

import json

import pytest

from astro_cli.bootstrap import build_app
from astro_cli.research.library.service import Library
from astro_cli.research.sources import ads
from astro_cli.research.sources.web import Web
from tests import research_server
from tests.library_support import make_app
from tests.research_server import ADS_TOKEN, fixture

research = research_server.research
research_app = research_server.research_app
UNRELATED = fixture("ads/search_query_q-star_rows25.json")  # 2021NewA...8301491M first


@pytest.fixture
def env(astro_env, research):
    return {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT), "ADS_API_TOKEN": ADS_TOKEN}


@pytest.fixture
def app(tmp_path):
    context = make_app(tmp_path / "ws")
    yield context
    context.close()


def _rows(workspace) -> dict[str, dict]:
    app = build_app(workspace=workspace)
    try:
        library = Library.of(app)
        rows = {row["id"]: row.as_dict() for row in library.list_papers()}
        for row in rows.values():
            row["text"] = " ".join(r["text"] for r in app.db.query(
                "SELECT text FROM chunks WHERE paper_id = ? ORDER BY ord", (row["id"],)))
        return rows
    finally:
        app.close()


def test_an_unrelated_ads_answer_never_mixes_two_papers(cli, env, workspace, research):
    for _ in range(4):
        research.fail("/v1/search/query", 200, body=UNRELATED)
    first = cli(["library", "add", "1001.0012"], env=env)
    assert first.exit_code == 0, first.stderr
    second = cli(["library", "add", "1111.2011"], env=env)
    assert second.exit_code == 0, second.stderr
    assert len(research.hits("/v1/search/query")) == 2  # ADS was asked, and its answers refused
    rows = _rows(workspace)
    assert sorted(rows) == ["1001.0012", "1111.2011"]
    cowan, murray = rows["1001.0012"], rows["1111.2011"]
    assert cowan["arxiv_id"] == "1001.0012" and cowan["bibcode"] is None
    assert cowan["pdf_path"] == "papers/1001.0012.pdf" and cowan["title"] != "Dynamics of accretion and winds in tidal disruption events"
    assert murray["arxiv_id"] == "1111.2011" and murray["bibcode"] is None
    assert murray["title"].startswith("Quantum Criticality for Extended Nodes")
    assert murray["pdf_path"] == "papers/1111.2011.pdf"
    # Each row has its own chunks: the hot-Jupiter paper's text under 1001.0012, the Bethe lattice under 1111.2011.
    assert cowan["chunks"] > 0 and murray["chunks"] > 0
    assert "albedo" in cowan["text"].lower() and "bethe" not in cowan["text"].lower()
    assert "bethe" in murray["text"].lower() and "albedo" not in murray["text"].lower()
    assert cowan["conflicts"] == [] and murray["conflicts"] == []


def test_re_adding_the_same_paper_is_idempotent(cli, env, workspace, research):
    assert cli(["library", "add", "1111.2011", "--no-parse"], env=env).exit_code == 0
    again = cli(["library", "add", "arXiv:1111.2011v2", "--no-parse"], env=env)
    assert again.exit_code == 0 and "1111.2011 is already in the library" in again.stdout
    assert list(_rows(workspace)) == ["1111.2011"]
    assert len(research.hits("/pdf/")) == 1


def test_same_doi_with_different_arxiv_ids_keeps_two_rows_and_says_so(app, cli, workspace):
    library = Library.of(app)
    first = library.upsert({"id": "1001.0012", "arxiv_id": "1001.0012", "doi": "10.1103/PhysRevB.85.115117",
                            "title": "one"})
    second = library.upsert({"id": "1111.2011", "arxiv_id": "1111.2011", "doi": "10.1103/physrevb.85.115117",
                             "title": "two"})
    assert first.created and second.created
    assert second.conflicts == ["kept apart from 1001.0012: it has arXiv id 1001.0012, not 1111.2011 "
                                "(both give DOI 10.1103/PhysRevB.85.115117)"]
    assert library.get_paper("1001.0012")["title"] == "one" and library.get_paper("1111.2011")["title"] == "two"
    rows = {row["id"]: row for row in library.list_papers()}
    assert rows["1001.0012"].conflicts == ("same DOI 10.1103/PhysRevB.85.115117 as 1111.2011",)
    assert rows["1111.2011"].conflicts == ("same DOI 10.1103/PhysRevB.85.115117 as 1001.0012",)


def test_library_list_shows_conflicts(cli, env, workspace):
    app = build_app(workspace=workspace)
    try:
        library = Library.of(app)
        library.upsert({"arxiv_id": "1001.0012", "bibcode": "2011ApJ...729...54C", "title": "Cowan"})
        library.upsert({"arxiv_id": "1111.2011", "bibcode": "2011ApJ...729...54C", "title": "Murray"})
    finally:
        app.close()
    result = cli(["library", "list"], env=env)
    assert result.exit_code == 0, result.stderr
    flat = " ".join(result.stdout.split())
    assert "1001.0012 and 1111.2011 have the same bibcode 2011ApJ...729...54C" in flat
    assert "astro library check" in flat
    listed = json.loads(cli(["library", "list", "--json"], env=env).stdout)
    assert {row["id"]: row["conflicts"] for row in listed} == {
        "1001.0012": ["same bibcode 2011ApJ...729...54C as 1111.2011"],
        "1111.2011": ["same bibcode 2011ApJ...729...54C as 1001.0012"],
    }


def test_different_bibcodes_are_never_merged_but_a_preprint_bibcode_gives_way(app):
    library = Library.of(app)
    library.upsert({"bibcode": "2019MNRAS.488.2892P", "doi": "10.1093/mnras/stz1876", "title": "ELM"})
    other = library.upsert({"bibcode": "2020A&A...642C...1G", "doi": "10.1093/mnras/stz1876", "title": "Gaia"})
    assert other.created and len(library.list_papers()) == 2
    # An e-print's arXiv bibcode is replaced by the journal's once published: same paper, same row.
    library.upsert({"arxiv_id": "1202.3665", "bibcode": "2012arXiv1202.3665F", "title": "emcee"})
    row = library.upsert({"arxiv_id": "1202.3665", "bibcode": "2013PASP..125..306F", "doi": "10.1086/670067"})
    assert not row.created and row.paper["bibcode"] == "2013PASP..125..306F" and row.paper["id"] == "1202.3665"
    assert library.get_paper("2012arXiv1202.3665F")["id"] == "1202.3665"
    # ...and never the other way round.
    row = library.upsert({"arxiv_id": "1202.3665", "bibcode": "2012arXiv1202.3665F"})
    assert row.paper["bibcode"] == "2013PASP..125..306F"


def test_a_bibcode_only_row_gains_its_arxiv_id(app):
    library = Library.of(app)
    library.upsert({"bibcode": "2013PASP..125..306F", "title": "emcee"})
    row = library.upsert({"arxiv_id": "1202.3665", "bibcode": "2013PASP..125..306F"})
    assert not row.created and row.paper["id"] == "2013PASP..125..306F" and row.paper["arxiv_id"] == "1202.3665"


def test_ads_lookup_refuses_a_record_without_the_asked_identifier(research_app, research):
    for _ in range(2):
        research.fail("/v1/search/query", 200, body=UNRELATED)
    assert ads.lookup(Web.of(research_app), "arXiv:1001.0012") is None
    assert ads.lookup(Web.of(research_app), "2019ApJ...999..123Z") is None
    record = ads.lookup(Web.of(research_app), "2012arXiv1202.3665F")  # the emcee doc lists its arXiv bibcode
    assert record is not None and record.bibcode == "2013PASP..125..306F"
    record = ads.lookup(Web.of(research_app), "10.1086/670067")
    assert record is not None and record.arxiv_id == "1202.3665"


def test_search_results_sharing_a_doi_but_not_an_arxiv_id_stay_two_papers():
    from astro_cli.research.found import FoundPaper
    from astro_cli.research.sources.merge import merge

    ads_side = [{"arxiv_id": "1001.0012", "doi": "10.1103/PhysRevB.85.115117", "bibcode": None, "title": "one",
                 "sources": ["ads"]}]
    arxiv_side = [{"arxiv_id": "1111.2011", "doi": "10.1103/physrevb.85.115117", "title": "two", "sources": ["arxiv"]},
                  {"arxiv_id": "1001.0012", "doi": None, "title": "one again", "abstract": "text", "sources": ["arxiv"]}]
    merged = merge([FoundPaper.from_record(r) for r in ads_side], [FoundPaper.from_record(r) for r in arxiv_side])
    assert [(r.id, r.title) for r in merged] == [("1001.0012", "one"), ("1111.2011", "two")]
    assert merged[0].abstract == "text" and merged[0].sources == ("ads", "arxiv")
