"""Issue 43: a retraction Crossref reports reaches /evidence in the REPL, not only `astro search`. The
scripted model searches for Crossref's test DOI (the stand-in serves the recorded answer with a retraction in
2009 and a correction in 2018) and cites it; /evidence names the notice."""

from __future__ import annotations

import pytest

from tests import research_server

research = research_server.research
RETRACTED = "10.5555/12345678"


@pytest.fixture
def astro_env(astro_env, research):  # noqa: F811 - the REPL reads the stand-in services
    env = {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT)}
    env.pop("ADS_API_TOKEN", None)
    return env


def test_evidence_names_the_retraction_of_a_cited_paper(repl, fake):
    search = {"tool_calls": [{"name": "search_papers", "arguments": {"query": f"doi:{RETRACTED}"}}]}
    fake.add(search, {"text": f"Silly string theory unifies high-energy metaphysics ({RETRACTED})."})
    output = repl.type_and_run("Silly string theory?\r/evidence\r\x04")
    assert f"sources: 1 verified · {RETRACTED} retracted 2009; corrected 2018" in output
    assert f"{RETRACTED}: retracted 2009; corrected 2018 (Crossref)" in output
