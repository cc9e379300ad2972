"""Issue 32: the failures of the real small model's task set (benchmarks/RESULTS.md), replayed from
its recorded replies (tests/fixtures/local_model/qwen2.5-coder-1.5b_task_set.json) by the scripted
model through the real `astro run` and litellm: the call re-written after its result, five copies
of one phrasing, a tool's error given back as the answer."""

from __future__ import annotations

import json

from tests.fakeprovider import FakeProvider
from tests.helpers import last_json, tool_results
from tests.paths import FIXTURES_DIR

RECORDED = json.loads((FIXTURES_DIR / "local_model" / "qwen2.5-coder-1.5b_task_set.json")
                      .read_text())["replies"]
NOTES = "# Observing notes\n\nKepler-7b: P = 4.885489 d from the fit.\nHost star mass 1.347 Msun.\n"


def _recorded(task: str, step: int, run: str = "final") -> dict:
    return next(r for r in RECORDED if r["task"] == task and r["step"] == step and r["run"] == run)


def _nudges(body: dict) -> list[str]:
    said = [str(m["content"]) for m in body["messages"] if m["role"] == "user"][1:]
    return [text for text in said if not text.startswith("<environment>")]


def test_the_read_file_call_rewritten_after_its_result_gets_one_correction_not_a_second_run(
        cli, fake: FakeProvider, astro_env, workspace):
    """notes_mass: after read_file's result the model wrote the same call again in a fence, with a
    sentence holding `notes.md` after it. Before, that reply was printed as the answer; now it is
    read as the call, seen to repeat the call just answered, and the model is told so once."""
    (workspace / "notes.md").write_text(NOTES)
    first, again = _recorded("notes_mass", 1), _recorded("notes_mass", 2)
    fake.add({"text": first["raw"]}, {"text": again["raw"]},
             {"text": "Your notes give a stellar mass of 1.347 solar masses."})
    result = cli(["run", "--profile", "small", "--output-format", "json", first["prompt"]], env=astro_env)
    assert result.exit_code == 0, result.stdout
    obj = last_json(result.stdout)
    assert obj["answer"] == "Your notes give a stellar mass of 1.347 solar masses."
    assert obj["tool_calls"] == [{"name": "read_file", "ok": True}]  # read once, not twice
    third = fake.bodies()[2]
    assert len(tool_results(third)) == 1
    nudges = _nudges(third)
    assert len(nudges) == 1 and 'repeats read_file({"path": "notes.md"' in nudges[0]
    assert "Answer the question from that result" in nudges[0]


def test_the_same_call_rewritten_twice_pauses_and_prints_no_call_as_the_answer(
        cli, fake: FakeProvider, astro_env, workspace):
    (workspace / "notes.md").write_text(NOTES)
    first, again = _recorded("notes_number", 1), _recorded("notes_number", 2)
    fake.add({"text": first["raw"]}, {"text": again["raw"]}, {"text": again["raw"]}, {"text": "never asked for"})
    result = cli(["run", "--profile", "small", "--output-format", "json", first["prompt"]], env=astro_env)
    obj = last_json(result.stdout)
    assert result.exit_code == 1 and obj["stop_reason"] == "paused", result.stdout
    assert "repeated the call it had just made twice in a row" in obj["error"]
    assert '"name": "read_file"' not in obj["answer"]
    assert obj["tool_calls"] == [{"name": "read_file", "ok": True}] and len(fake.bodies()) == 3


