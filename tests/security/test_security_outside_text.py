"""Issue 41: records from the network reach the terminal only through visible(), a hostile ADS answer is
one sentence, and reference parsing is linear. The real `astro` process talks to the stand-in ADS
(tests/research_server.py), which replays the recorded emcee doc with hostile fields written in."""

from __future__ import annotations

import json
import time

import pytest

from tests import research_server
from tests.library_support import make_app
from tests.research_server import ADS_TOKEN, fixture

research = research_server.research  # the stand-in services, as a fixture

OSC52 = "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"  # a clipboard write
CSI = "\x1b[2J\x1b[H\x9b2J"  # a screen clear, in 7-bit and in 8-bit (C1) form
HIDDEN = "\u202e\u2066\U000e0041"
RAW = ["\x1b", "\x07", "\x9b", *HIDDEN]
EVIL_BIBCODE = "2099Evil..001..001E"


def _raw_in(text: str) -> list[str]:
    return [repr(char) for char in RAW if char in text]


def _envelope(*docs: object, total: object = None) -> dict[str, object]:
    return {"responseHeader": {"status": 0, "QTime": 1},
            "response": {"numFound": len(docs) if total is None else total, "start": 0, "docs": list(docs)}}


def _hostile_doc() -> dict[str, object]:
    doc = json.loads(fixture("ads/doc_2013PASP.125..306F_emcee_allfields.json"))
    doc.update(bibcode=EVIL_BIBCODE, title=[f"Dust{OSC52} lanes{CSI}{HIDDEN}"],
               author=[f"Eve{OSC52}, M.", f"Mallory{CSI}, T."], abstract=f"We show{OSC52} that{CSI} dust{HIDDEN}.")
    return doc


@pytest.fixture
def env(astro_env, research):
    return {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT),
            "ADS_API_TOKEN": ADS_TOKEN, "COLUMNS": "400"}


@pytest.mark.parametrize("args", [
    ["search", "dust", "--source", "ads"],
    ["papers", "refs", "2013PASP..125..306F"],
    ["papers", "cited-by", "2013PASP..125..306F"],
    ["search", "dust", "--source", "ads", "--json"],
    ["papers", "refs", "2013PASP..125..306F", "--json"],
])
def test_records_from_ads_never_drive_the_terminal(args, env, research, run_astro):
    research.ads_answer = _envelope(_hostile_doc())
    result = run_astro(args, env)
    assert result.returncode == 0, result.stderr
    assert _raw_in(result.stdout) == [] and _raw_in(result.stderr) == []
    shown = json.loads(result.stdout)["results"][0] if "--json" in args else None
    if shown is None:
        assert "\\x1b]52;c;" in result.stdout and "\\x9b2J" in result.stdout and "\\u202e" in result.stdout
        assert "Eve\\x1b]52" in result.stdout  # authors too
    else:  # the same values, spelled with JSON escapes
        assert shown["title"].startswith(f"Dust{OSC52} lanes") and shown["authors"][0].startswith("Eve\x1b]52")


HOSTILE_TYPES = {
    "bibcode": EVIL_BIBCODE, "title": 42, "author": [{"name": "x"}, None, 7, ["nested"]], "abstract": ["a list"],
    "year": {"y": 1}, "pubdate": 2013, "citation_count": "many", "identifier": 42, "doi": {"x": 1},
    "page": [None, {"p": 1}], "pub": 5, "volume": [1], "keyword": "one", "arxiv_class": None,
    "bibstem": 3.5, "author_count": 10**400, "editor": {"e": 1}, "aff": [None], "doctype": ["article"],
}


@pytest.mark.parametrize("answer", [
    _envelope(HOSTILE_TYPES, "x", None, 7, total="lots"),
    _envelope({**HOSTILE_TYPES, "title": ["T" * 1_000_000], "author": ["A, B."] * 100_000}),
])
def test_a_hostile_ads_record_of_wrong_types_is_read_as_far_as_it_goes(answer, env, research, run_astro):
    research.ads_answer = answer
    for args in (["search", "dust", "--source", "ads"], ["papers", "refs", "2013PASP..125..306F"]):
        result = run_astro(args, env)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
        assert EVIL_BIBCODE in result.stdout
        assert len(result.stdout) < 60_000  # a megabyte title is cut, 100,000 authors are "et al."


@pytest.mark.parametrize("answer", [[1, 2], {"response": [1]}, {"response": {"docs": "none"}}, "text"])
def test_an_ads_answer_that_is_not_a_search_result_is_one_sentence(answer, env, research, run_astro):
    research.ads_answer = answer
    result = run_astro(["search", "dust", "--source", "ads"], env)
    assert "Traceback" not in result.stderr
    if result.returncode == 0:  # a well-formed envelope with no readable docs: no papers
        assert "No papers found" in result.stdout
    else:
        assert "NASA ADS sent " in result.stderr and "astro cannot read" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def _paper_with_reference(workspace, reference: str) -> None:
    from astro_cli.research.library.service import Library
    from astro_cli.research.records import Chunk

    app = make_app(workspace)
    try:
        library = Library.of(app)
        library.upsert_paper({"id": "2501.00001", "arxiv_id": "2501.00001", "title": "Host", "year": 2025})
        text = "[good] Foreman-Mackey, D. 2013, PASP, 125, 306\n\n" + reference
        library.store.replace_chunks("2501.00001", [Chunk("References", None, 0, text, kind="references")], {})
    finally:
        app.close()


