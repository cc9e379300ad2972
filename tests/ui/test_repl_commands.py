"""The REPL in-process: real prompt-toolkit reading keys from a pipe, real sessions, real litellm
against the fake provider, output captured from the rich console.

These cover what the pty tests do not: /sources, /model, /resume, /cost, a feature's fallback
command queueing a prompt, multi-line input and 'always' permission answers.
"""

from __future__ import annotations

import io
import subprocess
import sys

from rich.console import Console

from astro_cli.slash import slash_commands
from astro_cli.tools.base import Tool, ToolResult, object_schema
from astro_cli.ui.repl import Repl
from tests.conftest import CTRL_D


def test_sources_lists_the_sources_research_tools_attached(repl, fake):
    sources = [
        {"id": "2019ApJ...875L...1E", "title": "First M87 Event Horizon Telescope Results. I.",
         "bibcode": "2019ApJ...875L...1E", "arxiv_id": "1906.11238", "url": "https://arxiv.org/abs/1906.11238"},
        {"id": "x2", "title": "A second paper", "bibcode": None, "arxiv_id": None, "url": None},
    ]
    repl.app.tools.register(Tool(
        name="find_papers", description="Find papers.", parameters=object_schema({"query": {"type": "string"}}),
        run=lambda ctx, args: ToolResult("2 papers found", data={"sources": sources}), key_argument="query",
    ))
    fake.add({"tool_calls": [{"name": "find_papers", "arguments": {"query": "M87 shadow"}}]}, {"text": "EHT imaged it."})
    output = repl.type_and_run(f"what imaged M87?\r/sources\r{CTRL_D}")
    assert "1 find_papers M87 shadow" in output and "EHT imaged it." in output
    # The answer cites neither: both were consulted, not cited.
    assert "1. [consulted] First M87 Event Horizon Telescope Results. I." in output
    assert "2019ApJ...875L...1E · arXiv:1906.11238 · https://arxiv.org/abs/1906.11238" in output
    assert "2. [consulted] A second paper\n" in output


def test_model_switch_applies_to_the_next_turn(repl, fake):
    fake.add({"text": "Hi from the other model."})
    output = repl.type_and_run(f"/model openai/other-model\rhello\r/model\r{CTRL_D}")
    assert fake.bodies()[0]["model"] == "other-model"
    assert "model: openai/other-model" in output
    assert repl.app.sessions.get(repl.session.session_id)["model"] == "openai/other-model"


def test_clear_then_resume_returns_to_the_earlier_conversation(repl, fake):
    fake.add({"text": "Answer one."}, {"text": "Answer two."})
    first = repl.session.session_id
    output = repl.type_and_run(f"first question\r/clear\r/resume {first}\rsecond question\r/cost\r{CTRL_D}")
    assert f"resumed session {first}" in output
    assert "last question: first question" in output and "last answer: Answer one." in output
    resent = [m["content"] for m in fake.bodies()[1]["messages"] if m["role"] in ("user", "assistant")]
    assert "first question" in resent and "Answer one." in resent
    assert "2 requests · 200 in · 40 out · cost n/a" in output  # both turns belong to the first session


def test_a_feature_fallback_command_queues_a_prompt_for_the_model(repl, fake):
    def fallback(ctx, name, args):
        if name == "explain":
            ctx.queue_prompt(f"Explain {args} simply.")
            return True
        return False

    slash_commands(repl.app).add_fallback(fallback)
    fake.add({"text": "Redshift is stretching of light."})
    output = repl.type_and_run(f"/explain redshift\r/nosuchthing\r{CTRL_D}")
    assert fake.bodies()[0]["messages"][-2]["content"] == "Explain redshift simply."
    assert "Redshift is stretching of light." in output
    assert "unknown command /nosuchthing" in output
    assert len(fake.requests) == 1


def test_multi_line_input_with_esc_enter_and_a_trailing_backslash(repl, fake):
    fake.add({"text": "Noted."})
    repl.type_and_run(f"line one\x1b\rline two\\\rline three\r{CTRL_D}")
    assert fake.bodies()[0]["messages"][-2]["content"] == "line one\nline two\nline three"


def test_always_allows_the_tool_for_the_rest_of_the_session(repl, fake, workspace):
    fake.add(
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "echo one > one.txt"}}]},
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "echo two > two.txt"}}]},
        {"text": "Both written."},
    )
    output = repl.type_and_run(f"write two files\ra\r{CTRL_D}")
    assert output.count("permission needed: run_bash") == 1
    assert (workspace / "one.txt").read_text() == "one\n" and (workspace / "two.txt").read_text() == "two\n"
    assert "Both written." in output


def test_tab_completes_slash_commands_and_ctrl_c_clears_the_line(repl, fake):
    first = repl.session.session_id
    # Keys at a person's pace: Tab once the line reads "/cle", Enter once it was completed.
    repl.send_when(lambda line: line == "/cle", "\t", until=lambda line: line == "/clear")
    repl.send_when(lambda line: line == "/clear", f"\r\x03{CTRL_D}")
    output = repl.type_and_run("a half-typed question\x03/cle")
    assert fake.requests == []  # the cleared text was never sent
    assert repl.session.session_id != first and f"new session {repl.session.session_id}" in output
    assert "press Ctrl-D or /exit to quit" in output  # Ctrl-C on the empty prompt


def test_continue_reopens_the_latest_session_and_shows_where_it_stopped(repl, fake):
    plan = [{"id": "search", "content": "Search ADS for magnetar papers", "status": "completed"},
            {"id": "read", "content": "Read the three most cited", "status": "in_progress"}]
    fake.add({"tool_calls": [{"name": "todo_write", "arguments": {"todos": plan}}]}, {"text": "Planned."})
    first = repl.type_and_run(f"what is a magnetar?\r{CTRL_D}")
    assert "Read the three most cited" in first.split("todo_write")[0]  # the plan is shown as it changes
    out = io.StringIO()
    again = Repl(repl.app, Console(file=out, width=200, color_system=None), reader=repl.reader)
    again.open(continue_latest=True)
    shown = out.getvalue()
    assert again.session.session_id == repl.session.session_id
    assert f"resumed session {repl.session.session_id} (4 messages)" in shown
    assert "last question: what is a magnetar?" in shown
    assert shown.index("resumed session") < shown.index("Read the three most cited")  # the plan follows the banner


def test_opening_the_repl_leaves_the_litellm_import_to_the_background(astro_env, workspace):
    """The prompt must not wait ~4 s for litellm: nothing on the start-up path imports it."""
    script = (
        "import io, sys\n"
        "from rich.console import Console\n"
        "from astro_cli.bootstrap import build_app\n"
        "from astro_cli.ui.prompt_input import PlainReader\n"
        "from astro_cli.ui.repl import Repl\n"
        "Repl(build_app(), Console(file=io.StringIO()), reader=PlainReader()).open()\n"
        "print('litellm' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=astro_env, cwd=workspace, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
