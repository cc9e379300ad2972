"""Issue 48, stop 53: what a small model's request says, read by general rules. The scripted model
replays what Qwen2.5-Coder-1.5B wrote on stop 52's held-out half (benchmarks/data/local_model_stop52/)
through the real `astro run` and litellm; the llama.cpp listing makes astro send calls as a JSON schema."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.fakeprovider import FakeProvider
from tests.helpers import last_json

LLAMA_CPP = {"object": "list", "data": [{"id": "qwen2.5-coder-1.5b", "object": "model", "owned_by": "llamacpp",
                                         "meta": {"n_ctx": 16384}}]}
LOG = ("date,target,filter,exptime_s,seeing_arcsec,airmass\n2024-09-03,WASP-43,r,60,1.4,1.21\n"
       "2024-09-04,HAT-P-32,r,90,0.9,1.08\n")


def _run(run_astro, env, question: str) -> dict[str, Any]:
    done = run_astro(["run", "--output-format", "json", question], env)
    return last_json(done.stdout)


def _project(workspace: Path) -> None:
    for name, text in {"obs/2024B/night_log.csv": LOG, "notes/todo.md": "- [ ] re-fit Kepler-7b\n",
                       "proposal/abstract.md": "PI: A. Rivera. We request 14.5 hours of JWST time.\n",
                       "proposal/budget.md": "Travel: 2 trips.\n", "data/stars.csv": "name,vmag\nVega,0.03\n",
                       "data/rv.csv": "bjd,rv_ms\n2460010.5,-41.2\n"}.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)


def _schema_names(body: dict[str, Any]) -> list[str]:
    return [branch["properties"]["name"]["const"] for branch in body["response_format"]["json_schema"]["schema"]["anyOf"]]


def _answer(text: str) -> dict[str, str]:
    return {"text": '{"name": "answer", "arguments": {"text": "' + text + '"}}'}


def test_a_question_followed_by_a_statement_is_answered_not_worked_on(run_astro, fake: FakeProvider, astro_env,
                                                                      workspace):
    """Stop 52 held-out (log_best_seeing): the text ends with "The log is obs/...csv.", not with `?`, so
    after the log was read the model was offered save_note, saved a note nobody asked for, then described."""
    _project(workspace)
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "read_file", "arguments": {"path": "obs/2024B/night_log.csv"}}'},
             _answer("2024-09-04: seeing 0.9 arcsec."))
    obj = _run(run_astro, astro_env, "On which night did we have the best seeing? The log is obs/2024B/night_log.csv.")
    assert _schema_names(fake.bodies()[1]) == ["answer"]  # to be told: no tool that writes is offered
    assert obj["answer"] == "2024-09-04: seeing 0.9 arcsec." and not (workspace / "notes" / "best-seeing.md").exists()


def test_a_question_that_also_orders_a_change_is_offered_the_tools_that_write(run_astro, fake: FakeProvider,
                                                                             astro_env, workspace):
    _project(workspace)
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "read_file", "arguments": {"path": "obs/2024B/night_log.csv"}}'},
             {"text": '{"name": "save_note", "arguments": {"title": "Airmass", "content": "highest 1.21"}}'},
             {"text": "Saved: the highest airmass was 1.21."})
    obj = _run(run_astro, astro_env,
               "What was the highest airmass in obs/2024B/night_log.csv? Then save it in a note called 'Airmass'.")
    # Stop 54: each part has its tool before the answer is offered (agent/request_parts.py).
    assert [_schema_names(body) for body in fake.bodies()[1:]] == [["save_note"], ["answer"]]
    assert [c["name"] for c in obj["tool_calls"]] == ["read_file", "save_note"], obj


def test_a_folder_named_by_a_word_narrows_the_first_call_to_its_files(run_astro, fake: FakeProvider, astro_env,
                                                                     workspace):
    """Stop 52 held-out (proposal_hours): "somewhere in the proposal folder" named no file, so the first
    call was free; the model called get_paper_content with an id made of the date and echoed the error."""
    _project(workspace)
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "read_file", "arguments": {"path": "proposal/abstract.md"}}'},
             _answer("14.5 hours of JWST time."))
    obj = _run(run_astro, astro_env,
               "How many hours of JWST time does our proposal draft ask for? It is somewhere in the proposal folder.")
    first = fake.bodies()[0]
    assert first["tool_choice"] == "required"
    (read_file,) = first["response_format"]["json_schema"]["schema"]["anyOf"]
    # Stop 54 follow-up: the folder's file whose first lines share the question's words (agent/note_pick.py).
    assert read_file["properties"]["arguments"]["properties"]["path"]["enum"] == ["proposal/abstract.md"]
    assert obj["answer"] == "14.5 hours of JWST time."


def test_which_files_a_folder_holds_is_asked_of_the_file_tools(run_astro, fake: FakeProvider, astro_env, workspace):
    """Listing answers it: the first call may be glob_files, not one of the folder's files read."""
    _project(workspace)
    fake.models_listing = LLAMA_CPP
    fake.add({"text": '{"name": "glob_files", "arguments": {"pattern": "data/*"}}'},
             {"text": "data/ holds rv.csv and stars.csv."})
    obj = _run(run_astro, astro_env, "Which files are in the data folder?")
    assert fake.bodies()[0]["tool_choice"] == "required"
    offered = set(_schema_names(fake.bodies()[0]))
    assert "glob_files" in offered and offered <= {"read_file", "glob_files", "grep_files"}
    assert obj["tool_calls"] == [{"name": "glob_files", "ok": True}] and "stars.csv" in obj["answer"]


