"""Issue 48: what the 1.5B model did with five everyday tasks, replayed by the scripted model through
the real `astro run` process and litellm: astro's own environment message given back as the answer,
the task described instead of done, no tool called for a question about a file."""

from __future__ import annotations

import json
from typing import Any

from tests.fakeprovider import FakeProvider
from tests.helpers import last_json, tool_results
from tests.paths import FIXTURES_DIR


def _run(run_astro, astro_env, question: str, *flags: str) -> tuple[Any, dict[str, Any]]:
    done = run_astro(["run", *flags, "--output-format", "json", question], astro_env)
    return done, last_json(done.stdout)


def _nudges(body: dict[str, Any]) -> list[str]:
    said = [str(m["content"]) for m in body["messages"] if m["role"] == "user"][1:]
    return [text for text in said if not text.startswith("<environment>")]


def _echo_environment(body: dict[str, Any]) -> dict[str, Any]:
    """The recorded reply: the environment message astro sent last, word for word."""
    return {"text": str(body["messages"][-1]["content"])}


def _echo_tools_section(body: dict[str, Any]) -> dict[str, Any]:
    """A reply made of the system prompt's tool list (a different part of what astro sent)."""
    system = str(body["messages"][0]["content"])
    start = system.index("You can use these tools:")
    return {"text": "\n".join(system[start:].splitlines()[1:7])}


def test_the_environment_message_given_back_is_not_the_answer(run_astro, fake: FakeProvider, astro_env, workspace):
    (workspace / "data").mkdir()
    (workspace / "data" / "stars.csv").write_text("name,vmag\nVega,0.03\nSirius,-1.46\n")
    fake.add(_echo_environment, {"text": "data/stars.csv lists 2 stars (name, vmag): Vega and Sirius."})
    done, obj = _run(run_astro, astro_env, "What does the CSV in data/ contain, and how many rows?")
    assert done.returncode == 0, done.stdout + done.stderr
    assert obj["answer"] == "data/stars.csv lists 2 stars (name, vmag): Vega and Sirius."
    nudges = _nudges(fake.bodies()[1])
    assert len(nudges) == 1 and "only repeats text astro sent you" in nudges[0]


def test_astro_text_given_back_twice_pauses_with_one_sentence_and_no_answer(run_astro, fake: FakeProvider,
                                                                            astro_env):
    fake.add(_echo_environment, _echo_tools_section, {"text": "never asked for"})
    done, obj = _run(run_astro, astro_env, "What does the CSV in data/ contain?")
    assert done.returncode == 1 and obj["stop_reason"] == "paused", done.stdout
    assert obj["error"].startswith("The model repeated astro's own instructions or context as its answer twice "
                                   "in a row (it only repeats the instructions, environment or tool list")
    assert obj["answer"] == "" and "[session]" not in done.stdout
    assert len(fake.bodies()) == 2


def test_an_answer_using_a_few_environment_facts_stands(run_astro, fake: FakeProvider, astro_env):
    fake.add({"text": "You are working in the project folder with the fake model; no steps are used yet."})
    done, obj = _run(run_astro, astro_env, "Which model am I talking to?")
    assert obj["answer"].startswith("You are working in the project folder"), done.stdout
    assert len(fake.bodies()) == 1


DESCRIBED = ("You can use the save_memory tool to record this: give it a slug such as `vega-magnitudes`, "
             "the type preference and the content 'We use Vega magnitudes'.")


def test_a_task_described_instead_of_done_gets_one_nudge_to_use_the_tools(run_astro, fake: FakeProvider,
                                                                          astro_env, workspace):
    fake.add({"text": DESCRIBED},
             {"tool_calls": [{"name": "save_memory", "arguments": {
                 "slug": "vega-magnitudes", "type": "preference", "description": "Magnitudes are Vega",
                 "content": "We use Vega magnitudes."}}]},
             {"text": "Saved: we use Vega magnitudes."})
    done, obj = _run(run_astro, astro_env, "Save to memory that we use Vega magnitudes")
    assert done.returncode == 0 and obj["answer"] == "Saved: we use Vega magnitudes.", done.stdout
    assert (workspace / "memory" / "vega-magnitudes.md").is_file()
    nudges = _nudges(fake.bodies()[1])
    assert len(nudges) == 1 and "the user asked you to do it" in nudges[0]


