"""One owner for the model (issue 27): `/model` changes the session's `CurrentModel`; the next request,
the sessions row, `/clear` and a later resume follow it; keys.yaml is parsed once per process and again
only when the file changes. Real sessions, real SQLite, real litellm against the fake provider."""

from __future__ import annotations

import pytest

from tests.conftest import CTRL_D, base_env


@pytest.fixture
def in_process(workspace, fake, monkeypatch):
    """open(flags=None, **session_args) -> (app, session) in `workspace`, talking to the fake provider."""
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.bootstrap import build_app

    for key, value in dict(base_env(workspace.parent), ASTRO_API_BASE=fake.openai_url).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(workspace)
    apps = []

    def open_(flags=None, **session_args):
        app = build_app(flags, workspace=workspace)
        apps.append(app)
        return app, open_session(app, EventBus(), permission_policy(app, yes=True), **session_args)

    yield open_
    for app in reversed(apps):
        app.close()


def _bearer(request: dict) -> str:
    return request["headers"].get("Authorization") or request["headers"].get("authorization") or ""


def test_a_key_changed_in_keys_yaml_is_used_from_the_next_request_and_the_file_is_parsed_once(in_process, fake,
                                                                                              workspace):
    from astro_cli.keystore import KeyStore

    home = workspace.parent / "astro-home"
    KeyStore.at(home).set("openai", "sk-proj-first-key-00000000000")
    app, session = in_process()
    fake.add({"text": "One."}, {"text": "Two."}, {"text": "Three."}, {"text": "Four."})
    for question in ("first", "second", "third"):
        assert session.run_turn(question).stop_reason == "answered"
    assert [_bearer(r) for r in fake.requests] == ["Bearer sk-proj-first-key-00000000000"] * 3
    # Three requests (and the model choice at start) read the key; keys.yaml was parsed once.
    assert app.keys.parses == 1
    KeyStore.at(home).set("openai", "sk-proj-second-key-1111111111")  # `astro keys set openai` in another terminal
    state = session.run_turn("fourth")
    assert state.stop_reason == "answered", state.error
    assert _bearer(fake.requests[-1]) == "Bearer sk-proj-second-key-1111111111"
    assert app.keys.parses == 2


def test_a_hand_edited_keys_yaml_is_read_again(in_process, fake, workspace):
    home = workspace.parent / "astro-home"
    home.mkdir(exist_ok=True)
    keys = home / "keys.yaml"
    keys.write_text("openai: sk-proj-first-key-00000000000\n")
    keys.chmod(0o600)
    app, session = in_process()
    fake.add({"text": "One."}, {"text": "Two."})
    assert session.run_turn("first").stop_reason == "answered"
    keys.write_text("openai: sk-proj-edited-by-hand-key-22\n")  # rewritten in place: same inode, new size
    assert session.run_turn("second").stop_reason == "answered"
    assert _bearer(fake.requests[-1]) == "Bearer sk-proj-edited-by-hand-key-22"
    assert app.keys.parses == 2


def _store_key(workspace) -> None:
    from astro_cli.keystore import KeyStore

    KeyStore.at(workspace.parent / "astro-home").set("openai", "sk-proj-stored-key-0000000000")


def test_model_switches_the_next_request_the_row_and_a_resume_goes_on_with_it(in_process, fake, workspace):
    _store_key(workspace)
    app, session = in_process()
    fake.add({"text": "Before."}, {"text": "After."}, {"text": "Resumed."})
    session.run_turn("first")
    session.switch_model("openai/other-model", "/model in the REPL")
    session.run_turn("second")
    assert [body["model"] for body in fake.bodies()] == ["gpt-4.1", "other-model"]
    assert app.sessions.get(session.session_id)["model"] == "openai/other-model"
    session_id = session.session_id
    session.stop("done")

    _, resumed = in_process(resume=session_id)
    assert resumed.model == "openai/other-model"
    assert resumed.llm.current.origin == "the resumed session"
    assert resumed.run_turn("third").stop_reason == "answered"
    assert fake.bodies()[-1]["model"] == "other-model"


def test_a_model_given_on_the_command_line_wins_over_the_resumed_sessions(in_process, fake, workspace):
    _store_key(workspace)
    fake.add({"text": "Before."}, {"text": "After."})
    _, session = in_process()
    session.switch_model("openai/other-model", "/model in the REPL")
    session.run_turn("first")
    session_id = session.session_id
    session.stop("done")
    app, resumed = in_process({"model": "openai/third-model"}, resume=session_id)
    resumed.run_turn("second")
    assert [body["model"] for body in fake.bodies()] == ["other-model", "third-model"]
    assert app.sessions.get(session_id)["model"] == "openai/third-model"  # the row says what it uses


def test_clear_keeps_the_model_that_model_chose(repl, fake):
    fake.add({"text": "One."}, {"text": "Two."})
    first = repl.session.session_id
    output = repl.type_and_run(f"/model openai/other-model\rhello\r/clear\ragain\r/config model\r{CTRL_D}")
    assert [body["model"] for body in fake.bodies()] == ["other-model", "other-model"]
    assert repl.session.session_id != first
    assert repl.app.sessions.get(repl.session.session_id)["model"] == "openai/other-model"
    assert "/model in the REPL" in output