def _stored_tasks(workspace: Path) -> list[str]:
    with sqlite3.connect(workspace / ".astro" / "astro.db") as connection:
        return [str(row[0]) for row in connection.execute("SELECT content FROM agent_tasks")]


KECK_TAG = ('<todo_write>\n  {"todos": [\n    {"id": "task_keck-0", "content": "Ask for Keck/HIRES time for the '
            'TOI-1431 radial velocities", "status": "pending"}\n  ]}\n</todo_write>')


def test_an_instrument_with_a_slash_is_no_path(run_astro, fake: FakeProvider, astro_env, workspace):
    """Stop 52 held-out (task_keck): "Keck/HIRES" was read as a folder, so the first call had to read a
    file (notes.md, which nobody named). A slash word is a path only when the workspace has it."""
    _project(workspace)
    fake.models_listing = LLAMA_CPP
    todos = [{"id": "1", "content": "Ask for Keck/HIRES time", "status": "pending"}]
    fake.add({"tool_calls": [{"name": "todo_write", "arguments": {"todos": todos}}]}, {"text": "Added the task."})
    obj = _run(run_astro, astro_env, "Put 'ask for Keck/HIRES time' on my to-do list.")
    first = fake.bodies()[0]
    assert first.get("tool_choice") is None and "response_format" not in first
    assert obj["tool_calls"] == [{"name": "todo_write", "ok": True}], obj
    # A folder the workspace has, written with its slash, still names its files.
    fake.add({"text": '{"name": "read_file", "arguments": {"path": "proposal/abstract.md"}}'}, _answer("A. Rivera."))
    _run(run_astro, astro_env, "Who is the PI, according to proposal/?")
    assert fake.bodies()[2]["tool_choice"] == "required"


def test_a_call_written_as_a_tag_named_after_the_tool_is_that_call(run_astro, fake: FakeProvider, astro_env,
                                                                   workspace):
    """Stop 52 held-out (task_keck): the model wrote `<todo_write>{...}</todo_write>` as its whole
    reply, and astro gave the tag back as the answer; no task was recorded."""
    fake.add({"text": KECK_TAG}, {"text": "Added the task."})
    obj = _run(run_astro, astro_env,
               "Put 'ask for Keck/HIRES time for the TOI-1431 radial velocities' on my to-do list.")
    assert obj["tool_calls"] == [{"name": "todo_write", "ok": True}] and obj["answer"] == "Added the task.", obj
    assert _stored_tasks(workspace) == ["Ask for Keck/HIRES time for the TOI-1431 radial velocities"]


def test_a_tool_named_tag_of_prose_or_with_text_after_it_stays_the_answer(run_astro, fake: FakeProvider,
                                                                          astro_env, workspace):
    """Only a tag ending the reply with JSON arguments inside is a call; a tag quoted mid-answer is text."""
    quoted = 'I would write <todo_write>{"todos": []}</todo_write> to clear the list, but I did not.'
    fake.add({"text": "<save_note>Vega magnitudes throughout</save_note>"}, {"text": quoted})
    assert _run(run_astro, astro_env, "How would I note that we use Vega magnitudes?")["answer"] == (
        "<save_note>Vega magnitudes throughout</save_note>")
    assert _run(run_astro, astro_env, "How would I clear the task list?")["answer"] == quoted
    assert not (workspace / "notes").exists() or not any((workspace / "notes").glob("*.md"))


def test_a_named_file_is_read_from_its_start_not_a_guessed_line(run_astro, fake: FakeProvider, astro_env, workspace):
    """Stop 52 held-out (task_from_referee): the required read_file came with `offset: 1, limit: 1`, so
    only the title was read, and the task recorded was the request itself. The first read of a named
    file takes its path alone."""
    (workspace / "notes").mkdir()
    (workspace / "notes" / "referee.md").write_text("# Referee report\n\n1. [resolved] Units.\n2. Show the residuals.\n")
    fake.models_listing = LLAMA_CPP
    todos = [{"id": "1", "content": "Show the residuals", "status": "pending"}]
    fake.add({"text": '{"name": "read_file", "arguments": {"path": "notes/referee.md"}}'},
             {"text": '{"name": "todo_write", "arguments": ' + json.dumps({"todos": todos}) + "}"},
             {"text": "Added: show the residuals."})
    obj = _run(run_astro, astro_env, "Go through notes/referee.md and put its first unresolved point on my task list.")
    (read_file,) = fake.bodies()[0]["response_format"]["json_schema"]["schema"]["anyOf"]
    assert list(read_file["properties"]["arguments"]["properties"]) == ["path"]
    assert [c["name"] for c in obj["tool_calls"]] == ["read_file", "todo_write"], obj
    assert _stored_tasks(workspace) == ["Show the residuals"]


def test_what_counts_as_a_request_that_only_asks():
    from astro_cli.agent.request_kind import asks

    asking = ["On which night did we have the best seeing? The log is obs/2024B/night_log.csv.",
              "What transit depth did I write in notes.md?", "Add up the exposure times: how long in total?",
              "Please tell me the period of WASP-12b.", "I need the period of WASP-12b from data/targets.ecsv.",
              "Note: the log is in obs/. Which night was best?", "Cite the passage of my library that defines it."]
    ordering = ["Summarise notes/todo.md and add a task for the first open item", "Save to memory that we use Vega",
                "Our convention is BJD_TDB. Make sure future sessions know that.", "Can you save a note of it?",
                "What is the highest airmass? Then save it in a note.", "I need you to save a note of the period.",
                "The log is obs/2024B/night_log.csv."]
    assert [q for q in asking if not asks(q)] == [] and [q for q in ordering if asks(q)] == []