def test_five_copies_of_one_phrasing_are_one_query_not_a_validation_error(cli, fake: FakeProvider, astro_env):
    """library_paper: `queries` held the question five times; the schema allows three, and the
    refusal came back as the model's answer. Duplicates are now dropped before the check."""
    call = _recorded("library_paper", 1, run="run4")
    arguments = json.loads(call["raw"].split("\n")[1])["arguments"]
    assert len(arguments["queries"]) == 5 and len(set(arguments["queries"])) == 1
    fake.add({"text": call["raw"]}, {"text": "No paper in your library matches."})
    result = cli(["run", "--profile", "small", "--output-format", "json", call["prompt"]], env=astro_env)
    (returned,) = tool_results(fake.bodies()[1])
    assert "is too long" not in returned and "Send arguments that fit" not in returned
    assert "2026.12.02.1234" in returned  # the tool ran: it looked for the paper the model named
    # ... which is not in the library: the whole library was searched instead, and the model told so.
    assert "2026.12.02.1234 is not in the library, so the whole library was searched" in returned
    assert last_json(result.stdout)["answer"] == "No paper in your library matches."


def _paper_call(paper: str) -> str:
    """A get_paper_content call for `paper`, written as the model writes its calls (in <tools>): the
    recorded echo below answered rag_search's error for that id, which rag_search no longer returns
    (it searches the whole library); get_paper_content still refuses a paper the library lacks."""
    call = json.dumps({"name": "get_paper_content", "arguments": {"id": paper}})
    return f"<tools>\n{call}\n</tools>"


def test_a_tool_error_echoed_as_the_answer_gets_one_correction(cli, fake: FakeProvider, astro_env):
    """library_paper: the model gave a tool's error, in <tool_response> tags, as its answer."""
    call, echo = _recorded("library_paper", 1), _recorded("library_paper", 2)
    fake.add({"text": _paper_call("2026.12.02.21.56.0001")}, {"text": echo["raw"]},
             {"text": '```json\n{"name": "rag_search", "arguments": {"query": "albedo heat recirculation"}}\n```'},
             {"text": "No paper in your library is about albedo and heat recirculation."})
    result = cli(["run", "--profile", "small", "--output-format", "json", call["prompt"]], env=astro_env)
    obj = last_json(result.stdout)
    assert obj["answer"] == "No paper in your library is about albedo and heat recirculation.", result.stdout
    nudges = _nudges(fake.bodies()[2])
    assert len(nudges) == 1 and "only repeats the error get_paper_content returned" in nudges[0]
    assert [c["name"] for c in obj["tool_calls"]] == ["get_paper_content", "rag_search"]


def test_an_error_echoed_twice_is_never_the_answer(cli, fake: FakeProvider, astro_env):
    call, echo = _recorded("library_paper", 1), _recorded("library_paper", 2)
    fake.add({"text": _paper_call("2026.12.02.21.56.0001")}, {"text": echo["raw"]}, {"text": echo["raw"]},
             {"text": "never asked for"})
    result = cli(["run", "--profile", "small", "--output-format", "json", call["prompt"]], env=astro_env)
    obj = last_json(result.stdout)
    assert obj["stop_reason"] == "paused" and "gave a tool's error as its answer" in obj["error"], result.stdout
    assert "not in the library" not in obj["answer"]


def test_a_line_of_the_instructions_given_as_the_answer_gets_one_correction(cli, fake: FakeProvider, astro_env,
                                                                             workspace):
    """glob_scripts: after glob_files' result (the new example's call, recorded) the model answered
    'To find new papers, call search_papers.', a line of the small profile's principles then. That
    line has been reworded since (the model gave it twice in a row in a later run); the test gives
    back today's line the same way."""
    (workspace / "scripts").mkdir()
    for name in ("fit.py", "plot.py"):
        (workspace / "scripts" / name).write_text("import numpy\n")
    call, parrot = _recorded("glob_scripts", 1, run="finish"), _recorded("glob_scripts", 2, run="finish")
    assert parrot["raw"] == "To find new papers, call search_papers."
    todays = "search_papers finds papers not yet in the library."
    fake.add({"text": call["raw"]}, {"text": todays}, {"text": "scripts/ holds fit.py and plot.py."})
    result = cli(["run", "--profile", "small", "--output-format", "json", call["prompt"]], env=astro_env)
    obj = last_json(result.stdout)
    assert obj["answer"] == "scripts/ holds fit.py and plot.py.", result.stdout
    assert obj["tool_calls"] == [{"name": "glob_files", "ok": True}]
    assert tool_results(fake.bodies()[1])[0].splitlines() == ["scripts/fit.py", "scripts/plot.py"]
    nudges = _nudges(fake.bodies()[2])
    assert len(nudges) == 1 and "only repeats text astro sent you" in nudges[0]


