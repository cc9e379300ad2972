"""Paper sources behind one seam (issue 45): INSPIRE-HEP, registered like any source, searched with
`astro search --source inspire` by the real process and resolving `inspire:RECID` to an arXiv e-print,
against the stand-in on 127.0.0.1 replaying a recorded INSPIRE answer (tests/fixtures/PROVENANCE.md)."""

from __future__ import annotations

import json

import pytest

from astro_cli.extensions import PaperFiles, SearchAnswer, SearchRequest, extension_points
from astro_cli.research.found import FoundPaper
from astro_cli.research.library.download import download
from astro_cli.research.library.resolve import resolve
from astro_cli.research.library.service import Library
from astro_cli.research.sources.http import ServiceError
from astro_cli.research.sources.web import Web
from tests import research_server
from tests.prompt.test_prompt_switches_e2e import make_plugin_site, with_site

research = research_server.research
research_app = research_server.research_app


@pytest.fixture
def env(astro_env, research):
    return {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT)}


def test_astro_search_source_inspire_passes_inspire_syntax_and_prints_its_records(run_astro, env, research):
    result = run_astro(["search", "a Witten", "--source", "inspire", "--sort", "citations", "--json"], env)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["totals"] == {"inspire": 55}
    counts = [r["citation_count"] for r in payload["results"]]
    assert counts == sorted(counts, reverse=True) and len(counts) == 10  # most cited first: INSPIRE's counts
    assert payload["results"][0]["title"] == "Spinor exchange in AdS(d+1)"
    assert {r["sources"][0] for r in payload["results"]} == {"inspire"}
    holography = next(r for r in payload["results"] if r["arxiv_id"] == "1210.4935")
    assert holography["doi"] == "10.1007/JHEP02(2013)132" and holography["authors"] == ["McGarrie, Moritz"]
    asked = research.hits("/inspire/literature")[0].query
    assert asked["q"] == ["a Witten"] and asked["sort"] == ["mostcited"]  # not parsed as ADS syntax
    result = run_astro(["search", "a Witten", "--source", "inspire", "--rows", "2"], env)
    assert result.returncode == 0, result.stderr
    assert "1. Realization of a Witten Critical Theory in (Ch-3)-4 Nmncl-3" in result.stdout
    assert "https://inspirehep.net/literature/233030" in result.stdout


@pytest.mark.parametrize("years, q", [((2010, 2015), "(a Witten) and date 2010->2015"),
                                      ((2010, None), "(a Witten) and date >= 2010"),
                                      ((None, 2015), "(a Witten) and date <= 2015")])
def test_a_year_range_is_added_in_inspire_syntax(research_app, research, years, q):
    from astro_cli.research.sources.remote_search import search_papers

    points = extension_points(research_app.install_features())
    search_papers(Web.of(research_app), "a Witten", "inspire", 5, "date", years[0], years[1], points)
    asked = research.hits("/inspire/literature")[0].query
    assert asked["q"] == [q] and asked["sort"] == ["mostrecent"] and asked["size"] == ["5"]


def test_an_unknown_source_lists_the_registered_ones(run_astro, env):
    result = run_astro(["search", "star", "--source", "scholar"], env)
    assert result.returncode == 2
    assert "source must be one of all, ads, arxiv, inspire, not 'scholar'." in result.stderr
    assert "Traceback" not in result.stderr


def test_inspire_record_resolves_to_its_arxiv_eprint_with_inspire_metadata(research_app, research):
    points = extension_points(research_app.install_features())
    record, version = resolve(Web.of(research_app), "https://inspirehep.net/literature/1191456", points)
    assert (record.arxiv_id, version) == ("1210.4935", "")
    assert research.hits("/inspire/literature/1191456")
    assert [r.query["id_list"] for r in research.hits("/api/query")] == [["1210.4935"]]  # the files' source
    assert record.title == "Holography for General Gauge Mediation"  # arXiv's stand-in has no feed for it
    assert record.doi == "10.1007/JHEP02(2013)132" and record.journal == "JHEP"


def test_an_inspire_record_without_an_eprint_or_unknown_is_one_sentence(research_app):
    points = extension_points(research_app.install_features())
    with pytest.raises(ServiceError, match=r"^INSPIRE-HEP lists no arXiv version of 'Realization of a Witten"):
        resolve(Web.of(research_app), "inspire:233030", points)
    with pytest.raises(ServiceError, match=r"^INSPIRE-HEP does not know the record 'inspire:99'\.$"):
        resolve(Web.of(research_app), "inspire:99", points)


def test_the_tool_offers_the_registered_sources(research_app):
    tool = research_app.install_features().tools.get("search_papers")
    assert tool is not None
    assert tool.parameters["properties"]["source"]["enum"] == ["all", "ads", "arxiv", "inspire"]


