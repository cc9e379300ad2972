"""Issue 48, stop 52: a small model's required first call, narrowed by what the question names. The
scripted model replays what Qwen2.5-Coder-1.5B wrote (benchmarks/data/local_model_stop51/) through the
real `astro run` and litellm; the llama.cpp listing makes astro send the call as a JSON schema."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.fakeprovider import FakeProvider
from tests.helpers import last_json, tool_results
from tests.paths import FIXTURES_DIR

LLAMA_CPP = {"object": "list", "data": [{"id": "qwen2.5-coder-1.5b", "object": "model", "owned_by": "llamacpp",
                                         "meta": {"n_ctx": 16384}}]}
COWAN = FIXTURES_DIR / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf"


def _run(run_astro, env, question: str) -> dict[str, Any]:
    done = run_astro(["run", "--output-format", "json", question], env)
    return last_json(done.stdout)


def _first_call(fake: FakeProvider) -> list[dict[str, Any]]:
    """The branches of the schema the first request's call had to fit."""
    first = fake.bodies()[0]
    assert first["tool_choice"] == "required"
    return list(first["response_format"]["json_schema"]["schema"]["anyOf"])


def _names(branches: list[dict[str, Any]]) -> list[str]:
    return [branch["properties"]["name"]["const"] for branch in branches]


def _paths(branches: list[dict[str, Any]]) -> list[str]:
    (read_file,) = branches
    return list(read_file["properties"]["arguments"]["properties"]["path"]["enum"])


def _project(workspace: Path) -> None:
    for name, text in {"README.md": "# transit-fits\nRun `python scripts/fit.py data/kepler7b.csv`.\n",
                       "notes.md": "Transit depth 0.0067.\n", "scripts/fit.py": "import emcee\n",
                       "data/stars.csv": "name,vmag\nVega,0.03\n", "data/rv.csv": "bjd,rv_ms\n2460010.5,-41.2\n",
                       "data/targets.ecsv": "# %ECSV 1.0\nplanet depth\nWASP-12b 0.0138\n",
                       "notes/meeting.md": "# Group meeting\n- The JWST proposal deadline is 21 March.\n"}.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)


def test_a_library_question_starts_with_rag_search(run_astro, fake: FakeProvider, astro_env):
    """Stop 51: made to call any tool, the model called get_paper_content with an id made of the date
    (`2026.12.07.15.46.00`) in 9 of 9 library questions, then copied the error."""
    assert run_astro(["library", "add", str(COWAN)], astro_env).returncode == 0
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "rag_search", "arguments": {"query": "HD 189733b day-side temperature"}}'},
             {"text": "Cowan & Agol give T_d = 1605(52) K for HD 189733b [1001.0012]."})
    obj = _run(run_astro, astro_env, "Which paper in my library measures the day-side temperature of HD 189733b?")
    assert _names(_first_call(fake)) == ["rag_search"]
    assert obj["tool_calls"] == [{"name": "rag_search", "ok": True}] and "1605" in obj["answer"]
    assert _names(list(fake.bodies()[1]["response_format"]["json_schema"]["schema"]["anyOf"]))[0] == "answer"


def test_a_file_named_by_its_path_is_read_not_listed(run_astro, fake: FakeProvider, astro_env, workspace):
    """Stop 51 (csv_faintest): glob_files listed data/stars.csv, then the answer named a star the
    file does not hold. Now the one call the model may write reads the file."""
    _project(workspace)
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "read_file", "arguments": {"path": "data/stars.csv"}}'},
             {"text": "Vega, V = 0.03."})
    obj = _run(run_astro, astro_env, "Which star in data/stars.csv has the faintest V magnitude?")
    branches = _first_call(fake)
    assert _names(branches) == ["read_file"] and _paths(branches) == ["data/stars.csv"]
    assert "Vega,0.03" in tool_results(fake.bodies()[1])[0] and obj["answer"] == "Vega, V = 0.03."


def test_a_folder_and_a_format_name_the_files_of_that_format_in_it(run_astro, fake: FakeProvider, astro_env,
                                                                   workspace):
    _project(workspace)
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "read_file", "arguments": {"path": "data/stars.csv"}}'}, {"text": "1 row of stars."})
    _run(run_astro, astro_env, "What does the CSV in data/ contain, and how many rows?")
    assert _paths(_first_call(fake)) == ["data/rv.csv", "data/stars.csv"]  # not targets.ecsv


