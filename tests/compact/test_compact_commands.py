"""What people touch: /compact in the REPL, `astro sessions show`, resumed sessions, bad settings."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import ExitStack

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from astro_cli.compact.engine import find_engine
from astro_cli.compact.records import CompactionStore
from astro_cli.slash import slash_commands
from tests.compact_support import (
    SUMMARY_TEXT,
    ScriptedModel,
    compaction_events,
    is_summary_request,
    open_test_session,
    read,
    text,
    write_files,
)

CTRL_D = "\x04"


def test_compact_in_the_repl_summarizes_with_the_users_instructions(monkeypatch, workspace, fake) -> None:
    from astro_cli.ui.prompt_input import PromptReader
    from astro_cli.ui.repl import Repl

    write_files(workspace, {f"s{i}.txt": 80 for i in range(6)})
    model = ScriptedModel([read(f"s{i}.txt") for i in range(6)] + [{"text": "Six files read."}]).attach(fake)
    app, session, _ = open_test_session(monkeypatch, workspace, fake)
    app.close()
    from astro_cli.bootstrap import build_app

    with ExitStack() as stack:
        app = build_app()
        stack.callback(app.close)
        pipe = stack.enter_context(create_pipe_input())
        out = io.StringIO()
        reader = PromptReader(
            app.home.history_path,
            commands=slash_commands(app).completions,
            session_ids=lambda: [],
            input=pipe,
            output=DummyOutput(),
        )
        shell = Repl(app, Console(file=out, width=200, color_system=None), reader=reader)
        shell.open()
        pipe.send_text("Read the six files\r/compact keep the file names\rAnd now?\r" + CTRL_D)
        shell.run()
        output = out.getvalue()
        session_id = shell.session.session_id if shell.session else None
    assert "Compacted (summary)" in output and "messages" in output
    summary_request = next(b for b in model.seen if is_summary_request(b))
    assert text(summary_request["messages"][-1]).endswith("keep the file names")
    next_turn = model.seen[model.seen.index(summary_request) + 1]["messages"]
    assert text(next_turn[1]).startswith("[Conversation summary]")
    assert text(next_turn[-2]) == "And now?"
    assert len(next_turn) < len(summary_request["messages"])
    assert session_id is not None


def test_sessions_show_tells_where_compactions_happened(monkeypatch, workspace, fake, cli) -> None:
    write_files(workspace, {f"s{i}.txt": 80 for i in range(6)})
    ScriptedModel([read(f"s{i}.txt") for i in range(6)]).attach(fake)
    app, session, _ = open_test_session(monkeypatch, workspace, fake)
    session.run_turn("Read the six files")
    outcome = find_engine(session).compact_now(session, "keep the distances")
    assert outcome.changed, outcome.describe()
    session_id = session.session_id
    app.close()
    result = cli(["sessions", "export", session_id, "--format", "md"])
    assert result.exit_code == 0, result.output
    shown = result.stdout
    assert "## Compactions" in shown
    assert "layer 2, summary (/compact)" in shown and "instructions: keep the distances" in shown
    assert "2011Natur.480..344N" in shown  # the summary text itself
    assert shown.count("### Tool result: read_file") == 6  # the stored history is complete
    result = cli(["sessions", "show", session_id])
    assert result.exit_code == 0 and "Compactions" in result.stdout
    exported = json.loads(cli(["sessions", "export", session_id, "--format", "json"]).stdout)
    sections = {s["title"]: s["text"] for s in exported["sections"]}
    assert "layer 2, summary (/compact)" in sections["Compactions"]


def test_a_resumed_session_sends_the_recorded_summary_not_the_covered_history(
    monkeypatch, workspace, fake
) -> None:
    from astro_cli.agent.events import EventBus
    from astro_cli.agent.factory import open_session, permission_policy

    write_files(workspace, {f"s{i}.txt": 80 for i in range(6)})
    model = ScriptedModel([read(f"s{i}.txt") for i in range(6)]).attach(fake)
    app, session, _ = open_test_session(monkeypatch, workspace, fake)
    session.run_turn("Read the six files")
    assert find_engine(session).compact_now(session).changed
    session_id, stored = session.session_id, len(session.messages)
    app.close()

    from astro_cli.bootstrap import build_app

    app = build_app()
    resumed = open_session(app, EventBus(), permission_policy(app, yes=True), resume=session_id)
    assert len(resumed.messages) == stored
    assert resumed.run_turn("Continue").stop_reason == "answered"
    sent = model.seen[-1]["messages"]
    assert text(sent[1]) == "[Conversation summary]\n" + SUMMARY_TEXT
    assert len(sent) < stored
    assert model.summaries == 1  # no new summary was paid for
    app.close()


def test_disabled_auto_compaction_still_allows_compact(monkeypatch, workspace, fake) -> None:
    write_files(workspace, {f"s{i}.txt": 10 for i in range(3)})
    model = ScriptedModel([read(f"s{i}.txt") for i in range(3)], usage={"input_tokens": 59000}).attach(fake)
    app, session, events = open_test_session(
        monkeypatch, workspace, fake, context_window=60000, compaction_enabled="false"
    )
    assert session.run_turn("Read three files").stop_reason == "answered"
    assert compaction_events(events) == [] and model.summaries == 0
    assert find_engine(session).compact_now(session).layers[0] == "summary"
    rows = CompactionStore(app.db).list(session.session_id)
    assert rows[0]["trigger"] == "manual"
    app.close()


@pytest.mark.parametrize(
    ("variable", "value", "sentence"),
    [
        # Below 0.05 the threshold used to be reset to 0.8 with a notice, above 1 it stopped astro:
        # one range now, declared in config_schema, and one outcome.
        ("ASTRO_COMPACTION_THRESHOLD", "0.01", "'compaction.threshold' must be at least 0.05 and at most 1 (got 0.01)."),
        ("ASTRO_COMPACTION_THRESHOLD", "1.7", "'compaction.threshold' must be at least 0.05 and at most 1 (got 1.7)."),
        ("ASTRO_COMPACTION_SNIP_KEEP_TAIL", "-3", "'compaction.snip_keep_tail' must be at least 1 and at most 100000"),
        ("ASTRO_CONTEXT_WINDOW", "10", "'context_window' must be at least 1000 (got 10)."),
    ],
)
def test_a_compaction_setting_out_of_its_range_stops_astro_with_one_sentence(
    cli, astro_env, fake, variable, value, sentence
) -> None:
    result = cli(["run", "hi"], {**astro_env, variable: value})
    assert result.exit_code == 2 and fake.requests == []
    assert f"env {variable}: {sentence}" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_an_unknown_models_window_is_a_default_with_one_notice(monkeypatch, workspace, fake) -> None:
    from astro_cli.compact.window import DEFAULT_WINDOW

    ScriptedModel([]).attach(fake)
    app, session, events = open_test_session(monkeypatch, workspace, fake)
    assert session.run_turn("hi").stop_reason == "answered"
    engine = find_engine(session)
    assert engine._window.tokens == DEFAULT_WINDOW and engine._window.source == "default"
    # the guess only matters once the context nears it; then the user hears about it, once
    engine._limit(session, DEFAULT_WINDOW)
    engine._limit(session, DEFAULT_WINDOW)
    notices = [e for e in events if e.type == "notice" and "does not know the context window" in e.text]
    assert len(notices) == 1 and "'openai/fake-model'" in notices[0].text
    app.close()


def test_counting_without_a_model_does_not_import_litellm(tmp_path) -> None:
    code = (
        "import sys, json\n"
        "from astro_cli.agent.tokens import TokenCounter\n"
        "c = TokenCounter('openai/gpt-4.1')\n"
        "n = c.messages([{'role': 'user', 'content': 'word ' * 400}])\n"
        "print(json.dumps({'tokens': n, 'litellm': 'litellm' in sys.modules}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTRO_")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=180)
    result = json.loads(done.stdout)
    assert result["litellm"] is False
    assert 400 <= result["tokens"] <= 800  # ~4 characters a token: 2000 characters


def test_the_window_follows_litellm_and_config_overrides_it(monkeypatch, workspace, fake) -> None:
    from astro_cli.compact.window import resolve_window
    from astro_cli.config import Settings
    from astro_cli.litellm_model.loader import load_litellm

    load_litellm()  # the window comes from litellm's model table once a model path has loaded it
    settings = Settings()
    assert resolve_window(settings, "anthropic/claude-sonnet-4-5").tokens == 200000
    settings.set("context_window", 50000, "a test")
    assert resolve_window(settings, "anthropic/claude-sonnet-4-5").tokens == 50000