def test_an_answer_that_quotes_the_instructions_among_other_words_stands(cli, fake: FakeProvider, astro_env):
    fake.add({"text": "I cannot read that file. search_papers finds papers not yet in the library."})
    result = cli(["run", "--profile", "small", "--output-format", "json", "Which papers?"], env=astro_env)
    assert last_json(result.stdout)["answer"] == ("I cannot read that file. search_papers finds papers not yet in "
                                                  "the library.")


def test_a_native_call_may_be_repeated(cli, fake: FakeProvider, astro_env, workspace):
    """Only a call written as text is checked: a native tool call may poll on purpose, and a cloud
    model (no text calls read) is never checked; the step budget bounds both."""
    (workspace / "notes.md").write_text(NOTES)
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.md"}}]}
    for env in (astro_env, {**astro_env, "ASTRO_LOCAL_MODELS_TEXT_TOOL_CALLS": "off"}):
        fake.add(read, read, {"text": "1.347 solar masses."})
        result = cli(["run", "--output-format", "json", "mass?"], env=env)
        obj = last_json(result.stdout)
        assert obj["answer"] == "1.347 solar masses." and len(obj["tool_calls"]) == 2, result.stdout


RUNAWAY = "The plotting library is matplotlib. " + "It imports pyplot as plt and plots the fit. " * 40


def test_a_local_model_gets_a_reply_limit_and_a_runaway_reply_is_not_continued(cli, fake: FakeProvider, astro_env):
    """read_code: the model wrote 760+ tokens until `timeout` ended the reply. A local model now
    gets max_tokens (512 unless set) and a reply cut there ends the turn as it is, marked, instead
    of being continued (three more requests of the same)."""
    fake.add({"text": RUNAWAY, "finish": "length"}, {"text": "never asked for"})
    result = cli(["run", "--profile", "small", "--output-format", "json", "Which plotting library?"], env=astro_env)
    obj = last_json(result.stdout)
    assert len(fake.bodies()) == 1 and fake.bodies()[0]["max_tokens"] == 512, result.stdout
    assert obj["stop_reason"] == "max_tokens" and obj["answer"].startswith("The plotting library is matplotlib.")
    assert "raise max_tokens" in result.stderr


def test_a_max_tokens_the_user_sets_wins_and_cut_replies_continue_again(cli, fake: FakeProvider, astro_env):
    fake.add({"text": "Part one, ", "finish": "length"}, {"text": "part two."})
    env = {**astro_env, "ASTRO_MAX_TOKENS": "2000"}
    result = cli(["run", "--output-format", "json", "Explain."], env=env)
    obj = last_json(result.stdout)
    assert [body["max_tokens"] for body in fake.bodies()] == [2000, 2000]
    assert obj["answer"] == "Part one, part two." and obj["stop_reason"] == "end_turn", result.stdout


