"""Issue 48, stop 54: general mechanisms from what Qwen2.5-Coder-1.5B wrote on the development tasks
(benchmarks/data/local_model_stop53/*.json), replayed by the scripted model through the real
`astro run` and litellm (llama.cpp listing: calls sent as a JSON schema)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakeprovider import FakeProvider
from tests.helpers import last_json

LLAMA_CPP = {"object": "list", "data": [{"id": "qwen2.5-coder-1.5b", "object": "model", "owned_by": "llamacpp",
                                         "meta": {"n_ctx": 16384}}]}
CUT = "[the reply was cut at the limit]"


def _run(run_astro, env, question: str) -> tuple[int, dict[str, Any]]:
    done = run_astro(["run", "--output-format", "json", question], env)
    return done.returncode, last_json(done.stdout)


def _call(name: str, **arguments: Any) -> dict[str, str]:
    return {"text": json.dumps({"name": name, "arguments": arguments}, indent=2)}


def _answer(text: str) -> dict[str, str]:
    return _call("answer", text=text)


def _schema_names(body: dict[str, Any]) -> list[str]:
    """The calls a request's JSON schema admits (empty: the request was free)."""
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema", {})
    return [branch["properties"]["name"]["const"] for branch in schema.get("anyOf", [])]


def _user_texts(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m["role"] == "user"]


# Recorded (stop 53, old 8-task set, library_cite): the answer branch looped on three sentences to the limit.
LOOPING = ("{\n  \"name\": \"answer\",\n  \"arguments\": {\n    \"text\": \"The affine-invariant ensemble sampler is an "
           "MCMC algorithm that uses an ensemble of walkers. The algorithm is based on the stretch move of Goodman & "
           "Weare (2010). The algorithm is designed to be stable and well-tested. The algorithm is based on the "
           "stretch move of Goodman & Weare (2010). The algorithm is designed to be sta")


def test_an_answer_cut_at_the_reply_limit_stands_as_the_answer_marked_as_cut(run_astro, fake: FakeProvider,
                                                                           astro_env):
    """Old 8 (library_paper, library_cite): the cut answer was sent back as an unusable call
    (`Unterminated string`), the model searched again and the turn paused with no answer."""
    fake.models_listing = LLAMA_CPP
    fake.add(_call("rag_search", query="affine-invariant ensemble sampler"), {"text": LOOPING, "finish": "length"})
    code, obj = _run(run_astro, astro_env, "What is an affine-invariant ensemble sampler, according to my library?")
    assert code == 0, obj
    assert obj["answer"] == ("The affine-invariant ensemble sampler is an MCMC algorithm that uses an ensemble of "
                             "walkers. The algorithm is based on the stretch move of Goodman & Weare (2010). The "
                             f"algorithm is designed to be stable and well-tested.\n\n{CUT}"), obj
    assert len(fake.bodies()) == 2  # no corrective round


def _tool_response_echo() -> dict[str, str]:
    """A reply astro corrects (the model writing a tool's response itself, recorded in stop 50)."""
    return {"text": "<tool_response>\n1000\n</tool_response>"}


def test_an_answer_call_written_as_text_after_a_correction_is_the_answer(run_astro, fake: FakeProvider, astro_env):
    """After a corrective message the request is free; the model wrote the schema's answer branch as
    text, `answer` was refused as an unknown tool, and the turn paused."""
    fake.models_listing = LLAMA_CPP
    fake.add(_call("rag_search", query="day-side temperature HD 189733b"), _tool_response_echo(),
             {"text": "```json\n" + json.dumps({"name": "answer", "arguments": {"text": "T_d = 1605 K."}}) + "\n```"})
    code, obj = _run(run_astro, astro_env, "What day-side temperature does my library give for HD 189733b?")
    assert code == 0 and obj["answer"] == "T_d = 1605 K.", obj
    assert _schema_names(fake.bodies()[2]) == []  # the third request was free: the branch was written as text


def test_an_answer_call_with_no_text_is_asked_for_once_then_the_turn_says_so(run_astro, fake: FakeProvider,
                                                                            astro_env):
    fake.models_listing = LLAMA_CPP
    fake.add(_call("rag_search", query="day-side temperature HD 189733b"), _tool_response_echo(),
             {"text": '{"name": "answer"}'}, {"text": '{"name": "answer", "arguments": {}}'})
    code, obj = _run(run_astro, astro_env, "What day-side temperature does my library give for HD 189733b?")
    assert code == 1 and obj["stop_reason"] == "paused", obj
    assert obj["error"].startswith("The model gave an answer with no text twice in a row"), obj
    assert any(text.startswith("Your last reply is an answer with no text in it.") for text in _user_texts(
        fake.bodies()[3]))
    assert "Traceback" not in json.dumps(obj)


def test_the_paper_a_researcher_has_names_the_library(run_astro, fake: FakeProvider, astro_env):
    """Held out at stop 53 (lib_corot2_albedo): "In the albedo paper I have" named no library; the free
    first call was get_paper_content with "CoRoT-2b" as the paper's id, and the turn paused."""
    fake.models_listing = LLAMA_CPP
    fake.add(_call("rag_search", query="CoRoT-2b optical albedo"), _answer("No albedo for CoRoT-2b was found."))
    _run(run_astro, astro_env, "In the albedo paper I have, what optical albedo do they get for CoRoT-2b? "
                               "It's in their big table.")
    first = fake.bodies()[0]
    assert first["tool_choice"] == "required" and _schema_names(first) == ["rag_search"], _schema_names(first)