class MirrorFiles:
    """A source that resolves nothing and serves every e-print's files from a mirror (as a plugin would)."""

    name = "mirror"
    label = "the mirror"
    query_language = "ads"
    searches = False

    def __init__(self, base: str) -> None:
        self.base = base

    def recognises(self, identifier: str) -> bool:
        return False

    def resolve(self, web: Web, identifier: str) -> FoundPaper | None:
        return None

    def search(self, web: Web, request: SearchRequest) -> SearchAnswer:
        raise ServiceError("the mirror does not search")

    def files(self, web: Web, record: FoundPaper, version: str) -> PaperFiles | None:
        return PaperFiles(f"{self.base}/pdf/{record.arxiv_id}", None, "the mirror") if record.arxiv_id else None


def test_a_registered_source_serves_the_files_of_a_download(research_app, research):
    app = research_app.install_features()
    extension_points(app).add_paper_source(MirrorFiles(research.url))  # registered last: it serves the files
    app.settings.set("arxiv_pdf_url", "http://127.0.0.1:9", "test")  # arXiv's own file server: nothing listens
    result = download(Library.of(app), "1001.0012")
    assert result.pdf.read_bytes().startswith(b"%PDF") and result.source is None  # the mirror has no LaTeX
    assert [r.path for r in research.hits("/pdf/")] == ["/pdf/1001.0012"]
    assert result.paper.title  # the metadata still came from arXiv's API


NOTES_SOURCE = '''
from astro_cli.extensions import SearchAnswer
from astro_cli.research.found import FoundPaper


class GroupNotes:
    """A group's reading list as a paper source: it searches, resolves nothing and serves no files."""

    name = "groupnotes"
    label = "the group's reading list"
    query_language = "words"
    searches = True

    def recognises(self, identifier):
        return False

    def resolve(self, web, identifier):
        return None

    def search(self, web, request):
        record = FoundPaper(id="1001.0012", arxiv_id="1001.0012", title="Asked: " + request.text,
                            authors=("Reader, A.",), year=2010, sources=("groupnotes",))
        return SearchAnswer(1, [record], ["From the reading list."])

    def files(self, web, record, version):
        return None


def register(api):
    api.add_paper_source(GroupNotes())
'''


def test_a_plugin_adds_a_paper_source_that_astro_search_offers(run_astro, env, tmp_path):
    site = make_plugin_site(tmp_path / "site", "astro_groupnotes", NOTES_SOURCE, {"notes": "astro_groupnotes:register"})
    with_plugin = with_site(env, site)
    result = run_astro(["search", "transit timing", "--source", "groupnotes", "--json"], with_plugin)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["totals"] == {"groupnotes": 1} and payload["notes"] == ["From the reading list."]
    assert payload["results"][0]["title"] == "Asked: transit timing"
    shown = run_astro(["hooks", "list"], with_plugin)
    assert "plugin notes (astro_groupnotes:register): loaded; paper source groupnotes" in shown.stdout
    refused = run_astro(["search", "transit timing", "--source", "groupnotes"], env)  # without the plugin
    assert refused.returncode == 2
    assert "source must be one of all, ads, arxiv, inspire, not 'groupnotes'." in refused.stderr


def test_library_add_resolves_an_inspire_record_through_the_real_process(run_astro, env, research):
    result = run_astro(["library", "add", "inspire:1191456", "--no-parse"], env)
    # INSPIRE names arXiv:1210.4935; the stand-in arXiv has no PDF under that id, so the route ends there.
    paths = [r.path for r in research.requests]
    assert paths[0] == "/inspire/literature/1191456" and "/pdf/1210.4935" in paths
    assert research.hits("/api/query")[0].query["id_list"] == ["1210.4935"]
    assert result.returncode == 1 and "arXiv has no file at" in result.stderr and "/pdf/1210.4935" in result.stderr
    result = run_astro(["library", "add", "https://inspirehep.net/literature/233030", "--no-parse"], env)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "INSPIRE-HEP lists no arXiv version of 'Realization of a Witten Critical Theory" in result.stderr
    assert "get it from the publisher." in result.stderr


OLD_SHAPE_SOURCE = NOTES_SOURCE.replace(
    '''        record = FoundPaper(id="1001.0012", arxiv_id="1001.0012", title="Asked: " + request.text,
                            authors=("Reader, A.",), year=2010, sources=("groupnotes",))''',
    '''        record = {"id": "1001.0012", "arxiv_id": "1001.0012", "title": "Asked: " + request.text,
                  "authors": ["Reader, A."], "year": 2010} if request.text != "nonsense" else 42''')


def test_a_plugin_source_of_the_older_dict_shape_still_answers_and_nonsense_is_one_sentence(run_astro, env,
                                                                                              tmp_path):
    assert OLD_SHAPE_SOURCE != NOTES_SOURCE
    site = make_plugin_site(tmp_path / "site", "astro_oldnotes", OLD_SHAPE_SOURCE, {"notes": "astro_oldnotes:register"})
    with_plugin = with_site(env, site)
    result = run_astro(["search", "transit timing", "--source", "groupnotes", "--json"], with_plugin)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)["results"][0]
    assert found["title"] == "Asked: transit timing" and found["authors"] == ["Reader, A."]
    broken = run_astro(["search", "nonsense", "--source", "groupnotes"], with_plugin)
    assert broken.returncode != 0
    assert "answered with int, not a paper record" in broken.stderr and "Traceback" not in broken.stderr
