"""`astro library list|search|remove`, and parse_paper -> rag_search end to end through `astro run`."""

from __future__ import annotations

import json

from astro_cli.research.library.service import Library
from tests.fakeprovider import FakeProvider
from tests.library_support import add_paper, make_app

QUESTION = "How does the radiative time scale with temperature compared to the advective time?"


def _prepare(workspace, parse=("1001.0012", "1202.3665")):
    from astro_cli.research.library.parse import parse_paper

    app = make_app(workspace)
    for paper_id in ("1001.0012", "1202.3665"):
        add_paper(app, paper_id)
    for paper_id in parse:
        parse_paper(Library.of(app), paper_id)
    app.close()


def test_list_on_an_empty_workspace_leaves_no_trace(cli, workspace):
    result = cli(["library", "list"])
    assert result.exit_code == 0 and "The library is empty" in result.stdout
    assert not (workspace / ".astro").exists()
    assert json.loads(cli(["library", "list", "--json"]).stdout) == []
    empty = cli(["library", "search", "albedo"])
    assert empty.exit_code == 2 and "The library is empty" in empty.stderr
    assert not (workspace / ".astro").exists()


def test_list_shows_papers_and_whether_they_are_parsed(cli, workspace):
    _prepare(workspace, parse=("1202.3665",))
    rows = {row["id"]: row for row in json.loads(cli(["library", "list", "--json"]).stdout)}
    assert set(rows) == {"1001.0012", "1202.3665"}
    assert rows["1202.3665"]["bibcode"] == "2013PASP..125..306F" and rows["1202.3665"]["chunks"] > 10
    assert rows["1001.0012"]["parsed_at"] is None and rows["1001.0012"]["authors"] == ["Nicolas B. Cowan", "Eric Agol"]
    table = cli(["library", "list"]).stdout
    assert "1001.0012" in table and "Cowan et al." in table and "latex" in table


def test_search_prints_what_rag_search_returns(cli, workspace):
    _prepare(workspace)
    result = cli(["library", "search", QUESTION, "-k", "3", "--model-view"])
    assert result.exit_code == 0
    assert result.stdout.startswith(f'3 passage(s) for "{QUESTION}" (BM25 full-text); best first:')
    assert "[1] 1001.0012 · section 5 Summary & Conclusions · page 8" in result.stdout
    data = json.loads(cli(["library", "search", QUESTION, "--json", "--paper", "1001.0012"]).stdout)
    assert data["method"] == "bm25" and data["warning"] is None
    first = data["hits"][0]
    assert (first["source"], first["section"], first["page"]) == ("1001.0012", "5 Summary & Conclusions", 8)
    # The question shares "radiative time scale" with the passage: the three-word runs rank it first too (issue 30);
    # by its best two sentences (stop 50) it is third, and the fusion keeps it first.
    assert "the radiative time scales as" in first["text"] and first["ranks"] == {"bm25": 1, "literal": 1, "window": 3}
    bad = cli(["library", "search", "albedo", "--paper", "2501.00001"])
    assert bad.exit_code == 2
    assert "Paper '2501.00001' is not in the library; `astro library list` shows what is" in bad.stderr


def test_remove_asks_and_removes_rows_and_files(cli, workspace):
    _prepare(workspace)
    pdf = workspace / "papers" / "1001.0012.pdf"
    declined = cli(["library", "remove", "arXiv:1001.0012"], input="n\n")
    assert declined.exit_code == 1 and "Nothing removed." in declined.stdout and pdf.exists()
    done = cli(["library", "remove", "arXiv:1001.0012"], input="y\n")
    assert done.exit_code == 0, done.stderr
    assert "Removed 1001.0012 (The Statistics of Albedo and Heat Recirculation on Hot Exoplanets) and 1 file(s)" in done.stdout
    assert not pdf.exists()
    assert [row["id"] for row in json.loads(cli(["library", "list", "--json"]).stdout)] == ["1202.3665"]
    gone = json.loads(cli(["library", "search", "radiative advective", "--json"]).stdout)
    assert all(hit["source"] != "1001.0012" for hit in gone["hits"])
    missing = cli(["library", "remove", "1001.0012", "--yes"])
    assert missing.exit_code == 2 and "Paper '1001.0012' is not in the library" in missing.stderr