def test_a_file_named_by_a_word_is_read_first(run_astro, fake: FakeProvider, astro_env, workspace):
    """Stop 51 (meeting_deadline, readme_command): nothing was forced, since no path was written; the
    model searched the library and answered "you would need to follow the instructions in the README"."""
    _project(workspace)
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "read_file", "arguments": {"path": "notes/meeting.md"}}'},
             {"text": "The JWST proposal deadline is 21 March."})
    obj = _run(run_astro, astro_env, "When is the proposal deadline in my meeting notes?")
    assert _paths(_first_call(fake)) == ["notes/meeting.md"]  # its folder is named too: not notes.md
    assert obj["answer"] == "The JWST proposal deadline is 21 March."


def test_only_the_users_own_text_files_inside_the_workspace_are_offered(run_astro, fake: FakeProvider, astro_env,
                                                                        workspace, tmp_path):
    """Read_file's confinement holds for the list: a link out of the workspace, a binary file, astro's
    own folders (.astro/, memory/) are never a path the model is steered to."""
    outside = tmp_path / "outside.csv"
    outside.write_text("secret,1\n")
    (workspace / "data").mkdir()
    (workspace / "data" / "stars.csv").write_text("name,vmag\nVega,0.03\n")
    os.symlink(outside, workspace / "data" / "leak.csv")
    (workspace / "data" / "image.csv").write_bytes(b"\x00\x01binary")
    for folder in (".astro", "memory"):
        (workspace / folder).mkdir(exist_ok=True)
        (workspace / folder / "stars.csv").write_text("name\n")
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "read_file", "arguments": {"path": "data/stars.csv"}}'}, {"text": "Vega."})
    _run(run_astro, astro_env, "Which stars are in stars.csv?")
    assert _paths(_first_call(fake)) == ["data/stars.csv"]


def test_a_question_about_writing_names_no_file_and_calls_freely(run_astro, fake: FakeProvider, astro_env,
                                                                 workspace):
    _project(workspace)
    fake.models_listing = LLAMA_CPP
    fake.add({"tool_calls": [{"name": "todo_write", "arguments": {"todos": [
        {"id": "1", "content": "Re-fit Kepler-7b with TESS sector 14 data", "status": "pending"}]}}]}, {"text": "Task added."})
    _run(run_astro, astro_env, "Add a task: re-fit the Kepler-7b light curve with the TESS sector 14 data.")
    first = fake.bodies()[0]
    assert first.get("tool_choice") is None and "response_format" not in first


STRETCH_DESCRIBED = ("To cite the passage of your library that describes the stretch move, you can use the `rag_search` "
                     "function with the query \"stretch move\" and the `include_references` parameter set to `true`.")


def test_a_description_after_a_search_gets_one_nudge_to_answer_from_it(run_astro, fake: FakeProvider, astro_env):
    """Stop 51 (cite_stretch_move, meeting_deadline): after rag_search ran, the answer told the user how
    to search, citing nothing; the nudge was limited to turns where no tool had run."""
    assert run_astro(["library", "add", str(COWAN)], astro_env).returncode == 0
    fake.add({"tool_calls": [{"name": "rag_search", "arguments": {"query": "Bond albedo definition"}}]},
             {"text": STRETCH_DESCRIBED.replace("stretch move", "Bond albedo")},
             {"text": "The Bond albedo is the fraction of incident power reflected [1001.0012:p1:c1]."})
    obj = _run(run_astro, astro_env, "Cite the passage of my library that defines the Bond albedo.")
    assert obj["answer"].startswith("The Bond albedo is the fraction"), obj
    said = [str(m["content"]) for m in fake.bodies()[2]["messages"] if m["role"] == "user"]
    assert sum("your tools already ran: answer the question now from their results" in text for text in said) == 1


def test_an_answer_giving_a_value_the_tools_found_stands_though_it_explains(run_astro, fake: FakeProvider,
                                                                            astro_env, workspace):
    (workspace / "notes.md").write_text("P = 4.885489 d\n")
    answer = "You can check it with `read_file`: the period in notes.md is 4.885489 d."
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.md"}}]}, {"text": answer},
             {"text": "never asked for"})
    obj = _run(run_astro, astro_env, "What period is in notes.md?")
    assert obj["answer"] == answer and len(fake.bodies()) == 2