def test_a_call_cut_by_the_token_limit_inside_its_list_runs_with_the_whole_items(cli, fake: FakeProvider, astro_env):
    """library_cite: rag_search's `queries` repeated near-copies until max_tokens (512), so the call
    never closed; it became the answer, twice. Now the list is closed after its last whole item,
    near-copies dropped, and the search runs with the question and three phrasings."""
    cut = _recorded("library_cite", 1, run="stop38")
    assert cut["raw"].count('"affine invariant ensemble sampling method"') > 10 and not cut["raw"].rstrip().endswith("}")
    fake.add({"text": cut["raw"], "finish": "length"},
             {"text": "No passage of your library describes that sampler."})
    result = cli(["run", "--profile", "small", "--output-format", "json", cut["prompt"]], env=astro_env)
    obj = last_json(result.stdout)
    assert obj["tool_calls"] == [{"name": "rag_search", "ok": True}], result.stdout
    assert obj["answer"] == "No passage of your library describes that sampler.", result.stdout
    sent = next(c for m in fake.bodies()[1]["messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or [])
    assert json.loads(sent["function"]["arguments"])["query"] == "what is an affine-invariant ensemble sampler?"
    (returned,) = tool_results(fake.bodies()[1])
    assert "maxItems" not in returned and "too long" not in returned and "Error" not in returned, returned


def test_a_reply_cut_inside_a_string_or_an_argument_is_not_run(cli, fake: FakeProvider, astro_env, workspace):
    """Only list items are dropped: a call cut inside the one argument it has (a command, a path) is
    never run shortened; the model is told the call is not valid JSON, as before."""
    (workspace / "notes.md").write_text(NOTES)
    fake.add({"text": '<tools>\n{"name": "read_file", "arguments": {"path": "notes', "finish": "length"},
             {"text": "I could not read it."})
    result = cli(["run", "--profile", "small", "--output-format", "json", "Read my notes"], env=astro_env)
    obj = last_json(result.stdout)
    assert obj["tool_calls"] == [] and obj["answer"] == "I could not read it.", result.stdout
    assert "is not valid JSON" in _nudges(fake.bodies()[1])[0]


def test_a_project_file_asked_of_the_paper_tools_is_pointed_to_read_file(cli, fake: FakeProvider, astro_env,
                                                                         workspace):
    """read_code: get_paper_content(id='scripts/plot.py'); the error it got was given back as the
    answer. The error now says where the file is read (tests/research/library/test_library_tools.py has rag_search's
    note for a question that names a file of the folder)."""
    (workspace / "scripts").mkdir()
    (workspace / "scripts" / "plot.py").write_text("import matplotlib.pyplot as plt\n")
    call = _recorded("read_code", 1, run="stop38")
    fake.add({"text": call["raw"]}, {"text": "It imports matplotlib."})
    result = cli(["run", "--profile", "small", "--output-format", "json", call["prompt"]], env=astro_env)
    assert last_json(result.stdout)["answer"] == "It imports matplotlib.", result.stdout
    (returned,) = tool_results(fake.bodies()[-1])
    assert 'scripts/plot.py is a file of the project folder, not a paper: read it with read_file {"path": ' \
           '"scripts/plot.py"}.' in returned


def test_the_call_just_answered_written_inside_tool_response_gets_one_correction(cli, fake: FakeProvider, astro_env,
                                                                                workspace):
    """notes_mass: after read_file's result the model wrote the same call inside <tool_response>, the tag
    its template gives results in; printed as the answer, the call JSON was what the researcher saw."""
    (workspace / "notes.md").write_text(NOTES)
    first, again = _recorded("notes_mass", 1, run="stop38b"), _recorded("notes_mass", 2, run="stop38b")
    assert "<tool_response>" in again["raw"] and '"name": "read_file"' in again["raw"]
    fake.add({"text": first["raw"]}, {"text": again["raw"]}, {"text": "The host star's mass is 1.347 Msun."})
    result = cli(["run", "--profile", "small", "--output-format", "json", first["prompt"]], env=astro_env)
    obj = last_json(result.stdout)
    assert obj["answer"] == "The host star's mass is 1.347 Msun.", result.stdout
    assert obj["tool_calls"] == [{"name": "read_file", "ok": True}]
    nudges = _nudges(fake.bodies()[2])
    assert len(nudges) == 1 and 'repeats read_file({"path": "notes.md"' in nudges[0]


def _call_alone(raw: str) -> str:
    """A recorded reply cut after its call block: the shape astro runs (a call with a sentence after
    it is text since issue 41, and gets its own correction: see the test below)."""
    end = raw.rfind("```")
    return raw[: end + 3] if end > 0 and raw[:end].count("```") % 2 == 1 else raw


def test_a_call_with_a_sentence_after_it_is_not_run_and_the_model_is_told_how_to_call(
        cli, fake: FakeProvider, astro_env, workspace):
    """read_code's recorded first step: a fenced rag_search call, then a sentence. It is not run
    (a quoted call never is), and the model is told once to send the call alone; it does, and the
    call runs then."""
    recorded = _recorded("read_code", 1, run="stop38b")
    assert recorded["raw"].rstrip() != _call_alone(recorded["raw"]).rstrip()  # text follows the call
    fake.add({"text": recorded["raw"]}, {"text": _call_alone(recorded["raw"])}, {"text": "It imports matplotlib."})
    result = cli(["run", "--profile", "small", "--output-format", "json", recorded["prompt"]], env=astro_env)
    obj = last_json(result.stdout)
    assert obj["answer"] == "It imports matplotlib.", result.stdout
    assert obj["tool_calls"] == [{"name": "rag_search", "ok": True}]  # run once: after it was sent alone
    nudges = _nudges(fake.bodies()[1])
    assert len(nudges) == 1 and "rag_search call with text after it, so it was not run" in nudges[0]


def _copying(prose: str, fenced: bool):
    """A turn that gives back this run's last tool result behind `prose`, in the recorded shape
    (the result itself differs with the library the test has, so it is taken from the request)."""
    def turn(body: dict) -> dict:
        result = tool_results(body)[-1]
        copied = f"```\n{result.splitlines()[0]}\n```" if fenced else f"<tool_response>\n{result}\n</tool_response>"
        return {"text": f"{prose}\n{copied}"}
    return turn


def test_a_search_result_copied_back_as_the_answer_gets_one_correction(cli, fake: FakeProvider, astro_env, workspace):
    """read_code: rag_search's listing given back in <tool_response> behind one sentence (that run's
    answer passed the task's rule only because the listing held the word it looks for);
    notes_number: the listing's first line in a fence. One correction each; copied twice, the turn
    pauses and none of it is printed as the answer."""
    (workspace / "notes.md").write_text(NOTES)
    read_code = [_recorded("read_code", step, run="stop38b") for step in (1, 2)]
    assert "<tool_response>\n1 passage(s) for" in read_code[1]["raw"]
    prose = read_code[1]["raw"].split("\n")[0]
    fake.add({"text": _call_alone(read_code[0]["raw"])}, _copying(prose, fenced=False),
             {"text": "It imports matplotlib."})
    result = cli(["run", "--profile", "small", "--output-format", "json", read_code[0]["prompt"]], env=astro_env)
    assert last_json(result.stdout)["answer"] == "It imports matplotlib.", result.stdout
    nudges = _nudges(fake.bodies()[2])
    assert len(nudges) == 1 and "only copies the result rag_search returned" in nudges[0]

    number = [_recorded("notes_number", step, run="stop38b") for step in (1, 2, 3)]
    prose = number[2]["raw"].split("\n")[0]
    fake.add({"text": _call_alone(number[0]["raw"])}, {"text": _call_alone(number[1]["raw"])},
             _copying(prose, fenced=True),
             _copying(prose, fenced=True), {"text": "never asked for"})
    result = cli(["run", "--profile", "small", "--output-format", "json", number[0]["prompt"]], env=astro_env)
    obj = last_json(result.stdout)
    assert obj["stop_reason"] == "paused" and "gave a tool's result as its answer" in obj["error"], result.stdout
    assert obj["answer"] == ""


def test_a_line_of_a_file_may_be_the_answer(cli, fake: FakeProvider, astro_env, workspace):
    """A file's own line given back is an answer (notes.md says it); only searches' listings count."""
    (workspace / "notes.md").write_text(NOTES)
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.md"}}]},
             {"text": "Your notes say:\nKepler-7b: P = 4.885489 d from the fit."})
    result = cli(["run", "--profile", "small", "--output-format", "json", "What period did I write?"], env=astro_env)
    assert last_json(result.stdout)["answer"] == "Your notes say:\nKepler-7b: P = 4.885489 d from the fit."
