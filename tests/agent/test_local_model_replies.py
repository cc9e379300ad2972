"""Issue 32: what the real small model wrote (tests/fixtures/local_model/, recorded through llama.cpp's
server by benchmarks/bench_local_model.py) is read as the calls it means, and a recorded reply
replayed by the scripted model runs those tools through the real `astro run` and litellm."""

from __future__ import annotations

import json

import pytest

from astro_cli.agent.text_calls import find_text_calls
from tests.fakeprovider import FakeProvider
from tests.helpers import last_json, tool_results
from tests.paths import FIXTURES_DIR

RECORDED = json.loads((FIXTURES_DIR / "local_model" / "qwen2.5-coder-1.5b_replies.json")
                      .read_text())["replies"]
OFFERED = {"search_papers", "get_paper_content", "rag_search", "read_file", "glob_files", "save_note"}


@pytest.mark.parametrize("reply", RECORDED, ids=[f"{r['task']}-{r['step']}-{n}" for n, r in enumerate(RECORDED)])
def test_a_recorded_reply_is_read_as_the_calls_it_means(reply):
    found = find_text_calls(reply["raw"], OFFERED)
    if reply.get("problem"):
        assert found is not None and not found.calls and reply["problem"] in (found.problem or "")
        return
    if reply["calls"] is None:
        assert found is None or not found.calls
        return
    assert found is not None and found.problem is None
    assert [[c.name, c.arguments] for c in found.calls] == reply["calls"]


def test_the_recorded_tools_block_runs_both_calls_and_the_turn_answers(cli, fake: FakeProvider, astro_env, workspace):
    """The model echoed the chat template's <tools> block with two calls in it, one per line: before
    issue 32's fix astro printed that block as the answer (1 step, no tool run)."""
    (workspace / "README.md").write_text("# transit-fits\nFits the transit light curve of Kepler-7b with batman.\n")
    (workspace / "notes.md").write_text("P = 4.885489 d\n")
    tools_block = next(r for r in RECORDED if r["raw"].startswith("<tools>"))
    fake.add({"text": tools_block["raw"]}, {"text": "The folder holds README.md and notes.md; the README says the "
                                                    "project fits Kepler-7b's transit with batman."})
    result = cli(["run", "--profile", "small", "--output-format", "json", tools_block["prompt"]], env=astro_env)
    assert result.exit_code == 0, result.stdout
    obj = last_json(result.stdout)
    assert obj["tool_calls"] == [{"name": "glob_files", "ok": True}, {"name": "read_file", "ok": True}]
    listing, readme = tool_results(fake.bodies()[1])
    assert listing.splitlines() == ["README.md", "notes.md"] and "batman" in readme
    assert "<tools>" not in obj["result"] and obj["num_steps"] == 2


def test_a_template_tag_before_a_recorded_answer_is_stripped():
    from astro_cli.agent.text_calls import strip_template_tags

    answer = next(r for r in RECORDED if r["raw"].startswith("<tool_response>"))["raw"]
    assert strip_template_tags(answer).startswith("The README file lists the files")


def test_a_json_example_followed_by_more_than_a_sentence_stays_the_answer():
    """An answer that shows a call as an example and goes on (even by one sentence, the shape the
    recorded notes_number reply has: issue 41 made it text), or names a tool not offered, stays an answer."""
    example = ('Call it like this:\n```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```\n'
               "It returns the file with line numbers.\nThen you can quote the lines you need.")
    assert find_text_calls(example, OFFERED) is None
    other = 'Like this:\n```json\n{"name": "list_files", "arguments": {}}\n```\nThat is all.'
    assert find_text_calls(other, OFFERED) is None


def test_a_recorded_schema_echo_gets_one_correction_and_the_next_call_runs(cli, fake: FakeProvider, astro_env,
                                                                          workspace):
    """The model answered with glob_files' own schema inside <tools>: before, astro printed that JSON
    as the answer; now the model is told, once, to give values instead."""
    (workspace / "scripts").mkdir()
    (workspace / "scripts" / "fit.py").write_text("import batman\n")
    echo = next(r for r in RECORDED if r.get("problem"))
    fake.add({"text": echo["raw"]},
             {"text": '```json\n{"name": "glob_files", "arguments": {"pattern": "scripts/*.py"}}\n```'},
             {"text": "scripts/fit.py is the only Python file."})
    result = cli(["run", "--profile", "small", "--output-format", "json", echo["prompt"]], env=astro_env)
    obj = last_json(result.stdout)
    assert result.exit_code == 0 and obj["result"] == "scripts/fit.py is the only Python file."
    assert obj["tool_calls"] == [{"name": "glob_files", "ok": True}]
    corrections = [m["content"] for m in fake.bodies()[1]["messages"]
                   if m["role"] == "user" and "repeats the schema of glob_files" in str(m["content"])]
    assert len(corrections) == 1
    # The example names the parameter to fill in ("{...}" left a 1.5B model nothing to copy).
    assert '{"name": "glob_files", "arguments": {"pattern": "..."}}' in corrections[0]
