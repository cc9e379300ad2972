"""Every identifier in an answer is checked before the turn ends: the real `astro` process (and,
where noted, the command in-process), the scripted model through the real litellm, and the
stand-in ADS and arXiv serving recorded answers.

The defect (issue 14): a model that answered with one real bibcode from its search results plus an
invented bibcode (2019ApJ...999..123Z) and an invented arXiv id (arXiv:1912.99999) had its answer
passed through word for word, `is_error: false`, nothing flagged.
"""

from __future__ import annotations

import json

import pytest

from tests import research_server
from tests.helpers import last_json
from tests.research_server import ADS_TOKEN

research = research_server.research

REAL = "2021NewA...8301491M"
BAD_BIBCODE = "2019ApJ...999..123Z"
BAD_ARXIV = "1912.99999"
INVENTED = (f"Mageshwaran & Mangalam ({REAL}) model winds of tidal disruption events; see also "
            f"{BAD_BIBCODE} and arXiv:{BAD_ARXIV}.")
CORRECTED = f"Mageshwaran & Mangalam ({REAL}) model winds of tidal disruption events."
SEARCH = {"tool_calls": [{"name": "search_papers", "arguments": {"query": "star", "source": "ads", "rows": 3}}]}
TITLE = "Dynamics of accretion and winds in tidal disruption events"


@pytest.fixture
def env(astro_env, research):
    return {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT), "ADS_API_TOKEN": ADS_TOKEN}


def user_texts(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], str)]


@pytest.mark.slow
def test_invented_ids_are_nudged_once_then_reported_unverified(run_astro, fake, env, research):
    fake.add(SEARCH, {"text": INVENTED}, {"text": INVENTED})  # the model insists
    result = run_astro(["run", "--output-format", "json", "Which papers model TDE winds?"], env)
    assert result.returncode == 0, result.stderr
    obj = last_json(result.stdout)
    assert obj["answer"] == INVENTED and obj["stop_reason"] == "end_turn"
    assert obj["citations"] == [
        {"id": REAL, "kind": "bibcode", "status": "verified", "title": TITLE, "paper": "2008.07401"},
        {"id": BAD_BIBCODE, "kind": "bibcode", "status": "unverified", "title": None, "paper": None},
        {"id": BAD_ARXIV, "kind": "arxiv", "status": "unverified", "title": None, "paper": None},
    ]
    # Insisting cost exactly one extra request: search, answer, nudge -> same answer.
    assert len(fake.requests) == 3
    nudge = user_texts(fake.bodies()[2])[-2]  # the environment message comes last
    assert nudge.startswith(f"Citation check: {BAD_BIBCODE}, arXiv:{BAD_ARXIV} in your answer were not returned")
    assert REAL not in nudge
    assert not any("Citation check" in text for text in user_texts(fake.bodies()[1]))
    # Both were looked up online (ADS in one request, then arXiv for the arXiv id) and not found.
    asked = [r.query["q"][0] for r in research.hits("/v1/search/query")][1:]
    assert asked == [f'identifier:("{BAD_BIBCODE}" OR "arXiv:{BAD_ARXIV}")']
    assert [r.query["id_list"] for r in research.hits("/api/query")] == [[BAD_ARXIV]]