def test_a_second_description_in_the_same_turn_stands(run_astro, fake: FakeProvider, astro_env):
    fake.add({"text": DESCRIBED}, {"text": DESCRIBED}, {"text": "never asked for"})
    done, obj = _run(run_astro, astro_env, "Save to memory that we use Vega magnitudes")
    assert obj["answer"] == DESCRIBED and len(fake.bodies()) == 2, done.stdout


def test_an_explanation_asked_for_with_how_is_the_answer(run_astro, fake: FakeProvider, astro_env):
    fake.add({"text": DESCRIBED})
    done, obj = _run(run_astro, astro_env, "How do I save a memory that we use Vega magnitudes?")
    assert done.returncode == 0 and obj["answer"] == DESCRIBED, done.stdout
    assert len(fake.bodies()) == 1


def test_a_plain_explanation_naming_no_tool_is_the_answer(run_astro, fake: FakeProvider, astro_env):
    said = "Vega magnitudes set Vega to zero in every band; you can convert to AB with a per-band offset."
    fake.add({"text": said})
    done, obj = _run(run_astro, astro_env, "Tell me what Vega magnitudes are")
    assert obj["answer"] == said and len(fake.bodies()) == 1, done.stdout


def test_the_first_step_must_call_a_tool_when_the_question_names_a_file(run_astro, fake: FakeProvider, astro_env,
                                                                        workspace):
    (workspace / "notes").mkdir()
    (workspace / "notes" / "todo.md").write_text("- [ ] reduce the K2 light curve\n")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes/todo.md"}}]},
             {"text": "One open item: reduce the K2 light curve."})
    done, obj = _run(run_astro, astro_env, "Summarise notes/todo.md", "--profile", "small")
    assert done.returncode == 0, done.stdout + done.stderr
    first, second = fake.bodies()
    assert first.get("tool_choice") == "required"
    assert "tool_choice" not in second  # the answer, after the file was read, is free


def test_no_tool_is_forced_for_a_question_naming_nothing_of_the_workspace(run_astro, fake: FakeProvider,
                                                                          astro_env):
    fake.add({"text": "A Vega magnitude is relative to Vega."})
    _run(run_astro, astro_env, "What is a Vega magnitude?", "--profile", "small")
    assert "tool_choice" not in fake.bodies()[0]


def test_a_cloud_model_gets_no_forced_call(run_astro, fake: FakeProvider, astro_env):
    env = {**astro_env, "ASTRO_LOCAL_MODELS_TEXT_TOOL_CALLS": "off"}
    fake.add({"text": "It lists stars."})
    _run(run_astro, env, "What does data/stars.csv contain?", "--profile", "default")
    assert "tool_choice" not in fake.bodies()[0]


COWAN = FIXTURES_DIR / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf"


def test_a_table_row_reaches_the_model_as_a_row_under_its_header(run_astro, fake: FakeProvider, astro_env):
    """1001.0012's Table 1 holds HD 189733b's day-side temperature (T_d=1605(52) K). Read as running
    text, its rows ran together in one line and the chunk holding that row had no header."""
    added = run_astro(["library", "add", str(COWAN)], astro_env)
    assert added.returncode == 0, added.stderr
    fake.add({"tool_calls": [{"name": "rag_search", "arguments": {"query": "HD 189733b day-side temperature table"}}]},
             {"text": "Cowan & Agol (2010), Table 1: T_d = 1605(52) K [1001.0012]."})
    done, _ = _run(run_astro, astro_env, "Which paper in my library measures the day-side temperature of HD 189733b?")
    assert done.returncode == 0, done.stdout + done.stderr
    (passages,) = tool_results(fake.bodies()[1])
    lines = passages.splitlines()
    row = next(n for n, line in enumerate(lines) if line.startswith("HD 189733b[8] |"))
    assert lines[row].endswith("T_d=1605(52) K")  # the row alone on its line, not run into the next
    above = lines[:row]
    assert any(line.startswith("Planet | T_{ε=0} [K]") for line in above[-12:])  # the header of its chunk
    assert any(line.startswith("TABLE 1 Secondary Eclipses") for line in above[-13:])


def test_tool_choice_is_sent_only_where_litellm_sends_it():
    """Ollama's generate API (`ollama/`) takes no tool_choice; its chat API and OpenAI-compatible servers do."""
    from astro_cli.litellm_model.loader import load_litellm
    from astro_cli.litellm_model.provider_checks import accepts_tool_choice

    litellm = load_litellm()
    assert accepts_tool_choice(litellm, "openai/qwen2.5-coder-1.5b")
    assert accepts_tool_choice(litellm, "ollama_chat/qwen2.5-coder:1.5b")
    assert not accepts_tool_choice(litellm, "ollama/qwen2.5-coder:1.5b")


