"""Issue 48, stop 54 follow-up: what Qwen2.5-Coder-1.5B did on the stop-54 held-out half (now development
material, benchmarks/data/local_model_stop54/held_out_54_b05638f.partial.json), replayed by the scripted
model through the real `astro run` and litellm: a change asked for with no verb that writes, and a
tool's result line given as the answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from astro_cli.agent.request_kind import asks, asks_for_change
from tests.fakeprovider import FakeProvider
from tests.helpers import last_json

LLAMA_CPP = {"object": "list", "data": [{"id": "qwen2.5-coder-1.5b", "object": "model", "owned_by": "llamacpp",
                                         "meta": {"n_ctx": 16384}}]}
CHECKLIST = ("# Analysis checklist\n\n- [x] bias and flat frames\n- [ ] wavelength solution from the ThAr lamp\n"
             "- [x] telluric correction\n- [ ] corner plot of the posterior\n- [x] archive the raw frames\n")


def _run(run_astro, env, question: str) -> tuple[int, dict[str, Any]]:
    done = run_astro(["run", "--output-format", "json", question], env)
    return done.returncode, last_json(done.stdout)


def _call(name: str, **arguments: Any) -> dict[str, str]:
    return {"text": json.dumps({"name": name, "arguments": arguments}, indent=2)}


def _schema_names(body: dict[str, Any]) -> list[str]:
    """The calls a request's JSON schema admits (empty: the request was free)."""
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema", {})
    return [branch["properties"]["name"]["const"] for branch in schema.get("anyOf", [])]


def test_a_standing_instruction_is_saved_to_memory_then_the_answer_alone_is_offered(
        run_astro, fake: FakeProvider, astro_env, workspace: Path):
    """memory_jupiter_masses: after save_memory, the free step saved a note nobody asked for ("For every
    future session" has no verb that writes, so no part rule applied)."""
    fake.models_listing = LLAMA_CPP
    fake.add(_call("save_memory", slug="jupiter-masses", type="preference",
                   description="Planet masses in Jupiter masses.",
                   content="We give planet masses in Jupiter masses, not Earth masses."),
             _call("answer", text="Remembered: planet masses in Jupiter masses."))
    code, obj = _run(run_astro, astro_env,
                     "For every future session: we give planet masses in Jupiter masses, not Earth masses.")
    assert _schema_names(fake.bodies()[1]) == ["answer"]
    assert code == 0 and obj["answer"] == "Remembered: planet masses in Jupiter masses.", obj
    assert "Jupiter" in (workspace / "memory" / "jupiter-masses.md").read_text()
    assert not (workspace / "notes").exists()


def test_a_thing_turned_into_a_task_is_recorded_before_the_answer_is_offered(run_astro, fake: FakeProvider,
                                                                             astro_env, workspace: Path):
    """task_last_unchecked: "Turn ... into a task" has no verb that writes; after the file was read the
    answer was offered beside the tools that write, and the answer was a described plan."""
    (workspace / "notes").mkdir()
    (workspace / "notes" / "analysis-checklist.md").write_text(CHECKLIST)
    fake.models_listing = LLAMA_CPP
    fake.add(_call("read_file", path="notes/analysis-checklist.md"),
             _call("todo_write", todos=[{"id": "1", "content": "corner plot of the posterior", "status": "pending"}]),
             _call("answer", text="The last unchecked item, the corner plot, is now a task."))
    code, obj = _run(run_astro, astro_env,
                     "Turn the last unchecked item in notes/analysis-checklist.md into a task for me.")
    assert [_schema_names(body) for body in fake.bodies()][1:] == [["todo_write"], ["answer"]]
    assert code == 0 and obj["answer"].startswith("The last unchecked item"), obj
    assert [call["name"] for call in obj["tool_calls"]] == ["read_file", "todo_write"]


# Recorded (memory_jupiter_masses, the third and fourth replies): a call quoted in a described plan.
QUOTED_PLAN = ("To use the planet masses in Jupiter masses, not Earth masses, you can use the `get_paper_content` "
               "function with the `id` parameter set to the handle of the paper you are interested in. For "
               "example, you can call:\n\n```json\n{\n  \"name\": \"get_paper_content\",\n  \"arguments\": {\n"
               "    \"id\": \"1001.0012\",\n    \"section\": \"1\"\n  }\n}\n```\n\nThis will return the text of "
               "the first section of the paper.")


def test_a_tools_result_line_is_never_passed_off_as_the_answer(run_astro, fake: FakeProvider, astro_env,
                                                               workspace: Path):
    """memory_jupiter_masses: after save_note, two quoted-call replies; save_note's own line
    `Created notes/...md (1 chunk(s) indexed; ...)` stood as the model's answer."""
    fake.add({"tool_calls": [{"name": "save_note", "arguments": {
        "title": "Planet masses in Jupiter masses", "content": "We give planet masses in Jupiter masses."}}]},
        {"text": QUOTED_PLAN}, {"text": QUOTED_PLAN}, {"text": "never asked for"})
    code, obj = _run(run_astro, astro_env, "Add a note that we give planet masses in Jupiter masses.")
    assert code == 0, obj
    assert not obj["answer"].startswith("Created"), obj["answer"]
    assert obj["answer"].startswith("The model gave no answer of its own"), obj["answer"]
    assert "save_note (Created notes/" in obj["answer"]  # what was done, named by astro
    assert list((workspace / "notes").glob("*.md")) and len(fake.bodies()) == 3