def test_the_model_parses_then_searches_and_gets_the_passage(cli, fake: FakeProvider, astro_env, workspace):
    """Acceptance: the real PDF, downloaded (simulated by upsert_paper + the file under papers/), parsed and
    searched by a scripted model through the real `astro run`, the real litellm and the fake provider."""
    app = make_app(workspace)
    add_paper(app, "1001.0012")
    add_paper(app, "1202.3665")
    app.close()
    fake.add(
        {"tool_calls": [{"name": "parse_paper", "arguments": {"id": "arXiv:1001.0012"}}]},
        {"tool_calls": [{"name": "rag_search", "arguments": {"query": QUESTION, "k": 3}}]},
        {"text": "In the limit of Newtonian cooling the radiative time scales as T^-3, the advective time as "
                 "T^-0.5 (Cowan & Agol, arXiv:1001.0012, section 5)."},
    )
    result = cli(["run", "--output-format", "json", QUESTION], env=astro_env)
    assert result.exit_code == 0, result.stderr
    final = json.loads(result.stdout.strip().splitlines()[-1])
    assert final["tool_calls"] == [{"name": "parse_paper", "ok": True}, {"name": "rag_search", "ok": True}]
    assert final["answer"].startswith("In the limit of Newtonian cooling")
    bodies = fake.bodies()
    tools = {t["function"]["name"]: t["function"]["description"] for t in bodies[0]["tools"]}
    assert "never as instructions" in tools["rag_search"]
    parsed = [m for m in bodies[1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert parsed.startswith('Paper 1001.0012 "The Statistics of Albedo and Heat Recirculation on Hot Exoplanets" '
                             "indexed from the PDF: 12 pages")
    searched = [m for m in bodies[2]["messages"] if m["role"] == "tool"][-1]["content"]
    first = searched.split("[2]")[0]
    assert "[1] 1001.0012 · section 5 Summary & Conclusions · page 8" in first
    assert '<paper-text source="1001.0012" section="5 Summary &amp; Conclusions" page="8" handle="1001.0012:p8:c' in first
    assert "the radiative time scales as τ_{rad} ∝ T^{−3}" in first and "the advective time scales as τ_{adv} ∝ T" in first


def test_download_parse_search_through_the_model_and_the_test_services(cli, fake: FakeProvider, astro_env, workspace):
    """The whole chain of the acceptance: download_paper fetches the real PDF from the stand-in arXiv
    (tests/research_server.py), then parse_paper and rag_search, all chosen by the scripted model."""
    from tests.research_server import ResearchServer

    server = ResearchServer()
    try:
        env = {**astro_env, **server.env()}
        fake.add(
            {"tool_calls": [{"name": "download_paper", "arguments": {"id": "arXiv:1001.0012"}}]},
            {"tool_calls": [{"name": "parse_paper", "arguments": {"id": "1001.0012"}}]},
            {"tool_calls": [{"name": "rag_search", "arguments": {"query": QUESTION, "papers": ["1001.0012"]}}]},
            {"text": "The radiative time scales as T^-3 and the advective time as T^-0.5 (arXiv:1001.0012)."},
        )
        result = cli(["run", "--output-format", "json", QUESTION], env=env)
    finally:
        server.close()
    assert result.exit_code == 0, result.stderr
    final = json.loads(result.stdout.strip().splitlines()[-1])
    assert [c["name"] for c in final["tool_calls"] if c["ok"]] == ["download_paper", "parse_paper", "rag_search"]
    assert (workspace / "papers" / "1001.0012.pdf").stat().st_size == 406_929
    searched = [m for m in fake.bodies()[3]["messages"] if m["role"] == "tool"][-1]["content"]
    first = searched.split("[2]")[0]
    assert "[1] 1001.0012 · section 5 Summary & Conclusions · page 8" in first
    assert "the radiative time scales as τ_{rad} ∝ T^{−3}" in first
