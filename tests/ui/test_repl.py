"""The real `astro` REPL driven in a pseudo-terminal (pexpect) against the fake provider.

TERM is 'dumb': prompt-toolkit then prints the prompt and the typed text without cursor
movements, and rich prints each answer once instead of redrawing a live region, so the output
can be matched as plain text. The full-screen path (TERM=xterm) uses the same key bindings,
events and renderer. Each test starts a real process (~5 s, litellm's import), so they are few.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.slow

PROMPT = "\n> "


def spawn(env: dict[str, str], workspace: Path):
    env = dict(env, TERM="dumb", COLUMNS="100", LINES="40")
    child = pexpect.spawn(
        sys.executable, ["-m", "astro_cli"], env=env, cwd=str(workspace), encoding="utf-8", timeout=120,
        dimensions=(40, 100),
    )
    child.expect(PROMPT)
    return child


def type_key(child, control: str) -> None:
    """Press Ctrl-<key> once prompt-toolkit has put the terminal in raw mode (echo off); in the
    terminal's cooked mode the tty driver, not astro, would act on the key."""
    assert child.waitnoecho(timeout=60)
    child.sendcontrol(control)


def quit_with_ctrl_d(child) -> int:
    type_key(child, "d")
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def stored(workspace: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(workspace / ".astro" / "astro.db") as db:
        return db.execute(sql).fetchall()


def test_question_with_a_tool_call_shows_the_tool_line_the_answer_and_the_usage(fake, astro_env, workspace):
    (workspace / "notes.txt").write_text("hello from the notes\n")
    fake.add(
        {"text": "Let me look.", "tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"text": "The notes say **hello**."},
    )
    child = spawn(astro_env, workspace)
    child.sendline("what do my notes say?")
    child.expect(r"1 read_file notes\.txt · [0-9.]+s · ok")
    child.expect("The notes say hello")
    child.expect("200 in · 40 out · cost n/a")  # two requests of the fake's 100 in / 20 out; no price known
    child.expect(PROMPT)
    child.sendline("/tool 1")
    child.expect('"path": "notes.txt"')
    child.expect("hello from the notes")
    child.expect(PROMPT)
    child.sendline("/sources")
    child.expect("no sources")
    child.expect(PROMPT)
    assert quit_with_ctrl_d(child) == 0
    assert len(fake.requests) == 2
    history = (Path(astro_env["ASTRO_HOME"]) / "history").read_text()
    assert "+what do my notes say?" in history and "+/tool 1" in history


def test_slash_commands_help_unknown_clear_and_exit_never_reach_the_model(fake, astro_env, workspace):
    child = spawn(astro_env, workspace)
    first_session = child.before.split("new session ")[1].split()[0]
    secret = astro_env["ASTRO_API_KEY"]
    child.sendline(f"/frobnicate {secret}")
    child.expect(r"unknown command /frobnicate; /help lists the commands")
    child.expect(PROMPT)
    child.sendline("/help")
    for command in ("/clear", "/model", "/resume", "/sources", "/tool"):
        child.expect_exact(command)
    child.expect(PROMPT)
    child.sendline("/clear")
    child.expect(r"new session (\w+)")
    second_session = child.match.group(1)
    child.expect(PROMPT)
    type_key(child, "c")  # Ctrl-C on an empty prompt: a hint, and the prompt again
    child.expect("press Ctrl-D or /exit to quit")
    child.expect(PROMPT)
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert fake.requests == []
    assert second_session != first_session
    # Neither session got a question, so neither is left behind as an empty row in `astro sessions list`.
    # In a fresh folder nothing at all is left: a database that holds nothing is removed (issue 31).
    assert not (workspace / ".astro" / "astro.db").exists()
    history = (Path(astro_env["ASTRO_HOME"]) / "history").read_text()
    assert "+/help" in history and "+/clear" in history
    assert secret not in history and "frobnicate" not in history  # a line carrying a key is never stored


def test_ctrl_c_cancels_a_hanging_turn_and_the_session_goes_on(fake, astro_env, workspace):
    fake.add(
        {"text": "Quasars are powered by accretion onto black holes.", "hang": True},
        {"text": "Blazars point their jets at us."},
    )
    child = spawn(astro_env, workspace)
    child.sendline("tell me about quasars")
    assert fake.hanging.wait(120)
    # Left as it was: a pause for the first piece to reach astro (it is what the test expects kept);
    # nothing on the terminal shows that moment (TERM=dumb prints the answer when it is complete).
    time.sleep(0.3)
    child.sendintr()
    child.expect("interrupted")
    child.expect(PROMPT)
    child.sendline("and blazars?")
    child.expect("Blazars point their jets at us")
    child.expect(PROMPT)
    assert quit_with_ctrl_d(child) == 0
    partial = stored(workspace, "SELECT kind, message FROM agent_messages WHERE role = 'assistant' ORDER BY seq")
    kind, message = partial[0]
    assert kind == "interrupted"
    assert json.loads(message)["content"].startswith("Quasars") and "[interrupted]" in message
    second_request = fake.bodies()[1]["messages"]
    assert any(m["role"] == "assistant" and "[interrupted]" in str(m["content"]) for m in second_request)


def test_permission_refused_in_the_prompt_reaches_the_model_as_an_error(fake, astro_env, workspace):
    fake.add(
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "echo hi > out.txt"}}]},
        {"text": "Understood, I did not run it."},
    )
    child = spawn(astro_env, workspace)
    child.sendline("write hi into out.txt")
    child.expect("permission needed: run_bash")
    child.expect("command: echo hi > out.txt")
    child.expect_exact("allow? [y]es / [n]o / [a]lways for this session: ")
    child.sendline("n")
    child.expect(r"1 run_bash echo hi > out\.txt · [0-9.]+s · error: The user declined")
    child.expect("Understood, I did not run it")
    child.expect(PROMPT)
    assert quit_with_ctrl_d(child) == 0
    assert not (workspace / "out.txt").exists()
    results = [m for m in fake.bodies()[1]["messages"] if m["role"] == "tool"]
    assert results and "declined to run run_bash" in results[0]["content"]