def test_what_counts_as_naming_a_file_a_table_or_the_library():
    from astro_cli.agent.first_step import names_workspace_thing

    named = ["Summarise notes/todo.md", "What does the CSV in data/ contain?", "Open stars.fits",
             "Which paper in my library measures it?", "Plot the table of periods", "Read README.md"]
    unnamed = ["What is a Vega magnitude, e.g. for Sirius?", "Is Python 3.11 fast enough?",
               "Which plotting library is best?", "Explain the transit method."]
    assert [q for q in named if not names_workspace_thing(q)] == []
    assert [q for q in unnamed if names_workspace_thing(q)] == []


LLAMA_CPP = {"object": "list", "data": [{"id": "qwen2.5-coder-1.5b", "object": "model", "owned_by": "llamacpp",
                                         "meta": {"n_ctx": 16384}}]}


def test_a_llama_cpp_server_must_write_the_required_call_as_one_of_the_offered_tools(run_astro, fake: FakeProvider,
                                                                                    astro_env, workspace):
    """Issue 48, measured: llama.cpp ignored tool_choice for Qwen2.5-Coder's template and the first reply
    ran on in blank lines to the token limit; a response_format schema it enforces, and the reply
    (a bare {"name", "arguments"} object) is read as the call."""
    (workspace / "notes.md").write_text("Transit depth 0.0067.\n")
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "read_file", "arguments": {"path": "notes.md"}}'}, {"text": "The depth is 0.0067."})
    done, obj = _run(run_astro, astro_env, "What depth did I write in notes.md?")
    assert obj["answer"] == "The depth is 0.0067." and "Transit depth 0.0067." in tool_results(fake.bodies()[1])[0]
    first, second = fake.bodies()
    schema = first["response_format"]["json_schema"]["schema"]
    # The question names a file of the workspace: the call reads it (stop 50: made to call a tool, the
    # model called get_paper_content with an id made of the date; stop 51: it listed the file, then guessed).
    assert [branch["properties"]["name"]["const"] for branch in schema["anyOf"]] == ["read_file"]
    read_file = next(t["function"]["parameters"] for t in first["tools"] if t["function"]["name"] == "read_file")
    arguments = schema["anyOf"][0]["properties"]["arguments"]
    assert arguments["properties"]["path"]["enum"] == ["notes.md"]
    # Only `path`, narrowed; offset and limit dropped: a file not yet seen is read from its start (stop 53).
    assert {**arguments, "properties": {"path": read_file["properties"]["path"]}} == {
        **read_file, "properties": {"path": read_file["properties"]["path"]}}
    # The step after: the answer itself or work, not more reading (tests/agent/test_named_files.py).
    assert _branch_names(second)[0] == "answer" and "read_file" not in _branch_names(second)


def _branch_names(body: dict[str, Any]) -> list[str]:
    return [branch["properties"]["name"]["const"] for branch in body["response_format"]["json_schema"]["schema"]["anyOf"]]


def test_a_named_file_that_is_not_there_leaves_the_file_tools_to_choose_from(run_astro, fake: FakeProvider,
                                                                             astro_env):
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "glob_files", "arguments": {"pattern": "*.md"}}'}, {"text": "There is no notes.md."})
    _run(run_astro, astro_env, "What depth did I write in notes.md?")
    schema = fake.bodies()[0]["response_format"]["json_schema"]["schema"]
    assert [branch["properties"]["name"]["const"] for branch in schema["anyOf"]] == ["glob_files", "read_file"]


def test_a_question_naming_no_file_nor_the_library_may_start_with_any_offered_tool(run_astro, fake: FakeProvider,
                                                                                   astro_env):
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "rag_search", "arguments": {"query": "albedo"}}'}, {"text": "Nothing on albedo."})
    _run(run_astro, astro_env, "Which table lists the albedos?")
    first = fake.bodies()[0]
    names = [branch["properties"]["name"]["const"] for branch in first["response_format"]["json_schema"]["schema"]["anyOf"]]
    assert names == [tool["function"]["name"] for tool in first["tools"]] and "rag_search" in names


