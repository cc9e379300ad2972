"""Issue 31, the first hour: habits researchers bring from git, Claude Code and llm.

`astro "question"` and `astro -p`, finding the workspace from a subfolder, and an Ollama model
with no --api-base. Every test drives the real `astro` process (a subprocess, or a pseudo-terminal).
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from tests.conftest import base_env
from tests.fakeollama import FakeOllama


def spawn(args: list[str], env: dict[str, str], cwd: Path):
    pexpect = pytest.importorskip("pexpect")
    env = dict(env, TERM="dumb", COLUMNS="100", LINES="40")
    return pexpect.spawn(sys.executable, ["-m", "astro_cli", *args], env=env, cwd=str(cwd), encoding="utf-8",
                         timeout=60, dimensions=(40, 100))


def quit_with_ctrl_d(child) -> None:
    import pexpect

    assert child.waitnoecho(timeout=30)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()


# --- 1. a bare question, and -p/--print -------------------------------------------------------------
def test_a_bare_question_starts_the_repl_with_it_as_the_first_turn(fake, astro_env, workspace):
    fake.add({"text": "A Cepheid is a pulsating giant."}, {"text": "Their period tells their luminosity."})
    child = spawn(["what is a cepheid?"], astro_env, workspace)
    child.expect("A Cepheid is a pulsating giant")
    child.expect("\n> ")
    child.sendline("and why do they matter?")
    child.expect("Their period tells their luminosity")
    child.expect("\n> ")
    quit_with_ctrl_d(child)
    sent = [m["content"] for m in fake.bodies()[1]["messages"] if m["role"] == "user"]
    assert sent[0] == "what is a cepheid?"
    assert "and why do they matter?" in sent


def test_print_flag_answers_once_like_astro_run(run_astro, fake, astro_env):
    fake.add({"text": "A Cepheid is a pulsating giant."})
    result = run_astro(["-p", "what is a cepheid?"], astro_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "A Cepheid is a pulsating giant."
    fake.add({"text": '{"ok": 1}'})
    result = run_astro(["--print", "--output-format", "json", "again?"], astro_env)
    assert result.returncode == 0, result.stderr
    assert '"is_error": false' in result.stdout


def test_a_question_named_like_a_command_comes_after_double_dash(run_astro, fake, astro_env):
    fake.add({"text": "Searching is what I do."})
    result = run_astro(["-p", "--", "search"], astro_env)
    assert result.returncode == 0, result.stderr
    assert "Searching is what I do." in result.stdout
    assert fake.bodies()[0]["messages"][-2]["content"].startswith("search")
    listed = run_astro(["sessions", "list"], astro_env)  # sub-commands are untouched
    assert listed.returncode == 0 and "search" in listed.stdout
    helped = run_astro(["--help"], astro_env)
    assert "astro -- search" in helped.stdout and "--print" in helped.stdout


# --- 2. the workspace is found from a subfolder, and read-only commands create nothing ---------------
def test_a_subfolder_uses_the_workspace_above_it(run_astro, fake, astro_env, workspace):
    assert run_astro(["init"], astro_env).returncode == 0
    fake.add({"text": "Hubble's answer."}, {"text": "Continued from notes/."})
    assert run_astro(["run", "what is H0?"], astro_env).returncode == 0
    notes = workspace / "notes" / "drafts"
    notes.mkdir(parents=True)
    listed = run_astro(["sessions", "list"], astro_env, cwd=notes)
    assert "what is H0?" in listed.stdout, listed.stdout
    result = run_astro(["run", "--continue", "and then?"], astro_env, cwd=notes)
    assert result.returncode == 0, result.stderr
    assert "Continued from notes/." in result.stdout
    assert not (workspace / "notes" / ".astro").exists() and not (notes / ".astro").exists()
    sent = fake.bodies()[1]["messages"]
    assert any(m["role"] == "user" and m["content"].startswith("what is H0?") for m in sent)


def test_reading_commands_and_a_failed_continue_leave_no_astro_folder(run_astro, astro_env, workspace):
    for args in (["sessions", "list"], ["library", "list"], ["run", "--continue", "more?"], ["memory", "list"]):
        run_astro(args, astro_env)
        assert not (workspace / ".astro").exists(), args


def test_the_walk_stops_at_the_users_home(run_astro, fake, astro_env, tmp_path):
    outer = tmp_path / "outer"
    (outer / ".astro").mkdir(parents=True)
    home = outer / "me"
    folder = home / "paper"
    folder.mkdir(parents=True)
    fake.add({"text": "ok"})
    env = dict(astro_env, HOME=str(home))
    assert run_astro(["run", "hello"], env, cwd=folder).returncode == 0
    assert (folder / ".astro" / "astro.db").exists()
    assert not (outer / ".astro" / "astro.db").exists()


# --- 4. an Ollama model needs no --api-base ----------------------------------------------------------
def test_an_ollama_model_defaults_to_the_ollama_url(run_astro, workspace, tmp_path):
    server = FakeOllama([("llama3.1:8b", ["completion", "tools"])], replies=["Hello from llama."])
    try:
        env = dict(base_env(tmp_path), ASTRO_OLLAMA_URL=server.url)
        result = run_astro(["run", "--model", "ollama_chat/llama3.1:8b", "hi"], env)
        assert result.returncode == 0, result.stderr
        assert "Hello from llama." in result.stdout
        assert server.chat_bodies()
    finally:
        server.close()


def test_an_ollama_that_does_not_answer_is_named(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)  # ASTRO_OLLAMA_URL is a closed port
    result = run_astro(["run", "--model", "ollama_chat/llama3.1", "x"], env)
    assert result.returncode == 3, result.stderr
    assert "is Ollama running (`ollama serve`)?" in result.stderr
    assert "OLLAMA_API_BASE" not in result.stderr
    with sqlite3.connect(workspace / ".astro" / "astro.db") as db:  # the question is kept to resume
        assert db.execute("SELECT count(*) FROM agent_messages WHERE role = 'user'").fetchone()[0] == 1


# --- 14. a cold start says so; the REPL starts the warm worker -------------------------------------------
def test_a_slow_start_shows_starting_on_a_terminal(fake, astro_env, workspace):
    import pexpect
    import yaml

    from tests.helpers import trust_workspace

    # A start that takes a while before the first event (here a SessionStart hook; in life, litellm's import).
    (workspace / ".astro").mkdir()
    (workspace / ".astro" / "config.yaml").write_text(yaml.safe_dump({"hooks": {"SessionStart": [
        {"hooks": [{"type": "command", "command": "sleep 2"}]}]}}))
    trust_workspace(workspace)
    fake.add({"text": "A Cepheid pulsates."})
    env = dict(astro_env, TERM="xterm", COLUMNS="100", LINES="40")  # a terminal rich animates a status on
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli", "run", "what is a cepheid?"], env=env,
                          cwd=str(workspace), encoding="utf-8", timeout=60, dimensions=(40, 100))
    child.expect("starting…")
    child.expect("A Cepheid pulsates")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_the_repl_starts_the_warm_worker_as_it_opens(fake, astro_env, workspace, tmp_path):
    from tests.helpers import wait_for
    from tests.worker_support import new_worker

    worker = new_worker(tmp_path / "w", start=False)
    try:
        env = worker.client_env(astro_env)
        child = spawn([], env, workspace)
        child.expect("\n> ")
        assert wait_for(lambda: worker.status() is not None, 120), worker.log()
        quit_with_ctrl_d(child)
        assert worker.status() is not None  # it outlives the REPL, for the next `astro run`
    finally:
        worker.stop()


# --- 19 (at a terminal). library add asks for the year a .tex does not give ---------------------------------
def test_library_add_at_a_terminal_asks_for_a_missing_year(workspace, tmp_path):
    import json
    import shutil
    import subprocess

    import pexpect

    from tests.library_support import EMCEE_TEX

    (workspace / "draft").mkdir()
    shutil.copyfile(EMCEE_TEX, workspace / "draft" / "main.tex")
    env = base_env(tmp_path)
    child = spawn(["library", "add", "./draft/main.tex", "--no-parse"], env, workspace)
    child.expect("which year is it")
    child.sendline("2013")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    listed = subprocess.run([sys.executable, "-m", "astro_cli", "library", "list", "--json"], env=env,
                            cwd=workspace, capture_output=True, text=True, timeout=60)
    [row] = json.loads(listed.stdout)
    assert row["year"] == 2013