@pytest.mark.slow
def test_a_corrected_answer_has_only_verified_ids_and_text_mode_prints_the_footer(run_astro, fake, env):
    fake.add(SEARCH, {"text": INVENTED}, {"text": CORRECTED})
    result = run_astro(["run", "Which papers model TDE winds?"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == CORRECTED + "\n"  # stdout is the answer alone
    assert result.stderr.rstrip().endswith("sources: 1 verified")
    assert len(fake.requests) == 3


def test_text_mode_footer_names_the_unverified_ids(cli, fake, env):
    fake.add(SEARCH, {"text": INVENTED}, {"text": INVENTED})
    result = cli(["run", "Which papers model TDE winds?"], env=env)
    assert result.stdout == INVENTED + "\n"
    assert "sources: 1 verified, 2 unverified: 2019ApJ...999..123Z, arXiv:1912.99999\n" in result.stderr


def test_stream_json_has_a_citations_event_and_report_mode_never_nudges(cli, fake, env):
    fake.add(SEARCH, {"text": INVENTED})
    result = cli(["run", "--output-format", "astro-events", "TDE winds?"], env={**env, "ASTRO_CITATIONS_CHECK": "report"})
    assert result.exit_code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    checked = [e for e in events if e["type"] == "citations"]
    assert len(checked) == 1 and checked[0]["nudged"] is False
    assert [c["status"] for c in checked[0]["citations"]] == ["verified", "unverified", "unverified"]
    assert events[-1]["type"] == "result" and events[-1]["citations"] == checked[0]["citations"]
    assert not any(e["type"] == "nudge" for e in events) and len(fake.requests) == 2


def test_the_small_profile_reports_without_nudging_unless_fix_is_set(cli, fake, env):
    """Under the small profile a local model read the nudge as a task and replaced its answer with
    "I cannot provide a citation check" (issue 32's task set): the footer only, by default; a
    `citations.check: fix` the user sets still nudges."""
    fake.add(SEARCH, {"text": INVENTED})
    result = cli(["run", "--profile", "small", "--output-format", "json", "TDE winds?"], env=env)
    obj = last_json(result.stdout)
    assert obj["answer"] == INVENTED and len(fake.requests) == 2, result.stdout
    assert [c["status"] for c in obj["citations"]] == ["verified", "unverified", "unverified"]
    fake.add(SEARCH, {"text": INVENTED}, {"text": CORRECTED})
    result = cli(["run", "--profile", "small", "--output-format", "json", "TDE winds?"],
                 env={**env, "ASTRO_CITATIONS_CHECK": "fix"})
    assert last_json(result.stdout)["answer"] == CORRECTED and len(fake.requests) == 5, result.stdout


def test_check_off_does_nothing(cli, fake, env, research):
    fake.add(SEARCH, {"text": INVENTED})
    result = cli(["run", "--output-format", "json", "TDE winds?"], env={**env, "ASTRO_CITATIONS_CHECK": "off"})
    assert last_json(result.stdout)["citations"] == [] and len(fake.requests) == 2
    assert len(research.hits("/v1/search/query")) == 1  # only the model's own search


def test_a_search_for_the_invented_id_does_not_verify_it(cli, fake, env):
    """search_papers echoes its query ("No papers found for: <id>"): an id in the call's own arguments
    is not evidence."""
    fake.add(
        {"text": f"See {BAD_BIBCODE}."},
        {"tool_calls": [{"name": "search_papers", "arguments": {"query": BAD_BIBCODE, "source": "ads"}}]},
        {"text": f"See {BAD_BIBCODE}."},
    )
    result = cli(["run", "--output-format", "json", "A reference?"], env=env)
    obj = last_json(result.stdout)
    assert [c["status"] for c in obj["citations"]] == ["unverified"] and len(fake.requests) == 3


def test_ids_no_tool_returned_are_resolved_online(cli, fake, env):
    """ADS knows emcee's bibcode; without a token arXiv confirms 1111.2011: resolved. The paper exists,
    but the answer rests on no passage the session read: the claim is `not_read`, and the model is
    asked once (issue 28)."""
    answer = "emcee (2013PASP..125..306F, Foreman-Mackey et al. 2013) samples posteriors."
    fake.add({"text": answer}, {"text": answer})
    obj = last_json(cli(["run", "--output-format", "json", "What is emcee?"], env=env).stdout)
    assert [(c["id"], c["status"], c["title"]) for c in obj["citations"]] == [
        ("2013PASP..125..306F", "resolved", "emcee: The MCMC Hammer"),
        ("Foreman-Mackey et al. 2013", "resolved", "emcee: The MCMC Hammer"),
    ]
    assert [c["status"] for c in obj["claims"]] == ["not_read"] and len(fake.requests) == 2
    fake.add({"text": "See arXiv:1111.2011v2 for the Bethe lattice."})
    no_token = {k: v for k, v in env.items() if k != "ADS_API_TOKEN"}
    obj = last_json(cli(["run", "--output-format", "json", "Bethe?"], env={**no_token, "ASTRO_CITATIONS_CHECK": "report"}).stdout)
    assert obj["citations"][0]["status"] == "resolved" and obj["citations"][0]["paper"] == "1111.2011"
    assert obj["citations"][0]["version"] == 2  # arXiv's record names v2: the version exists


def test_author_year_citations_are_matched_against_the_session_sources(cli, fake, env):
    fake.add(
        {"tool_calls": [{"name": "search_papers", "arguments": {"query": "emcee", "source": "ads"}}]},
        {"text": "The affine-invariant sampler of Foreman-Mackey et al. (2013) is standard (Smith & Jones 2019)."},
        {"text": "The affine-invariant sampler of Foreman-Mackey et al. (2013) is standard."},
    )
    obj = last_json(cli(["run", "--output-format", "json", "Which sampler?"], env={
        **env, "ASTRO_CITATIONS_RESOLVE": "false"}).stdout)
    assert obj["citations"] == [{"id": "Foreman-Mackey et al. 2013", "kind": "author-year", "status": "verified",
                                 "title": "emcee: The MCMC Hammer", "paper": "1202.3665"}]
    nudge = user_texts(json.loads(json.dumps(fake.bodies()[2])))[-2]
    assert nudge.startswith("Citation check: Smith & Jones 2019 in your answer was not returned by any tool")


def test_papers_in_the_library_are_verified_without_any_tool(cli, fake, env):
    assert cli(["library", "add", "1111.2011", "--no-parse"], env=env).exit_code == 0
    fake.add({"text": "Murray et al. (2012), doi:10.1103/PhysRevB.85.115117, treat nodes on a Bethe lattice."})
    obj = last_json(cli(["run", "--output-format", "json", "Bethe?"], env={
        **env, "ASTRO_CITATIONS_RESOLVE": "false", "ASTRO_CITATIONS_CHECK": "report"}).stdout)
    assert [(c["kind"], c["status"], c["paper"]) for c in obj["citations"]] == [
        ("author-year", "verified", "1111.2011"), ("doi", "verified", "1111.2011")]
    assert [c["status"] for c in obj["claims"]] == ["not_read"]  # in the library, but not read this session


def test_the_repl_prints_the_footer_marks_sources_and_cites(repl, fake, research, monkeypatch):
    for key, value in research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT).items():
        repl.app.settings.set(key.removeprefix("ASTRO_").lower().replace("_", "."), value, "test")
    repl.app.settings.set("arxiv_url", research.url + "/api/query", "test")
    repl.app.settings.set("arxiv_pdf_url", research.url, "test")
    repl.app.settings.set("ads_url", research.url + "/v1", "test")
    repl.app.settings.set("arxiv.min_interval", 0.0, "test")
    monkeypatch.setenv("ADS_API_TOKEN", ADS_TOKEN)
    fake.add(SEARCH, {"text": INVENTED}, {"text": INVENTED})
    output = repl.type_and_run("Which papers model TDE winds?\r/sources\r/cite\r\x04")
    assert "↳ citations: Citation check: 2019ApJ...999..123Z, arXiv:1912.99999" in output
    assert "sources: 1 verified, 2 unverified: 2019ApJ...999..123Z, arXiv:1912.99999\n" in output
    assert f"1. [cited] {TITLE}" in output
    assert "2. [consulted] " in output and "3. [consulted] " in output
    assert "4. [unverified] 2019ApJ...999..123Z" in output and "5. [unverified] 1912.99999" in output
    assert "@ARTICLE{2021NewA...8301491M," in output  # /cite: ADS has no entry for it, so the metadata one
    assert "note: left out 2 unverified citations: 2019ApJ...999..123Z, arXiv:1912.99999." in output


@pytest.mark.slow
def test_the_real_repl_prints_the_footer_under_the_insisted_answer(fake, env, workspace):
    pytest.importorskip("pexpect")
    from tests.ui.test_repl import PROMPT, quit_with_ctrl_d, spawn

    fake.add(SEARCH, {"text": INVENTED}, {"text": INVENTED})
    child = spawn(env, workspace)
    child.sendline("Which papers model TDE winds?")
    child.expect("citations: Citation check: 2019ApJ...999..123Z")
    child.expect(r"sources: 1 verified, 2 unverified: 2019ApJ\.\.\.999\.\.123Z, arXiv:1912\.99999")
    child.expect(PROMPT)
    assert quit_with_ctrl_d(child) == 0
    assert len(fake.requests) == 3
