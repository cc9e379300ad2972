"""A subagent run inside the real REPL (piped prompt-toolkit input): its tool lines carry its name,
the main answer follows, and /agents lists the definitions."""

from __future__ import annotations

import io
import os
from contextlib import ExitStack

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from tests.conftest import PROVIDER_KEYS

CTRL_D = "\x04"


def test_subagent_in_the_repl(astro_env, workspace, fake, monkeypatch):
    from astro_cli.bootstrap import build_app
    from astro_cli.ui.prompt_input import PromptReader
    from astro_cli.ui.repl import Repl
    from astro_cli.ui.slash import slash_table

    monkeypatch.chdir(workspace)
    for key in list(os.environ):
        if key.startswith("ASTRO_") or key in PROVIDER_KEYS:
            monkeypatch.delenv(key, raising=False)
    for key, value in astro_env.items():
        monkeypatch.setenv(key, value)
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / ".astro" / "agents").mkdir(parents=True)
    (workspace / ".astro" / "agents" / "reader.md").write_text(
        "---\nname: reader\ndescription: Reads one file and quotes it.\ntools: read_file\n---\nQuote the file.\n")
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "Quote a.txt", "agent": "reader"}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "a.txt says alpha"},
        {"text": "The file says alpha."},
    )
    with ExitStack() as stack:
        app = build_app()
        stack.callback(app.close)
        pipe = stack.enter_context(create_pipe_input())
        out = io.StringIO()
        reader = PromptReader(app.home.history_path, commands=lambda: slash_table(app), session_ids=lambda: [],
                              input=pipe, output=DummyOutput())
        shell = Repl(app, Console(file=out, width=200, color_system=None), reader=reader)
        shell.open()
        pipe.send_text("What does a.txt say?\r/agents\r/tool 2\r" + CTRL_D)
        shell.run()
        text = out.getvalue()
    assert "The file says alpha." in text
    # The subagent's block collapsed to one line naming it; its own calls stay expandable with /tool.
    assert "reader done · 2 steps" in text
    expanded = text.split("call 2: read_file")
    assert len(expanded) == 2 and "alpha" in expanded[1]
    assert "subagent Quote a.txt" in text
    assert "Reads one file and quotes it." in text  # /agents
    assert len(fake.requests) == 4


def test_permission_asked_inside_a_subagent_reaches_the_user(astro_env, workspace, fake, monkeypatch):
    """The subagent runs in the tool's worker thread; the REPL's yes/no question must still work."""
    from astro_cli.bootstrap import build_app
    from astro_cli.ui.prompt_input import PromptReader
    from astro_cli.ui.repl import Repl
    from astro_cli.ui.slash import slash_table

    monkeypatch.chdir(workspace)
    for key in list(os.environ):
        if key.startswith("ASTRO_") or key in PROVIDER_KEYS:
            monkeypatch.delenv(key, raising=False)
    for key, value in astro_env.items():
        monkeypatch.setenv(key, value)
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "make the file"}}]},
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "touch made.txt"}}]},
        {"text": "made"},
        {"text": "Done."},
    )
    with ExitStack() as stack:
        app = build_app()
        stack.callback(app.close)
        pipe = stack.enter_context(create_pipe_input())
        out = io.StringIO()
        reader = PromptReader(app.home.history_path, commands=lambda: slash_table(app), session_ids=lambda: [],
                              input=pipe, output=DummyOutput())
        shell = Repl(app, Console(file=out, width=200, color_system=None), reader=reader)
        shell.open()
        pipe.send_text("make it\ry\r" + CTRL_D)
        shell.run()
        text = out.getvalue()
    assert "permission needed: run_bash" in text and "Done." in text
    assert (workspace / "made.txt").exists()
