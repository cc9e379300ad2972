"""Issue 30: rag_search's candidates re-ordered by the model (`library.rerank`), through the real
litellm and the scripted fake provider: the order the model gives is the order the model then sees,
its request frames the passages as data, and a reply without scores keeps the search's order."""

from __future__ import annotations

import re

import pytest

from astro_cli.bootstrap import build_app
from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from astro_cli.research.records import Hit
from astro_cli.research.search.passages import search_library
from astro_cli.research.search.rerank import POOL, reorder, scores_of
from tests.helpers import last_json, tool_results
from tests.library_support import add_paper

QUESTION = "albedo of hot Jupiters"
SEARCH = {"tool_calls": [{"name": "rag_search", "arguments": {"query": QUESTION, "k": 3}}]}
_HANDLE = re.compile(r'handle="([^"]+)"')


@pytest.fixture
def library(workspace):
    app = build_app(workspace=workspace)
    try:
        add_paper(app, "1001.0012")
        parse_paper(Library.of(app), "1001.0012", vectors="none")
        candidates = [hit.handle for hit in search_library(Library.of(app), QUESTION, k=POOL).hits]
    finally:
        app.close()
    assert len(candidates) == POOL
    return candidates


def handles_shown(body: dict) -> list[str]:
    [result] = tool_results(body)
    return _HANDLE.findall(result)


def test_the_model_order_is_what_the_agent_sees(cli, fake, astro_env, library):
    # The model judges the 15th candidate best, the 9th next, and the rest unrelated.
    scores = "\n".join(f"{n}: {10 if n == 15 else 7 if n == 9 else 0}" for n in range(1, POOL + 1))
    fake.add(SEARCH, {"text": scores}, {"text": "Low albedos."})
    env = {**astro_env, "ASTRO_LIBRARY_RERANK": "on"}
    result = cli(["run", "--output-format", "json", "How reflective are hot Jupiters?"], env=env)
    assert result.exit_code == 0, result.stderr
    assert last_json(result.stdout)["answer"] == "Low albedos."
    asked = fake.bodies()[1]["messages"]
    assert asked[0]["content"].startswith("You rank passages from research papers")
    assert asked[1]["content"].count("<paper-text") == POOL  # the 15 candidates, framed as data
    shown = handles_shown(fake.bodies()[2])
    assert shown == [library[14], library[8], library[0]]  # k=3 after the model's order, ties in search order
    assert "re-ranked by the model" in tool_results(fake.bodies()[2])[0]


def test_without_the_setting_no_model_is_asked_and_the_search_order_stays(cli, fake, astro_env, library):
    fake.add(SEARCH, {"text": "Low albedos."})
    result = cli(["run", "--output-format", "json", "How reflective are hot Jupiters?"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    assert len(fake.requests) == 2
    assert handles_shown(fake.bodies()[1]) == library[:3]


def test_a_reply_without_scores_keeps_the_search_order_and_says_so(cli, fake, astro_env, library):
    fake.add(SEARCH, {"text": "I cannot rank these."}, {"text": "Low albedos."})
    env = {**astro_env, "ASTRO_LIBRARY_RERANK": "on"}
    result = cli(["run", "--output-format", "json", "How reflective are hot Jupiters?"], env=env)
    assert result.exit_code == 0, result.stderr
    shown = tool_results(fake.bodies()[2])[0]
    assert _HANDLE.findall(shown) == library[:3]
    assert "the model gave no scores for re-ranking, so this is the search's order" in shown


def test_scores_are_read_line_by_line_and_unscored_passages_follow():
    assert scores_of("1: 3\n[2] = 9\n3. 12\nnoise 4: 5\n7: 1\n2: 0", 3) == {0: 3.0, 1: 9.0, 2: 10.0}

    hits = [Hit(chunk_id=n, kind="paper", source="1001.0012", section=None, page=None, text=name, score=0.0)
             for n, name in enumerate("abcd")]
    ordered = reorder(hits, {1: 2.0, 3: 8.0})
    assert [h.text for h in ordered] == ["d", "b", "a", "c"]
    assert ordered[0].ranks == {"model": 1} and ordered[2].ranks == {}


def test_the_rerank_asks_the_sessions_model_so_model_applies(fake, workspace, library, monkeypatch):
    """`/model` switches the session's model: rag_search's re-rank asks that model too, not the configured one."""
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.keystore import KeyStore
    from tests.conftest import base_env

    KeyStore.at(workspace.parent / "astro-home").set("openai", "sk-proj-stored-key-0000000000")
    env = {**base_env(workspace.parent), "ASTRO_API_BASE": fake.openai_url, "ASTRO_LIBRARY_RERANK": "on"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(workspace)
    app = build_app(workspace=workspace)
    try:
        session = open_session(app, EventBus(), permission_policy(app, yes=True))
        session.switch_model("openai/other-model", "/model in the REPL")
        fake.add(SEARCH, {"text": "1: 9"}, {"text": "Low albedos."})
        assert session.run_turn("How reflective are hot Jupiters?").stop_reason == "answered"
        session.stop("done")
    finally:
        app.close()
    asked = fake.bodies()[1]
    assert asked["messages"][0]["content"].startswith("You rank passages from research papers")
    assert [body["model"] for body in fake.bodies()] == ["other-model"] * 3
