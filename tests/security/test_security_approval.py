"""The approval prompt, attacked for real in the REPL under a pseudo-terminal.

An extra argument whose name is 200 newlines and `command` used to push the real command off the
screen, and "y" ran it. Now arguments the schema does not declare are refused before anyone is
asked (the model reads why), names are escaped and cut, and the command stands last, next to the
question.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.helpers import tool_results

pexpect = pytest.importorskip("pexpect")


def spawn(env: dict[str, str], workspace: Path):
    env = dict(env, TERM="dumb", COLUMNS="120", LINES="40")
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli"], env=env, cwd=str(workspace), encoding="utf-8",
                          timeout=60, dimensions=(40, 120))
    child.expect("\n> ")
    return child


def quit_repl(child) -> None:
    assert child.waitnoecho(timeout=20)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)


@pytest.mark.slow
def test_an_undeclared_argument_is_refused_before_the_question(fake, astro_env, workspace):
    hidden = "\n" * 200 + "command"
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": {"command": "touch pwned", hidden: "ls papers/"}}]},
             {"text": "I will only list."})
    child = spawn(astro_env, workspace)
    child.sendline("list the papers")
    index = child.expect(["allow\\? ", "I will only list."])
    assert index == 1, "the approval question was asked for a call with an undeclared argument"
    child.expect("\n> ")
    quit_repl(child)
    assert not (workspace / "pwned").exists()
    [refused] = tool_results(fake.bodies()[1])
    assert "unknown argument" in refused and "\\n\\n" in refused and "its parameters are command, timeout" in refused


@pytest.mark.slow
def test_the_command_stands_last_next_to_the_question(fake, astro_env, workspace):
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": {"command": "touch approved", "timeout": 30}}]},
             {"text": "done"})
    child = spawn(astro_env, workspace)
    child.sendline("make a file")
    child.expect("allow\\? ")
    lines = [line.strip() for line in child.before.replace("\r", "").splitlines() if line.strip()]
    assert lines[-1] == "command: touch approved", lines[-3:]
    assert "timeout: 30" in lines[-2]
    child.sendline("n")
    child.expect("\n> ")
    quit_repl(child)
    assert not (workspace / "approved").exists()


def test_argument_names_are_escaped_and_cut():
    from astro_cli.ui.repl import approval_lines

    lines = approval_lines({"command": "ls", "\n" * 200 + "command": "rm -rf ~"}, key="command")
    assert lines[-1].plain == "  command: ls"
    odd = lines[0].plain
    assert "\n" not in odd and "\\n" in odd and "characters)" in odd and len(odd) < 120