@pytest.mark.parametrize("request_text", [
    "Turn the last unchecked item in notes/analysis-checklist.md into a task for me.",
    "Convert the second item into a note.",
    "For every future session: we give planet masses in Jupiter masses.",
    "From now on, quote uncertainties at 1 sigma.",
    "Going forward we use BJD_TDB for all times.",
    "Keep in mind that the detector saturates at 60000 ADU.",
    "Make it a task."])
def test_a_change_asked_for_with_no_verb_that_writes_is_a_change(request_text: str):
    assert asks_for_change(request_text) and not asks(request_text)


@pytest.mark.parametrize("question", [
    "What should I change from now on?", "Turn up what in the plot makes the residuals odd?",
    "Which paper in my library measures the day-side temperature of HD 189733b?"])
def test_a_question_with_those_words_still_asks(question: str):
    assert asks(question)


SEVEN_NOTES = {
    "todo.md": "# To do\n\n- [ ] re-fit the K2 light curve of Kepler-7b\n",
    "meeting.md": "# Group meeting 2024-03-12\n\n- The JWST proposal deadline is 21 March.\n",
    "referee.md": "# Referee report on the Kepler-7b paper\n\n- [ ] Add the TESS sector 41 transits.\n",
    "telecon-2024-11-14.md": "# Telecon 2024-11-14\n\n- Priya takes over the TESS sector 58 reduction.\n",
    "observing-plan.md": "# Observing plan, winter 2024/25\n\n- [ ] Check the guide-star brightness.\n",
    "instrument-issues.md": ("# Instrument issues, FIES run of January 2025\n\n- 2025-01-08: the ThAr lamp current "
                             "dropped to 9.5 mA (nominal 12 mA); lamp swapped on 2025-01-10.\n"),
    "analysis-checklist.md": CHECKLIST}


def _required_paths(body: dict[str, Any]) -> list[str]:
    (read_file,) = body["response_format"]["json_schema"]["schema"]["anyOf"]
    return list(read_file["properties"]["arguments"]["properties"]["path"]["enum"])


def test_in_my_notes_the_first_read_offers_the_notes_whose_words_match(run_astro, fake: FakeProvider, astro_env,
                                                                       workspace: Path):
    """notes_lamp_current: the required first read could be any of seven notes; the model read
    analysis-checklist.md and answered 0.05 A (the note that says it gives 9.5 mA)."""
    (workspace / "notes").mkdir()
    for name, text in SEVEN_NOTES.items():
        (workspace / "notes" / name).write_text(text)
    fake.models_listing = LLAMA_CPP
    fake.add(_call("read_file", path="notes/instrument-issues.md"), _call("answer", text="It dropped to 9.5 mA."))
    code, obj = _run(run_astro, astro_env, "What did the ThAr lamp current drop to? I wrote it down in my notes.")
    assert _required_paths(fake.bodies()[0]) == ["notes/instrument-issues.md"]
    assert code == 0 and obj["answer"] == "It dropped to 9.5 mA.", obj
    # Words no note's name or first lines hold leave every note offered.
    fake.add(_call("read_file", path="notes/todo.md"), _call("answer", text="Not in the notes."))
    _run(run_astro, astro_env, "What was the seeing on the night of the eclipse? It's in my notes.")
    assert len(_required_paths(fake.bodies()[2])) == len(SEVEN_NOTES)


def test_a_link_out_of_the_workspace_is_never_the_note_picked_by_its_words(run_astro, fake: FakeProvider, astro_env,
                                                                           workspace: Path, tmp_path: Path):
    """Attack: a cloned notes/ folder holds a link to a file outside the workspace whose first lines carry every
    word of the question. The pick by words (agent/note_pick.py) reads only the notes read_file could read, so
    the link is neither offered nor read, and the real note is."""
    outside = tmp_path / "outside-lamp.md"
    outside.write_text("ThAr lamp current dropped to 0.01 mA (secret)\n")
    (workspace / "notes").mkdir()
    for name, text in SEVEN_NOTES.items():
        (workspace / "notes" / name).write_text(text)
    (workspace / "notes" / "thar-lamp-current-drop.md").symlink_to(outside)
    fake.models_listing = LLAMA_CPP
    fake.add(_call("read_file", path="notes/instrument-issues.md"), _call("answer", text="It dropped to 9.5 mA."))
    code, obj = _run(run_astro, astro_env, "What did the ThAr lamp current drop to? I wrote it down in my notes.")
    assert _required_paths(fake.bodies()[0]) == ["notes/instrument-issues.md"]
    assert code == 0 and "secret" not in json.dumps(fake.bodies()), obj