def test_papers_named_beside_a_workspace_file_are_that_file(run_astro, fake: FakeProvider, astro_env,
                                                            workspace: Path):
    """A guard: "our paper" with its file named is the file, not the library."""
    (workspace / "paper").mkdir()
    (workspace / "paper" / "draft.tex").write_text("\\begin{abstract}A geometric albedo of 0.12.\\end{abstract}\n")
    fake.models_listing = LLAMA_CPP
    fake.add(_call("read_file", path="paper/draft.tex"), _answer("0.12."))
    _run(run_astro, astro_env, "What geometric albedo do we quote in the abstract of the albedo paper, paper/draft.tex?")
    assert _schema_names(fake.bodies()[0]) == ["read_file"]


def test_a_request_in_two_parts_calls_a_tool_for_each_before_the_answer(run_astro, fake: FakeProvider, astro_env,
                                                                       workspace: Path):
    """Old 8 (readme): the README was read, then, offered the answer, the model answered the summary
    alone; the other files were never listed."""
    (workspace / "README.md").write_text("# Kepler-7b\nA transit fit with batman and emcee.\n")
    (workspace / "data").mkdir()
    (workspace / "data" / "lc.csv").write_text("t,flux\n0,1\n")
    fake.models_listing = LLAMA_CPP
    fake.add(_call("read_file", path="README.md"), _call("glob_files", pattern="**/*"),
             _answer("A Kepler-7b transit fit (batman, emcee); the other file is data/lc.csv."))
    code, obj = _run(run_astro, astro_env, "Summarise the README and list the other files in this folder.")
    bodies = fake.bodies()
    assert [_schema_names(body) for body in bodies] == [["read_file"], ["glob_files"], ["answer"]]
    # At the answer, the parts are named, so that it covers both (stop 54 development: the listing alone).
    assert any(text.endswith("cover every part in turn: (1) Summarise the README; (2) list the other files in "
                             "this folder.") for text in _user_texts(bodies[2])), _user_texts(bodies[2])
    assert code == 0 and obj["answer"].endswith("data/lc.csv."), obj


def test_summarise_and_add_a_task_records_the_task(run_astro, fake: FakeProvider, astro_env, workspace: Path):
    """Development (todo_summary_task, 0 of 3 at stop 50): the file was read and the answer explained
    how a task could be added; none was."""
    (workspace / "notes").mkdir()
    (workspace / "notes" / "todo.md").write_text("- [x] reduce sector 14\n- [ ] re-fit Kepler-7b with TESS\n")
    fake.models_listing = LLAMA_CPP
    fake.add(_call("read_file", path="notes/todo.md"),
             _call("todo_write", todos=[{"id": "1", "content": "re-fit Kepler-7b with TESS", "status": "pending"}]),
             _answer("One item is open, re-fitting Kepler-7b; it is now a task."))
    code, obj = _run(run_astro, astro_env, "Summarise notes/todo.md and add a task for the first open item")
    names = [_schema_names(body) for body in fake.bodies()]
    assert names[1] == ["todo_write"] and names[2] == ["answer"], names
    assert code == 0, obj
    listed = [m for m in fake.bodies()[2]["messages"] if m["role"] == "tool"]
    assert listed[-1]["name"] == "todo_write" and "1 pending" in str(listed[-1]["content"])


def test_once_the_change_asked_for_is_made_the_answer_alone_is_offered(run_astro, fake: FakeProvider, astro_env,
                                                                      workspace: Path):
    """Held out at stop 53 (note_nirspec_date): after save_note had done the work, the free step gave an
    empty reply, then a plan to search ADS and a "Created ..." line no tool wrote, as the answer."""
    fake.models_listing = LLAMA_CPP
    fake.add(_call("save_note", title="NIRSpec data for WASP-43b",
                   content="The NIRSpec data for WASP-43b are expected on 2025-01-15."),
             _answer("Noted: the NIRSpec data for WASP-43b are expected on 2025-01-15."))
    code, obj = _run(run_astro, astro_env,
                     "Jot down in my notes that the NIRSpec data for WASP-43b are expected on 2025-01-15.")
    assert [_schema_names(body) for body in fake.bodies()][1] == ["answer"]
    assert code == 0 and obj["answer"].startswith("Noted:"), obj


def test_a_memory_asked_for_is_the_next_call_after_another_tool(run_astro, fake: FakeProvider, astro_env,
                                                                workspace: Path):
    """Development (memory_vega, stop 50): save_note where save_memory was asked, then the answer."""
    fake.models_listing = LLAMA_CPP
    fake.add(_call("save_note", title="Vega", content="We use Vega magnitudes."),
             _call("save_memory", slug="vega-magnitudes", type="preference", description="We use Vega magnitudes.",
                   content="We use Vega magnitudes."),
             _answer("Remembered: we use Vega magnitudes."))
    code, obj = _run(run_astro, astro_env, "Save to memory that we use Vega magnitudes")
    assert [_schema_names(body) for body in fake.bodies()][1:] == [["save_memory"], ["answer"]]
    assert (workspace / "memory" / "vega-magnitudes.md").is_file()
    assert code == 0, obj
