"""Issue 31 in the REPL: /config lists only what differs from the defaults (and the model in use),
a mistyped /config key gets "did you mean", and a first question from the command line is echoed
while a typed skill is not echoed twice. The real REPL, prompt-toolkit reading keys from a pipe."""

from __future__ import annotations

import re

from tests.conftest import CTRL_D


def test_config_lists_the_model_and_only_settings_that_differ(repl):
    output = repl.type_and_run(f"/config\r/config modle\r{CTRL_D}")
    table = output.split("/config modle")[0] if "/config modle" in output else output
    assert "model" in table and "openai/fake-model" in table
    assert "max_steps" not in table and "api_base" in table  # api_base is set (ASTRO_API_BASE), max_steps is not
    assert "No setting 'modle' (did you mean 'model'?)" in output


def test_a_skill_typed_at_the_prompt_is_not_echoed_again(repl, fake, workspace):
    skill = workspace / "skills" / "quick-review"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: quick-review\ndescription: A quick review.\n---\nReview $ARGUMENTS.\n")
    from astro_cli.skills.registry import get_registry

    get_registry(repl.app).reload()
    fake.add({"text": "Reviewed."})
    output = repl.type_and_run(f"/quick-review cepheids\r{CTRL_D}")
    assert "Reviewed." in output
    assert output.count("/quick-review cepheids") == 0  # the prompt line is the only copy on screen


def test_a_first_question_from_the_command_line_is_echoed(repl, fake):
    fake.add({"text": "Pulsating stars."})
    repl.queue("what is a cepheid?")
    output = repl.type_and_run(CTRL_D)
    assert "> what is a cepheid?" in output and "Pulsating stars." in output


def test_a_subagents_lines_stay_in_the_scrollback_in_order(repl, fake, workspace):
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "Quote a.txt and b.txt"}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}},
                        {"name": "read_file", "arguments": {"path": "b.txt"}}]},
        {"text": "They say alpha and beta."},
        {"text": "alpha, then beta."},
    )
    text = repl.type_and_run("What do the files say?\r" + CTRL_D)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    numbered = [m.group(1) for line in lines if (m := re.match(r"^(\d+) (\[[\w-]+\] )?(subagent|read_file)\b", line))]
    assert numbered == ["1", "2", "3"], lines  # no jump: the inner calls are kept
    header = next(i for i, line in enumerate(lines) if line.startswith("1 subagent"))
    done = next(i for i, line in enumerate(lines) if " done · " in line and line.startswith("⤷"))
    assert header < done and lines.index(next(x for x in lines if x.startswith("2 "))) < done
    assert "alpha, then beta." in text
