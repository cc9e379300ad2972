"""The research commands and tools end to end: the real `astro` command in-process (the `cli` fixture),
the real litellm against the fake model provider, and the stand-in services on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from astro_cli.bootstrap import build_app
from astro_cli.research.library.service import Library
from tests import research_server
from tests.fakeprovider import FakeProvider
from tests.helpers import last_json
from tests.research_server import ADS_TOKEN, FIXTURES

research = research_server.research  # the stand-in services, as a fixture

PDF_1001 = (FIXTURES / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf").read_bytes()
EXPORT = (FIXTURES / "ads" / "export_bibtex_3bibcodes.export.txt").read_text()


@pytest.fixture
def env(astro_env, research):
    """astro talking to the fake model and to the stand-in services, with an ADS token."""
    return {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT), "ADS_API_TOKEN": ADS_TOKEN}




def _tool_metas(workspace, session_id: str) -> list[dict]:
    app = build_app(workspace=workspace)
    try:
        return [m.meta for m in app.sessions.messages(session_id) if m.message.get("role") == "tool"]
    finally:
        app.close()


# --- through the model ------------------------------------------------------------------------
def test_model_searches_papers_then_answers_with_sources(cli, fake: FakeProvider, env, workspace, research):
    fake.add(
        {"tool_calls": [{"name": "search_papers", "arguments": {"query": "star", "source": "ads", "rows": 3}}]},
        {"text": "The newest is Mageshwaran & Mangalam (2021NewA...8301491M)."},
    )
    result = cli(["run", "--output-format", "json", "Find recent papers about stars"], env=env)
    assert result.exit_code == 0, result.stderr
    obj = last_json(result.stdout)
    assert obj["tool_calls"] == [{"name": "search_papers", "ok": True}]
    assert obj["answer"] == "The newest is Mageshwaran & Mangalam (2021NewA...8301491M)."
    sent = [m for m in fake.bodies()[1]["messages"] if m["role"] == "tool"][0]["content"]
    assert "[1] bibcode 2021NewA...8301491M · arXiv:2008.07401" in sent
    assert sent.count('<paper-text source="') == 3 and "never as instructions" in sent
    assert research.hits("/v1/search/query")[0].query["q"] == ["star"]
    meta = _tool_metas(workspace, obj["session_id"])[0]
    assert [s["bibcode"] for s in meta["data"]["sources"]] == [
        "2021NewA...8301491M", "2021NewA...8301477S", "2021NewA...8301474I"]
    first = meta["data"]["sources"][0]
    assert set(first) >= {"id", "title", "bibcode", "arxiv_id", "url", "doi", "year", "authors"}
    assert first["authors"] == ["Mageshwaran, T.", "Mangalam, A."]  # for author-year citations and /cite
    assert (first["journal"], first["volume"], first["page"]) == ("New Astronomy", "83", "101491")


def test_model_downloads_a_paper_into_the_library(cli, fake, env, workspace, research):
    fake.add(
        {"tool_calls": [{"name": "download_paper", "arguments": {"id": "1001.0012"}}]},
        {"text": "Downloaded."},
    )
    result = cli(["run", "--output-format", "json", "Get arXiv 1001.0012"], env=env)
    assert result.exit_code == 0, result.stderr
    assert last_json(result.stdout)["tool_calls"] == [{"name": "download_paper", "ok": True}]
    assert (workspace / "papers" / "1001.0012.pdf").read_bytes() == PDF_1001
    app = build_app(workspace=workspace)
    try:
        row = Library.of(app).get_paper("arXiv:1001.0012")
    finally:
        app.close()
    assert row["id"] == "1001.0012" and row["pdf_path"] == "papers/1001.0012.pdf"
    sent = [m for m in fake.bodies()[1]["messages"] if m["role"] == "tool"][0]["content"]
    assert sent.startswith("Downloaded 1001.0012 (The Statistics of Albedo and Heat Recirculation on Hot Exoplanets) to papers/1001.0012.pdf (397 kB).")
    assert "warning: arXiv returned no metadata for 1001.0012" in sent  # the model is told the title is a guess
    assert "parse_paper(id='1001.0012')" in sent


def test_a_tool_failure_reaches_the_model_as_one_sentence(cli, fake, env, research):
    research.fail("/simbad/", 503)
    fake.add(
        {"tool_calls": [{"name": "query_target", "arguments": {"target": "M 31"}}]},
        {"text": "SIMBAD is down."},
    )
    result = cli(["run", "--output-format", "json", "Where is M 31?"], env=env)
    assert result.exit_code == 0
    assert last_json(result.stdout)["tool_calls"] == [{"name": "query_target", "ok": False}]
    sent = [m for m in fake.bodies()[1]["messages"] if m["role"] == "tool"][0]["content"]
    assert sent == "Error: SIMBAD answered HTTP 503 for the query; try again later."


# --- direct commands --------------------------------------------------------------------------
def test_astro_search_prints_merged_results_and_json(cli, env):
    result = cli(["search", "testing star", "--rows", "3"], env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("1. Dynamics of accretion and winds in tidal disruption events\n")
    assert "bibcode 2021NewA...8301491M · arXiv:2008.07401" in result.stdout
    result = cli(["search", "testing", "--source", "arxiv", "--json", "--rows", "10"], env=env)
    payload = json.loads(result.stdout)
    assert payload["totals"] == {"arxiv": 214881}
    assert [r["arxiv_id"] for r in payload["results"]][:2] == ["2202.12139", "2405.13786"]


def test_astro_search_without_token_notes_it_and_ads_only_fails(cli, env):
    env = {k: v for k, v in env.items() if k != "ADS_API_TOKEN"}
    result = cli(["search", "testing", "--rows", "2"], env=env)
    assert result.exit_code == 0
    assert "no ADS_API_TOKEN is set" in result.stderr
    result = cli(["search", "star", "--source", "ads"], env=env)
    assert result.exit_code == 1
    assert "NASA ADS needs an API token: `astro keys set ads` keeps one" in result.stderr
    assert "Traceback" not in result.stderr


def test_astro_search_rate_limit_and_bad_arguments(cli, env, research):
    research.fail("/v1/search", 429, headers={"X-RateLimit-Reset": "1767225600"})
    result = cli(["search", "star", "--source", "ads"], env=env)
    assert result.exit_code == 1
    assert "the quota resets at 2026-01-01 00:00 UTC" in result.stderr
    result = cli(["search", "star", "--year", "twenty"], env=env)
    assert result.exit_code == 2 and "--year takes a year or a range" in result.stderr
    result = cli(["search", "star", "--rows", "500"], env=env)
    assert result.exit_code == 2 and "rows must be between 1 and 50" in result.stderr


def test_astro_target_name_cone_json_and_not_found(cli, env):
    result = cli(["target", "M", "31"], env=env)
    assert result.exit_code == 0, result.stderr
    assert "main identifier: M  31" in result.stdout and "type: G (Galaxy)" in result.stdout
    result = cli(["target", "10.684708 41.26875", "--radius", "1arcmin", "--json"], env=env)
    payload = json.loads(result.stdout)
    assert payload["object"] is None and len(payload["cone"]["objects"]) == 5
    result = cli(["target", "Planet Nine"], env=env)
    assert result.exit_code == 1
    assert "SIMBAD does not know an object named 'Planet Nine'" in result.stderr


def test_library_add_then_export_bibtex_from_arxiv_metadata(cli, env, workspace):
    env = {k: v for k, v in env.items() if k != "ADS_API_TOKEN"}
    result = cli(["library", "add", "1111.2011", "--no-parse"], env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("1111.2011 added: Quantum Criticality for Extended Nodes")
    assert (workspace / "papers" / "1111.2011.pdf").exists()
    result = cli(["library", "export", "--bibtex"], env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        "@ARTICLE{Murray2012_1111.2011,\n"
        "       author = {{Murray}, James M. and {Del Maestro}, Adrian and {Tesanovic}, Zlatko},\n"
        '        title = "{Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit}",\n'
        "      journal = {\\prb},\n"  # the AASTeX macro ADS writes for Phys. Rev. B
        "         year = 2012,\n"
        "       volume = {85},\n"
        "          eid = {115117},\n"
        "        pages = {115117},\n"
        "          doi = {10.1103/PhysRevB.85.115117},\n"
        "archivePrefix = {arXiv},\n"
        "       eprint = {1111.2011},\n"
        " primaryClass = {cond-mat.str-el},\n"
        "          url = {http://arxiv.org/abs/1111.2011v2}\n"
        "}\n"
    )
    assert "built from the stored metadata" in result.stderr


def test_library_export_uses_ads_for_papers_with_bibcodes(cli, env, workspace, monkeypatch):
    monkeypatch.chdir(workspace)
    app = build_app(workspace=workspace)
    try:
        library = Library.of(app)
        for bibcode in ("2020A&A...642C...1G", "2019MNRAS.488.2892P"):
            library.upsert_paper({"id": bibcode, "bibcode": bibcode, "title": "t"})
    finally:
        app.close()
    result = cli(["library", "export", "--bibtex", "2020A&A...642C...1G", "2019MNRAS.488.2892P"], env=env)
    assert result.exit_code == 0, result.stderr
    entries = [e for e in EXPORT.split("\n@") if "2020A&A...642C...1G," in e or "2019MNRAS.488.2892P," in e]
    assert len(entries) == 2
    assert "@ARTICLE{2020A&A...642C...1G," in result.stdout and "@ARTICLE{2019MNRAS.488.2892P," in result.stdout
    assert "Gaia Data Release 2. The kinematics of globular clusters" in result.stdout
    result = cli(["library", "export", "--bibtex", "nope"], env=env)
    assert result.exit_code == 2 and "Paper 'nope' is not in the library" in result.stderr


def test_library_add_failure_leaves_nothing(cli, env, workspace, research):
    research.fail("/pdf/", 200, body=b"<html>not a pdf</html>")
    result = cli(["library", "add", "1001.0012"], env=env)
    assert result.exit_code == 1
    assert "arXiv sent something that is not a PDF for 1001.0012; nothing was stored." in result.stderr
    assert not (workspace / "papers").exists() or not any((workspace / "papers").iterdir())
    result = cli(["library", "list", "--json"], env=env)
    assert json.loads(result.stdout) == []


def test_download_progress_reaches_event_consumers(cli, fake, env):
    """The loop knows no terminal: progress goes out as events (stream-json prints them as they happen)."""
    fake.add({"tool_calls": [{"name": "download_paper", "arguments": {"id": "1001.0012"}}]}, {"text": "Done."})
    result = cli(["run", "--output-format", "astro-events", "Get arXiv 1001.0012"], env=env)
    assert result.exit_code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    progress = [e for e in events if e["type"] == "download_progress" and e["label"] == "arXiv:1001.0012 PDF"]
    assert progress[0]["done"] == 0 and progress[0]["total"] == len(PDF_1001)
    assert progress[-1]["done"] == len(PDF_1001)
    order = [e["type"] for e in events]
    assert order.index("tool_started") < order.index("download_progress") < order.index("tool_finished")