def test_a_server_that_refuses_the_schema_is_asked_again_without_it(run_astro, fake: FakeProvider, astro_env,
                                                                     workspace):
    (workspace / "notes.md").write_text("Transit depth 0.0067.\n")
    fake.models_listing = LLAMA_CPP
    fake.add({"status": 400, "error": "failed to parse grammar"},
             {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.md"}}]}, {"text": "0.0067."})
    done, obj = _run(run_astro, astro_env, "What depth did I write in notes.md?")
    assert obj["answer"] == "0.0067.", done.stdout + done.stderr
    refused, again = fake.bodies()[:2]
    assert "response_format" in refused and "response_format" not in again and again["tool_choice"] == "required"


def test_no_schema_for_a_server_that_is_not_llama_cpp(run_astro, fake: FakeProvider, astro_env, workspace):
    (workspace / "notes.md").write_text("Transit depth 0.0067.\n")
    fake.models_listing = {"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "vllm",
                                                        "max_model_len": 16384}]}
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.md"}}]}, {"text": "0.0067."})
    _run(run_astro, astro_env, "What depth did I write in notes.md?")
    assert fake.bodies()[0].get("tool_choice") == "required" and "response_format" not in fake.bodies()[0]


def test_a_reply_written_as_a_tool_response_is_not_the_answer(run_astro, fake: FakeProvider, astro_env, workspace):
    """Stop 50, development run: after glob_files listed the CSV, asked for its rows, the 1.5B model
    replied `<tool_response>\\n1000\\n</tool_response>`, a result no tool gave, and astro answered 1000."""
    (workspace / "data").mkdir()
    (workspace / "data" / "stars.csv").write_text("name,vmag\nVega,0.03\nDeneb,1.25\n")
    fake.add({"text": '{"name": "glob_files", "arguments": {"pattern": "*.csv", "path": "data"}}'},
             {"text": "<tool_response>\n1000\n</tool_response>"},
             {"text": '{"name": "read_file", "arguments": {"path": "data/stars.csv"}}'},
             {"text": "data/stars.csv has 2 rows of V magnitudes."})
    done, obj = _run(run_astro, astro_env, "How many rows has the CSV in data/?")
    assert obj["answer"] == "data/stars.csv has 2 rows of V magnitudes.", done.stdout + done.stderr
    nudges = _nudges(fake.bodies()[2])
    assert len(nudges) == 1 and "written as a tool response" in nudges[0]
    assert [c["name"] for c in obj["tool_calls"]] == ["glob_files", "read_file"]


MEMORY_CALL = {"slug": "cosmology-planck", "type": "preference", "description": "We use Planck 2018 cosmology.",
               "content": "We use Planck 2018 cosmology.", "replaces": ""}
MEMORY_CALL_AS_TEXT = '```json\n{\n  "name": "save_memory",\n  "arguments": ' + json.dumps(
    MEMORY_CALL, indent=2).replace("\n", "\n  ") + "\n}\n```"


def test_a_turn_whose_tool_did_the_work_ends_with_its_result_not_a_pause(run_astro, fake: FakeProvider,
                                                                          astro_env, workspace):
    """Stop 50's memory_cosmology: save_memory wrote the memory, then the model wrote the same call as
    text twice; the turn was paused with no answer. Now the tool's result is the answer."""
    fake.add({"tool_calls": [{"name": "save_memory", "arguments": MEMORY_CALL}]},
             {"text": MEMORY_CALL_AS_TEXT}, {"text": MEMORY_CALL_AS_TEXT}, {"text": "never asked for"})
    done, obj = _run(run_astro, astro_env, "Remember for later sessions that we use Planck 2018 cosmology.")
    assert done.returncode == 0 and obj["stop_reason"] == "end_turn", done.stdout
    assert (workspace / "memory" / "cosmology-planck.md").is_file()
    assert "cosmology-planck" in obj["answer"] and '"name": "save_memory"' not in obj["answer"]
    assert obj["tool_calls"] == [{"name": "save_memory", "ok": True}] and len(fake.bodies()) == 3


def test_a_read_only_result_is_no_answer_and_the_turn_still_pauses(run_astro, fake: FakeProvider, astro_env,
                                                                   workspace):
    (workspace / "notes.md").write_text("P = 4.885489 d\n")
    call = '```json\n{"name": "read_file", "arguments": {"path": "notes.md"}}\n```'
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.md"}}]}, {"text": call},
             {"text": call}, {"text": "never asked for"})
    done, obj = _run(run_astro, astro_env, "What period is in notes.md?")
    assert done.returncode == 1 and obj["stop_reason"] == "paused", done.stdout
