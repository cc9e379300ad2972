"""One owner for the model (issue 16): the session. The `{{model}}` prompt variable, the environment
message, `config show` and `prompt show` all read the model the session really sends requests to."""

from __future__ import annotations

import re

from tests.conftest import CTRL_D, base_env
from tests.helpers import trust_workspace


def _persona(workspace) -> None:
    (workspace / ".astro").mkdir(exist_ok=True)
    (workspace / ".astro" / "config.yaml").write_text("persona: You run on {{model}}.\n")
    trust_workspace(workspace)  # a project's persona enters the prompt only in a trusted folder


def test_a_model_picked_from_the_anthropic_key_fills_the_model_variable(run_astro, fake, workspace):
    _persona(workspace)
    env = dict(base_env(workspace.parent), ANTHROPIC_API_KEY="sk-ant-only-this-key-000000", ASTRO_API_BASE=fake.url)
    fake.add({"text": "Hello."})
    result = run_astro(["run", "hello"], env)
    assert result.returncode == 0, result.stderr
    assert "has no value" not in result.stderr
    body = fake.bodies("anthropic")[0]
    assert "You run on anthropic/claude-sonnet-4-5." in _system(body)
    assert body["model"] == "claude-sonnet-4-5"



def test_the_model_variable_stays_the_sessions_model_when_keys_change_underneath(workspace, fake, monkeypatch):
    """A session whose model was picked from keys.yaml keeps naming that model in {{model}} when another
    terminal stores a key that would pick another one. The variable used to re-pick from the keys
    at every step, so the prompt named anthropic/claude-sonnet-4-5 while requests went to gpt-4.1."""
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.bootstrap import build_app
    from astro_cli.keystore import KeyStore

    _persona(workspace)
    for key, value in dict(base_env(workspace.parent), ASTRO_API_BASE=fake.openai_url).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(workspace)
    home = workspace.parent / "astro-home"
    home.mkdir(exist_ok=True)
    store = KeyStore.at(home)
    store.set("openai", "sk-proj-stored-key-0000000000")
    app = build_app(workspace=workspace)
    try:
        session = open_session(app, EventBus(), permission_policy(app, yes=True))
        fake.add({"text": "One."}, {"text": "Two."})
        assert session.run_turn("first").stop_reason == "answered"
        store.set("anthropic", "sk-ant-stored-key-0000000000")  # `astro keys set anthropic` elsewhere
        state = session.run_turn("second")
        assert state.stop_reason == "answered", state.error
        bodies = fake.bodies()
        assert [body["model"] for body in bodies] == ["gpt-4.1", "gpt-4.1"]
        for body in bodies:
            assert "You run on openai/gpt-4.1." in body["messages"][0]["content"]
            assert "model: openai/gpt-4.1" in body["messages"][-1]["content"]  # the environment message
    finally:
        app.close()


def _system(body: dict) -> str:
    system = body["system"]
    return "".join(part["text"] for part in system) if isinstance(system, list) else system


def test_after_model_the_prompt_variable_and_config_name_the_session_model(repl, fake):
    """`/model` changes the session's model: {{model}} in the system prompt, the environment message
    and `/config model` follow it (the variable used to keep reading the configured model)."""
    repl.app.prompt.add("persona", 0, text="You run on {{model}}.", replace=True)
    fake.add({"text": "Hi from the other model."})
    output = repl.type_and_run(f"/model openai/other-model\rhello\r/config model\r{CTRL_D}")
    body = fake.bodies()[0]
    assert body["model"] == "other-model"
    assert "You run on openai/other-model." in body["messages"][0]["content"]
    assert "model: openai/other-model" in body["messages"][-1]["content"]  # the environment message
    assert re.search(r"model\s+openai/other-model\s+/model in the REPL", output)
