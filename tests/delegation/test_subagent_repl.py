"""A subagent run inside the real REPL (piped prompt-toolkit input): it shows as one collapsed line
naming it, the main answer follows, its calls expand with /tool, and /agents lists the definitions."""

from __future__ import annotations

from tests.conftest import CTRL_D


def test_subagent_in_the_repl(repl, fake, workspace):
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
    text = repl.type_and_run("What does a.txt say?\r/agents\r/tool 2\r" + CTRL_D)
    assert "The file says alpha." in text
    # The subagent's block collapsed to one line naming it; its own calls stay expandable with /tool.
    assert "reader done · 2 steps" in text
    expanded = text.split("call 2: read_file")
    assert len(expanded) == 2 and "alpha" in expanded[1]
    assert "subagent Quote a.txt" in text
    assert "Reads one file and quotes it." in text  # /agents
    assert len(fake.requests) == 4


def test_permission_asked_inside_a_subagent_reaches_the_user(repl, fake, workspace):
    """The subagent runs in the tool's worker thread; the REPL's yes/no question must still work."""
    fake.add(
        {"tool_calls": [{"name": "subagent", "arguments": {"task": "make the file"}}]},
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": "touch made.txt"}}]},
        {"text": "made"},
        {"text": "Done."},
    )
    text = repl.type_and_run("make it\ry\r" + CTRL_D)
    assert "permission needed: run_bash" in text and "Done." in text
    assert (workspace / "made.txt").exists()