# One 80 kB entry with a year early and no journal, volume and page after it: the old CITATION pattern
# (a leading `.*?`) retried from every position and took minutes.
LONG_REFERENCE = "[big] Smith, A. 2013, " + "dust " * 16_000


def test_an_80_kB_reference_is_parsed_in_linear_time(workspace, astro_env, run_astro):
    from astro_cli.research.sources.paper_graph import resolve_reference

    started = time.monotonic()
    record = resolve_reference(LONG_REFERENCE)
    assert time.monotonic() - started < 5, "a behaviour guard: linear parsing takes milliseconds"
    assert record.id is None  # no journal, volume and page: unresolved, as before
    _paper_with_reference(workspace, LONG_REFERENCE)
    result = run_astro(["papers", "refs", "2501.00001"], {**astro_env, "COLUMNS": "400"}, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "2013PASP..125..306F" in result.stdout  # the good entry is resolved
    assert "[big] Smith, A. 2013, dust dust" in result.stdout and len(result.stdout) < 5_000  # the long one, cut


def test_json_from_the_library_spells_c1_and_format_characters_as_escapes(workspace, astro_env, run_astro):
    """json.dumps(ensure_ascii=False) escapes C0 controls but leaves the 8-bit CSI (U+009B) and bidi
    overrides raw: `--json` output goes through visible_json(), the same JSON value."""
    from astro_cli.research.library.service import Library

    app = make_app(workspace)
    try:
        Library.of(app).upsert_paper({"id": "2501.00100", "title": f"Dust{CSI}{HIDDEN} lanes", "authors": ["Eve"],
                                   "year": 2025})
    finally:
        app.close()
    result = run_astro(["library", "list", "--json"], {**astro_env, "COLUMNS": "400"})
    assert result.returncode == 0, result.stderr
    assert _raw_in(result.stdout) == []
    [row] = json.loads(result.stdout)
    assert row["title"] == f"Dust{CSI}{HIDDEN} lanes"


@pytest.mark.parametrize("message", [
    {"DOI": 10.5555, "title": 42, "author": 7, "container-title": {"x": 1}, "issued": {"date-parts": "2009"},
     "updated-by": "retracted", "is-referenced-by-count": "many", "volume": ["1"], "URL": None,
     "abstract": f"<jats:p>Dust{OSC52}</jats:p>"},
    {"DOI": "10.5555/12345678", "title": [None, "Real title"], "author": [{"family": 5, "given": None}, "x", None],
     "issued": {"date-parts": [[None]]}, "updated-by": [{"type": 3, "updated": {"date-parts": [["2009"]]}}]},
])
def test_a_hostile_crossref_record_is_read_as_far_as_it_goes(message, astro_env, research, run_astro):
    research.crossref_answer = {"status": "ok", "message-type": "work", "message": message}
    env = {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT), "COLUMNS": "400"}
    result = run_astro(["search", "10.5555/12345678"], env)  # no ADS token: the DOI resolves through Crossref
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and _raw_in(result.stdout) == []
    assert "1." in result.stdout


def _votable(columns: dict[str, list[object]]) -> bytes:
    """Constructed: a SIMBAD TAP answer whose columns have the types a hostile service chose."""
    import io

    from astropy.io.votable import from_table
    from astropy.io.votable.tree import Info
    from astropy.table import Table

    votable = from_table(Table(columns))
    votable.resources[0].type = "results"
    votable.resources[0].infos.append(Info(name="QUERY_STATUS", value="OK"))
    out = io.BytesIO()
    votable.to_xml(out)
    return out.getvalue()


def test_a_simbad_answer_of_wrong_types_is_read_as_far_as_it_goes(astro_env, research, run_astro):
    research.simbad_answer = _votable({
        "main_id": ["M  31\u202e\x9b2J"], "otype": [7], "ra": ["ten degrees"], "dec": ["north"],
        "nbref": ["many"], "V": ["bright"], "rvz_radvel": ["fast"], "plx_value": ["near"],
    })
    env = {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT), "COLUMNS": "400"}
    result = run_astro(["target", "M 31"], env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and _raw_in(result.stdout) == []
    assert "main identifier: M  31\\u202e\\x9b2J" in result.stdout and "type: 7" in result.stdout
    assert "ICRS coordinates" not in result.stdout  # text where SIMBAD gives degrees is not a position
