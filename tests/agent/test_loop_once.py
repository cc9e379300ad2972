"""Each thing a turn keeps is redacted once and each tool call's arguments are checked once (issue 45).

A real session on the in-process fake model (tests/fakemodel.py): the loop, its tools, the redactor and
SQLite run for real; the counters wrap the real functions and let every call through."""

from __future__ import annotations

import collections

import pytest

from astro_cli.agent import tool_runner
from astro_cli.security.secrets import Redactor
from tests.conftest import base_env, clear_astro_environment
from tests.fakemodel import FakeModel

TOKEN = "ads-token-0123456789abcdefXYZ"


@pytest.fixture
def session_on(workspace, monkeypatch):
    """session_on(model) -> a real session in `workspace`, whose environment holds an ADS token."""
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy
    from astro_cli.bootstrap import build_app

    apps = []

    def open_(model: FakeModel):
        clear_astro_environment(monkeypatch)
        for key, value in {**base_env(workspace.parent), "ADS_API_TOKEN": TOKEN}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(workspace)
        app = build_app(workspace=workspace)
        apps.append(app)
        return app, open_session(app, EventBus(), permission_policy(app, yes=True), llm=model)

    yield open_
    for app in reversed(apps):
        app.close()


def _count_redactions(monkeypatch) -> collections.Counter[str]:
    """How often the redactor is handed the question and the tool's result (before or after redaction)."""
    seen: collections.Counter[str] = collections.Counter()
    real = Redactor.redact

    def counting(self: Redactor, text: str) -> str:
        for mark in ("Is my token", "token: "):
            if text and mark in text:
                seen[mark] += 1
        return real(self, text)

    monkeypatch.setattr(Redactor, "redact", counting)
    return seen


def test_a_turn_redacts_the_question_and_the_tool_result_once_each(session_on, workspace, monkeypatch):
    (workspace / "notes.txt").write_text(f"token: {TOKEN}\n")
    model = FakeModel({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}, {"text": "Done."})
    app, session = session_on(model)
    seen = _count_redactions(monkeypatch)
    session.run_turn(f"Is my token {TOKEN} in notes.txt?")
    assert seen == {"Is my token": 1, "token: ": 1}
    stored = "\n".join(str(m.message.get("content")) for m in app.sessions.messages(session.session_id))
    sent = "\n".join(str(m.get("content")) for body in model.bodies() for m in body["messages"])
    assert TOKEN not in stored and TOKEN not in sent
    assert stored.count("[REDACTED:ADS_API_TOKEN]") == 2
    session.stop("done")


def test_bg_task_run_checks_the_inner_calls_arguments_once(session_on, workspace, monkeypatch):
    (workspace / "notes.txt").write_text("flux 3 mJy\n")
    checked: collections.Counter[str] = collections.Counter()
    real = tool_runner.check_arguments

    def counting(tool, arguments):
        checked[tool.name] += 1
        return real(tool, arguments)

    monkeypatch.setattr(tool_runner, "check_arguments", counting)
    call = {"name": "bg_task_run", "arguments": {"tool": "read_file", "arguments": {"path": "notes.txt"}}}
    model = FakeModel({"tool_calls": [call]}, {"text": "Started."})
    app, session = session_on(model)
    state = session.run_turn("Read notes.txt in the background.")
    assert state.stop_reason == "answered"
    assert [entry["ok"] for entry in state.tool_log] == [True]
    assert checked == {"bg_task_run": 1, "read_file": 1}
    session.stop("done")


def test_the_loop_and_its_parts_know_no_app():
    """The session runs on the parts agent/factory.py hands it (agent/parts.py); only the factory reads the app."""
    from tests.structure import test_structure

    graph = test_structure.import_graph(types_too=True)
    loop_modules = ["astro_cli.agent.loop", "astro_cli.agent.tool_runner", "astro_cli.agent.extensions",
                    "astro_cli.agent.turn_state", "astro_cli.agent.request", "astro_cli.agent.parts"]
    reaching = [name for name in loop_modules if "astro_cli.app" in graph.get(name, set())]
    assert reaching == ["astro_cli.agent.extensions"]  # loop_extensions(app): the features' factories, found on the app


def test_arguments_a_hook_rewrites_are_checked_before_the_tool_meets_them(session_on, workspace):
    from astro_cli.hooks.runner import hook_runner

    (workspace / "notes.txt").write_text("flux 3 mJy\n")
    model = FakeModel({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}, {"text": "Done."})
    app, session = session_on(model)
    hook_runner(app).add_python("PreToolUse", lambda payload: {"updatedInput": {"path": "notes.txt", "offset": -5}})
    session.run_turn("Read notes.txt.")
    result = next(m.message["content"] for m in app.sessions.messages(session.session_id) if m.message["role"] == "tool")
    assert result.startswith("Error: after a hook changed them: read_file: 'offset' cannot be negative")
    assert "flux" not in result
    session.stop("done")
