"""`@FILE` and `!command` at the real REPL in a pseudo-terminal (pexpect), against the fake provider."""

from __future__ import annotations

import pytest

from tests.ui.test_repl import PROMPT, quit_with_ctrl_d, spawn

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.slow


def question(fake, request: int, words: str) -> str:
    """The user's message of the request that holds `words` (the environment message is one too)."""
    [found] = [m["content"] for m in fake.bodies()[request]["messages"] if m["role"] == "user" and words in m["content"]]
    return str(found)


def test_an_at_mention_attaches_a_workspace_file_and_one_outside_is_refused(fake, astro_env, workspace, tmp_path):
    (workspace / "notes.md").write_text("The jet of M87 is 1.5 kpc long.\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("private\n")
    fake.add({"text": "It says the jet is 1.5 kpc long."})
    child = spawn(astro_env, workspace)
    child.sendline(f"compare with @{outside}")
    child.expect(r"is\s+outside\s+the\s+workspace.*Nothing\s+was\s+sent\.")  # wrapped at the terminal's width
    child.expect(PROMPT)
    child.sendline("what does @notes.md say?")
    child.expect(r"attached notes\.md \(32 characters\)")
    child.expect("It says the jet is 1.5 kpc long")
    child.expect(PROMPT)
    assert quit_with_ctrl_d(child) == 0
    assert len(fake.requests) == 1
    sent = question(fake, 0, "what does")
    assert sent == ('what does @notes.md say?\n\n<attached-file path="notes.md">\n'
                    "The jet of M87 is 1.5 kpc long.\n\n</attached-file>")
    assert "private" not in str(fake.bodies()[0])


def test_a_bang_command_runs_shows_its_output_and_reaches_the_next_question(fake, astro_env, workspace):
    fake.add({"text": "You said hi."})
    child = spawn(astro_env, workspace)
    child.sendline("!echo hi; echo there > made.txt")
    child.expect(r"hi\r?\n.*\[exit code 0\]")
    child.expect(PROMPT)
    assert (workspace / "made.txt").read_text() == "there\n"  # no permission question: typing it approved it
    assert fake.requests == []  # nothing went to the model yet
    child.sendline("what did the command print?")
    child.expect("You said hi")
    child.expect(PROMPT)
    assert quit_with_ctrl_d(child) == 0
    sent = question(fake, 0, "what did")
    assert sent.startswith('The researcher ran a command in the workspace:\n<shell-output command="echo hi; echo there > made.txt">\nhi\n')
    assert sent.endswith("</shell-output>\n\nwhat did the command print?")


def test_a_bang_command_obeys_permissions_deny(fake, astro_env, workspace):
    (workspace / ".astro").mkdir()
    (workspace / ".astro" / "config.yaml").write_text("permissions:\n  deny: [run_bash]\n")
    child = spawn(astro_env, workspace)
    child.sendline("!touch made.txt")
    child.expect(r"run_bash\s+is\s+denied\s+by\s+config\s+'permissions\.deny'")
    child.expect(PROMPT)
    assert quit_with_ctrl_d(child) == 0
    assert not (workspace / "made.txt").exists() and fake.requests == []