def test_a_second_description_after_the_nudge_stands(run_astro, fake: FakeProvider, astro_env, workspace):
    (workspace / "notes.md").write_text("P = 4.885489 d\n")
    described = "To find the period, you can use the `read_file` tool on notes.md."
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.md"}}]}, {"text": described},
             {"text": described}, {"text": "never asked for"})
    obj = _run(run_astro, astro_env, "What period is in notes.md?")
    assert obj["answer"] == described and len(fake.bodies()) == 3


def _answer(text: str) -> dict[str, str]:
    return {"text": '{"name": "answer", "arguments": {"text": "' + text + '"}}'}


def test_after_the_named_file_was_read_the_next_reply_answers_or_does_work(run_astro, fake: FakeProvider,
                                                                           astro_env, workspace):
    """Stop 52 development (csv_rows): after read_file returned the CSV, the 1.5B model listed it with
    glob_files, then described how one would read it. The step after the read is now the answer
    itself or a tool that does work; reading again is not among the choices."""
    _project(workspace)
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "read_file", "arguments": {"path": "data/stars.csv"}}'},
             _answer("data/stars.csv has 1 row: Vega, V = 0.03."), {"text": "never asked for"})
    done = run_astro(["run", "--output-format", "text", "What does the CSV in data/ contain?"], astro_env)
    assert done.returncode == 0 and done.stdout.strip() == "data/stars.csv has 1 row: Vega, V = 0.03.", done.stdout
    second = fake.bodies()[1]
    # A question: only the answer (stop 52 development: offered save_note, the model saved "50 rows").
    assert _names(list(second["response_format"]["json_schema"]["schema"]["anyOf"])) == ["answer"]
    assert "answer" not in [tool["function"]["name"] for tool in second["tools"]]  # never offered as a tool
    assert len(fake.bodies()) == 2


def test_after_the_library_search_the_model_may_save_what_it_found(run_astro, fake: FakeProvider, astro_env,
                                                                   workspace):
    assert run_astro(["library", "add", str(COWAN)], astro_env).returncode == 0
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "rag_search", "arguments": {"query": "HD 189733b day-side temperature"}}'},
             {"text": '{"name": "save_note", "arguments": {"title": "HD 189733b", "content": "T_d = 1605 K"}}'},
             {"text": "Saved the note: T_d = 1605 K (Cowan & Agol)."})
    obj = _run(run_astro, astro_env, "Save a note of the day-side temperature my library gives for HD 189733b.")
    assert [c["name"] for c in obj["tool_calls"]] == ["rag_search", "save_note"], obj
    names = _names(list(fake.bodies()[1]["response_format"]["json_schema"]["schema"]["anyOf"]))
    # stop 54: the request asks for one change (a note) and the search was not it, so the note is the next call;
    # the answer is offered only once the change is made (agent/request_parts.py)
    assert names == ["save_note"], names
    assert "1605" in (workspace / "notes" / "hd-189733b.md").read_text() or any(
        "1605" in p.read_text() for p in (workspace / "notes").glob("*.md"))
    # the change made, the answer alone is offered
    assert _names(list(fake.bodies()[2]["response_format"]["json_schema"]["schema"]["anyOf"])) == ["answer"]



TOOL_LIST_REPLY = ('<tools>\n{"type": "function", "function": {"name": "save_note", "description": "Save a note.", '
                   '"parameters": {"type": "object", "properties": {"title": "Compare day sides", "content": "x"}}}}\n'
                   '{"type": "function", "function": {"name": "todo_write", "parameters": {"properties": {"todos": '
                   '[{"content": "Find T_d"}]}, "description": "list"}}, "required": ["todos"]}}\n</tools>')


def test_a_reply_written_as_the_tool_list_is_no_answer(run_astro, fake: FakeProvider, astro_env):
    """Stop 52 development (task_plan): the reply was `<tools>` and tool schemas with values inside (not
    valid JSON); astro gave it back as the answer."""
    todos = [{"id": "1", "content": "Find the day-side temperature of HD 189733b", "status": "pending"}]
    fake.add({"text": TOOL_LIST_REPLY}, {"tool_calls": [{"name": "todo_write", "arguments": {"todos": todos}}]},
             {"text": "Recorded the task."})
    obj = _run(run_astro, astro_env, "Plan a step to find the day-side temperature of HD 189733b and record it as a task.")
    assert obj["answer"] == "Recorded the task." and obj["tool_calls"] == [{"name": "todo_write", "ok": True}], obj
    said = [str(m["content"]) for m in fake.bodies()[1]["messages"] if m["role"] == "user"]
    assert any("written as the tool list" in text and '"name": "todo_write"' in text for text in said)
