"""What the REPL shows a researcher in the first hour: an interruption before the first token,
/compact, Tab on skill names, a skill's echo, nudges cut at a word, tool times without the wait
for approval. In-process (the `repl` fixture) except the interruption, which needs a real Ctrl-C."""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import threading

import pytest

from astro_cli.agent.events import Nudge
from astro_cli.slash import slash_commands
from astro_cli.tasks.nudges import DIMINISHING_TEXT
from tests.conftest import CTRL_D
from tests.helpers import wait_for

PROMPT = "\n> "


def test_ctrl_c_before_the_first_token_stores_an_interrupted_reply(fake, astro_env, workspace):
    pexpect = pytest.importorskip("pexpect")
    fake.add({"text": "This reply is never sent.", "delay": 60}, {"text": "Blazars point their jets at us."})
    env = dict(astro_env, TERM="dumb", COLUMNS="100", LINES="40")
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli"], env=env, cwd=str(workspace), encoding="utf-8",
                          timeout=120, dimensions=(40, 100))
    child.expect(PROMPT)
    child.sendline("tell me about quasars")
    assert wait_for(lambda: len(fake.requests) == 1)
    # The turn has the terminal back in line mode (echo on): Ctrl-C is now a signal, not a key.
    assert wait_for(child.getecho, 60)
    child.sendintr()
    child.expect("interrupted — the turn is kept, marked interrupted, in the session")
    child.expect(PROMPT)
    child.sendline("and blazars?")
    child.expect("Blazars point their jets at us")
    child.expect(PROMPT)
    assert child.waitnoecho(timeout=60)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    with sqlite3.connect(workspace / ".astro" / "astro.db") as db:
        rows = db.execute("SELECT role, kind, message FROM agent_messages ORDER BY seq").fetchall()
    assert [(role, kind) for role, kind, _ in rows] == [
        ("user", "message"), ("assistant", "interrupted"), ("user", "message"), ("assistant", "message")]
    assert json.loads(rows[1][2])["content"] == "[interrupted]"
    sent = [(m["role"], m["content"]) for m in fake.bodies()[1]["messages"][1:-1]]
    assert sent == [("user", "tell me about quasars"), ("assistant", "[interrupted]"), ("user", "and blazars?")]


def test_compact_prints_one_line_with_one_set_of_numbers(repl, fake, workspace):
    for n in range(4):
        (workspace / f"obs{n}.txt").write_text(f"night {n}: " + "flux 3 mJy " * 60 + "\n")
    fake.add(*[{"tool_calls": [{"name": "read_file", "arguments": {"path": f"obs{n}.txt"}}]} for n in range(4)],
             {"text": "Four nights read."}, {"text": "## Request\nRead the nights.\n## Next step\nNone."})
    output = repl.type_and_run(f"read my four nights\r/compact keep the fluxes\r{CTRL_D}")
    after = output.split("/compact keep the fluxes")[-1] if "/compact keep" in output else output
    counts = [line for line in after.splitlines() if re.search(r"\d+ → \d+ messages", line)]
    assert len(counts) == 1, counts
    assert counts[0].startswith("Compacted (summary): ")


def test_tab_completes_a_skill_name_and_the_echo_shows_what_was_typed(repl, fake, workspace):
    skill = workspace / "skills" / "literature-review-fast"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: literature-review-fast\ndescription: A quick review. More text.\n"
                                    "---\nReview $ARGUMENTS quickly.\n")
    fake.add({"text": "Here is the review."})
    repl.send_when(lambda line: line == "/literature-review-f", "\t",
                   until=lambda line: line.startswith("/literature-review-fast"))
    repl.send_when(lambda line: line.startswith("/literature-review-fast"), f" hot Jupiters\r{CTRL_D}")
    output = repl.type_and_run("/literature-review-f")
    sent = fake.bodies()[0]["messages"]
    question = next(m["content"] for m in sent if m["role"] == "user")
    assert question.startswith("<command-name>literature-review-fast</command-name>")
    assert "Review hot Jupiters quickly." in question
    # The typed line stays on screen (prompt-toolkit leaves it): the REPL does not echo it a second time (issue 31).
    assert "> /literature-review-fast hot Jupiters" not in output
    assert "<command-name>" not in output and "Base directory for this skill" not in output
    row = repl.app.sessions.get(repl.session.session_id)
    assert row["title"] == "/literature-review-fast hot Jupiters"


def test_completions_offer_skills_with_their_first_sentence(repl, workspace):

    skill = workspace / "skills" / "spectral-fit"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: spectral-fit\ndescription: Fit spectra, e.g. with emcee. Then "
                                    "report.\n---\nbody\n")
    from astro_cli.skills.registry import get_registry

    get_registry(repl.app).reload()
    names = slash_commands(repl.app).completions()
    assert names["spectral-fit"] == "Fit spectra, e.g. with emcee."
    assert names["clear"] and "literature-review" in names  # commands and bundled skills alike


def test_a_nudge_is_cut_at_a_word_in_the_repl(repl):
    repl.console.width = 80
    repl.renderer.handle(Nudge(kind="nudge", text=DIMINISHING_TEXT.format(steps=2)))
    line = repl.console.file.getvalue().strip().splitlines()[-1]
    assert line.endswith("…")
    last_word = line.rstrip("…").split()[-1]
    assert last_word in [word.strip(",.;:") for word in DIMINISHING_TEXT.split()]  # a whole word, not a piece


def test_a_nudge_on_stderr_is_shown_whole(cli, fake, astro_env, workspace):
    (workspace / "a.txt").write_text("same\n")
    fake.add(*[{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}] * 3, {"text": "Done."})
    result = cli(["run", "read a.txt again and again"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    assert f"nudge: {DIMINISHING_TEXT.format(steps=2)}" in result.stderr.replace("\n", " ")


def test_a_tool_line_shows_the_run_time_not_the_wait_for_approval(repl, fake, workspace):
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": {"command": "echo hi"}}]}, {"text": "It said hi."})
    threading.Timer(2.0, repl.pipe.send_text, [f"y\r{CTRL_D}"]).start()
    output = repl.type_and_run("say hi\r")
    match = re.search(r"1 run_bash echo hi · ([0-9.]+)s · ok", output)
    assert match, output
    assert float(match.group(1)) < 1.5  # the 2 s at the question are not the command's
    stored = repl.app.sessions.messages(repl.session.session_id)
    assert next(m for m in stored if m.role == "tool").meta["duration"] < 1.5


def test_continue_in_a_folder_without_sessions_says_so_and_starts_afresh(repl):
    import io

    from rich.console import Console

    from astro_cli.ui.repl import Repl

    repl.session.stop("closed")  # the fixture's session, still empty, goes away
    out = io.StringIO()
    fresh = Repl(repl.app, Console(file=out, width=200, color_system=None), reader=repl.reader)
    fresh.open(continue_latest=True)
    assert "no earlier session in this folder to continue" in out.getvalue()
    assert f"new session {fresh.session.session_id}" in out.getvalue()

