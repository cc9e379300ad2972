"""Issue 46, everyday use round two: a command line that reads like Claude Code's and llm's.

Each test drives the real `astro` process (a subprocess, or a pseudo-terminal for the REPL) against
the fake model provider, and fails on the code before issue 46.
"""

from __future__ import annotations

import json
import sys

import pytest
import yaml

from tests.cli.test_everyday_cli import quit_with_ctrl_d, spawn
from tests.paths import FIXTURES_DIR


def questions(fake) -> list[str]:
    """What the model was asked: the user messages of the first request (the environment message aside)."""
    return [m["content"] for m in fake.bodies()[0]["messages"] if m["role"] == "user"
            and not str(m["content"]).startswith("<environment")]


# --- 1. options anywhere, and usage errors as JSON ------------------------------------------------------
def test_options_after_the_question_are_options(run_astro, fake, astro_env):
    fake.add({"text": "A Cepheid pulsates."})
    result = run_astro(["-p", "what is a cepheid?", "--output-format", "json", "-m", "openai/fake-two"], astro_env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["result"] == "A Cepheid pulsates."
    assert questions(fake)[0] == "what is a cepheid?"
    assert fake.bodies()[0]["model"] == "fake-two"


def test_a_question_that_starts_like_an_option_goes_after_double_dash(run_astro, fake, astro_env):
    fake.add({"text": "Yes."}, {"text": "Also yes."})
    assert run_astro(["-p", "--", "--output-format is a flag?"], astro_env).returncode == 0
    assert questions(fake)[0] == "--output-format is a flag?"
    assert run_astro(["-p", "is -0.3 dex a lot?"], astro_env).returncode == 0  # a number is a word


def test_the_repl_reads_an_option_after_the_first_question(fake, astro_env, workspace):
    fake.add({"text": "A Cepheid is a pulsating giant."})
    child = spawn(["what is a cepheid?", "-m", "openai/fake-two"], astro_env, workspace)
    child.expect("A Cepheid is a pulsating giant")
    child.expect("\n> ")
    quit_with_ctrl_d(child)
    assert questions(fake)[0] == "what is a cepheid?"
    assert fake.bodies()[0]["model"] == "fake-two"


@pytest.mark.parametrize("bad", [["--max-steps", "lots"], ["--no-such-flag"]])
def test_a_usage_error_under_json_still_prints_one_result_object(run_astro, fake, astro_env, bad):
    result = run_astro(["-p", "what is a cepheid?", "--output-format", "json", *bad], astro_env)
    assert result.returncode == 2
    obj = json.loads(result.stdout)
    assert obj["is_error"] is True and obj["type"] == "result" and obj["exit_code"] == 2
    assert bad[0] in obj["error"] or "lots" in obj["error"]
    assert fake.bodies() == []


# --- 2. piped input joins the question ------------------------------------------------------------------
def test_piped_input_comes_before_the_question(run_astro, fake, astro_env):
    fake.add({"text": "Two observations of M31."})
    result = run_astro(["-p", "summarise this"], astro_env, input="2024-01-02 M31 V=3.4\n2024-01-03 M31 V=3.5\n")
    assert result.returncode == 0, result.stderr
    asked = questions(fake)[0]
    assert asked.startswith("2024-01-02 M31 V=3.4") and asked.endswith("summarise this")
    fake.add({"text": "Alone."})
    assert run_astro(["-p"], astro_env, input="what is M31?").returncode == 0  # stdin alone is the question
    assert [m["content"] for m in fake.bodies()[1]["messages"] if m["role"] == "user"][-2] == "what is M31?"


# --- 3. $HOME and / are never a workspace ------------------------------------------------------------------
def test_home_is_never_the_workspace_of_the_folders_under_it(run_astro, fake, astro_env, tmp_path):
    home = tmp_path / "me"
    project = home / "galaxies"
    project.mkdir(parents=True)
    env = dict(astro_env, HOME=str(home))
    fake.add({"text": "one"}, {"text": "two"})
    assert run_astro(["run", "asked in home"], env, cwd=home).returncode == 0  # leaves ~/.astro behind
    assert (home / ".astro" / "astro.db").exists()
    assert run_astro(["run", "asked in a project"], env, cwd=project).returncode == 0
    assert (project / ".astro" / "astro.db").exists()
    listed = run_astro(["sessions", "list"], env, cwd=project)
    assert "asked in a project" in listed.stdout and "asked in home" not in listed.stdout


def test_a_workspace_found_above_is_named(run_astro, fake, astro_env, workspace):
    (workspace / ".astro").mkdir()
    notes = workspace / "notes"
    notes.mkdir()
    fake.add({"text": "ok"})
    result = run_astro(["run", "hello"], astro_env, cwd=notes)
    assert result.returncode == 0, result.stderr
    assert f"workspace: {workspace.resolve()} (found above this folder)" in result.stderr


# --- 4. a typo of a command is never a paid question -------------------------------------------------------
@pytest.mark.parametrize(("typed", "meant"), [(["sesions"], "astro sessions"),
                                               (["libary", "add", "f.pdf"], "astro library add f.pdf"),
                                               (["congif", "show"], "astro config show")])
def test_a_mistyped_command_is_suggested_and_not_sent(run_astro, fake, astro_env, workspace, typed, meant):
    result = run_astro(typed, astro_env)
    assert result.returncode == 2
    assert f"did you mean `{meant}`?" in result.stderr
    assert fake.bodies() == []
    assert not (workspace / ".astro").exists()


# --- 5. a group named alone lists ---------------------------------------------------------------------------
@pytest.mark.parametrize(("group", "shown"), [("library", "The library is empty"), ("catalog", "gaia"),
                                              ("papers", "refs"), ("prompt", "system prompt"),
                                              ("worker", "worker")])
def test_a_group_named_alone_lists(run_astro, astro_env, group, shown):
    result = run_astro([group], astro_env)
    assert result.returncode in (0, 1), result.stderr  # `worker` alone is `worker status`: 1 when none runs
    assert "Usage:" not in result.stderr and "Missing command" not in result.stderr
    assert shown.lower() in (result.stdout + result.stderr).lower()


# --- 6. config set max_steps 40, config unset, doctor on an unknown key -------------------------------------
def test_config_set_a_higher_limit_then_unset_it(run_astro, astro_env):
    result = run_astro(["config", "set", "max_steps", "40"], astro_env)
    assert result.returncode == 0, result.stderr
    assert "your own config" in result.stdout
    assert run_astro(["config", "get", "max_steps"], astro_env).stdout.strip() == "40"
    assert run_astro(["config", "unset", "max_steps", "--user"], astro_env).returncode == 0
    assert run_astro(["config", "get", "max_steps"], astro_env).stdout.strip() == "25"
    again = run_astro(["config", "unset", "max_steps", "--user"], astro_env)
    assert again.returncode == 2 and "is not set in your config" in again.stderr


def test_config_unset_keeps_the_rest_of_the_file(run_astro, astro_env, workspace):
    config = workspace / ".astro" / "config.yaml"
    config.parent.mkdir()
    config.write_text("# my settings\nmax_steps: 10\nlanguage: English\n")
    assert run_astro(["config", "unset", "max_steps"], astro_env).returncode == 0
    assert config.read_text() == "# my settings\nlanguage: English\n"


def test_doctor_flags_a_misspelt_config_key(run_astro, astro_env, workspace):
    config = workspace / ".astro" / "config.yaml"
    config.parent.mkdir()
    config.write_text(yaml.safe_dump({"max_stesp": 10}))
    result = run_astro(["doctor", "--json"], astro_env)
    [check] = [c for c in json.loads(result.stdout)["checks"] if c["line"].startswith("config:")]
    assert not check["ok"] and "'max_stesp'" in check["line"] and "max_steps" in check["line"]
    assert result.returncode == 1



# --- 7. "starting…" whenever the first output takes a while ---------------------------------------------------
def test_starting_shows_while_the_first_output_is_awaited_after_the_turn_began(fake, astro_env, workspace):
    """The turn's start (an event that prints nothing) used to stop "starting…" or cancel its timer: a
    blank screen for the seconds a cold start imports litellm. Here a UserPromptSubmit hook (it runs
    after the turn began) holds the turn until the test has looked at the screen."""
    import pexpect

    from tests.helpers import trust_workspace, wait_for

    (workspace / ".astro").mkdir()
    hold = "touch began; while [ ! -f go ]; do sleep 0.05; done"
    (workspace / ".astro" / "config.yaml").write_text(yaml.safe_dump({"hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": hold}]}]}}))
    trust_workspace(workspace)
    fake.add({"text": "A Cepheid pulsates."})
    env = dict(astro_env, TERM="xterm", COLUMNS="100", LINES="40")  # a terminal rich animates a status on
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli", "run", "what is a cepheid?"], env=env,
                          cwd=str(workspace), encoding="utf-8", timeout=60, dimensions=(40, 100))
    try:
        assert wait_for(lambda: (workspace / "began").exists(), 60)
        while True:  # drop what was shown before the turn began: the screen from now on is looked at
            try:
                child.read_nonblocking(65536, timeout=0)
            except pexpect.TIMEOUT:
                break
        child.expect("starting…", timeout=15)
    finally:
        (workspace / "go").touch()
    child.expect("A Cepheid pulsates")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


# --- 8. the pager renders colour or prints plain, never raw escapes -------------------------------------------
def test_config_show_pages_in_colour_without_raw_escapes(tmp_path, workspace):
    import pexpect

    from tests.conftest import base_env

    env = {k: v for k, v in base_env(tmp_path).items() if k not in ("NO_COLOR", "PAGER", "MANPAGER", "LESS")}
    env.update(TERM="xterm-256color", COLUMNS="100", LINES="20")  # a short terminal: the listing is paged
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli", "config", "show"], env=env, cwd=str(workspace),
                          encoding="utf-8", timeout=60, dimensions=(20, 100))
    child.expect("max_steps|model")
    child.expect(r"\x1b\[")  # colour reaches the terminal as escape codes, rendered...
    screen = child.before + child.after
    child.sendline("q")
    child.expect(pexpect.EOF)
    screen += child.before
    child.close()
    import re

    shown = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[=>]", "", screen)  # what the reader sees
    assert "ESC[" not in shown  # ...never shown as the letters `ESC[36m`, as `less` without -R does
    assert child.exitstatus == 0


def test_a_pager_that_cannot_render_colour_gets_plain_text(tmp_path, workspace):
    import pexpect

    from tests.conftest import base_env

    env = {k: v for k, v in base_env(tmp_path).items() if k not in ("NO_COLOR", "MANPAGER", "LESS")}
    env.update(TERM="xterm-256color", COLUMNS="100", LINES="20", PAGER="cat")
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli", "config", "show"], env=env, cwd=str(workspace),
                          encoding="utf-8", timeout=60, dimensions=(20, 100))
    child.expect(pexpect.EOF)
    child.close()
    assert "max_steps" in child.before and "\x1b[36m" not in child.before


# --- 9. model aliases, and `astro models` ------------------------------------------------------------------------
def test_a_model_alias_is_the_providers_current_model(run_astro, fake, anthropic_env, astro_env):
    fake.add({"text": "From Claude."}, {"text": "From GPT."})
    result = run_astro(["-p", "hello", "-m", "sonnet"], anthropic_env)
    assert result.returncode == 0, result.stderr
    assert fake.bodies()[0]["model"] == "claude-sonnet-4-5"
    result = run_astro(["-p", "hello", "-m", "gpt-4.1"], astro_env)
    assert result.returncode == 0, result.stderr
    assert fake.bodies()[1]["model"] == "gpt-4.1"
    shown = run_astro(["config", "get", "model"], dict(astro_env, ASTRO_MODEL="opus"))
    listed = run_astro(["models"], dict(astro_env, ASTRO_MODEL="opus"))
    assert listed.returncode == 0, listed.stderr
    assert any(line.startswith("sonnet") and "anthropic/claude-sonnet-4-5" in line for line in listed.stdout.splitlines())
    assert "in use: anthropic/claude-opus-4-5 (env ASTRO_MODEL, alias opus)" in listed.stdout
    assert shown.stdout.strip() == "anthropic/claude-opus-4-5"


def test_model_alias_in_the_repl(repl):
    from tests.conftest import CTRL_D

    out = repl.type_and_run("/model haiku\n" + CTRL_D)
    assert "model for the next turns: anthropic/claude-haiku-4-5" in out


# --- 10. `astro -c "follow-up"`, and `astro sessions list -q TEXT` ----------------------------------------------
def test_continue_with_a_question_continues_the_latest_session(run_astro, fake, astro_env, workspace):
    fake.add({"text": "H0 is about 70 km/s/Mpc."}, {"text": "About 1 km/s/Mpc."}, {"text": "Riess and Freedman."})
    assert run_astro(["run", "what is H0?"], astro_env).returncode == 0
    child = spawn(["-c", "and its error?"], astro_env, workspace)
    child.expect("About 1 km/s/Mpc")
    child.expect("\n> ")
    quit_with_ctrl_d(child)
    sent = [m["content"] for m in fake.bodies()[1]["messages"] if m["role"] == "user"]
    assert sent[0] == "what is H0?" and "and its error?" in sent
    printed = run_astro(["-c", "-p", "who measured it?"], astro_env)
    assert printed.returncode == 0, printed.stderr
    sent = [m["content"] for m in fake.bodies()[2]["messages"] if m["role"] == "user"]
    assert sent[0] == "what is H0?" and "who measured it?" in sent
    assert len(json.loads(run_astro(["sessions", "list", "--json"], astro_env).stdout)) == 1


def test_sessions_list_finds_a_session_by_what_was_said(run_astro, fake, astro_env):
    fake.add({"text": "Cepheids pulsate."}, {"text": "The TRGB is a sharp edge in the red giant branch."})
    assert run_astro(["run", "what is a cepheid?"], astro_env).returncode == 0
    assert run_astro(["run", "what is the tip of the RGB?"], astro_env).returncode == 0
    found = run_astro(["sessions", "list", "-q", "sharp EDGE", "--json"], astro_env)  # in an answer, any case
    assert found.returncode == 0, found.stderr
    assert [row["title"] for row in json.loads(found.stdout)] == ["what is the tip of the RGB?"]
    assert "what is a cepheid?" in run_astro(["sessions", "list", "-q", "cepheid"], astro_env).stdout
    none = run_astro(["sessions", "list", "-q", "100%_sure"], astro_env)
    assert none.returncode == 0 and "No session of this workspace mentions '100%_sure'." in none.stdout


# --- 11. a plan is not a literature claim: no citation nudge ------------------------------------------------------
PLAN = ("Here is my plan:\n\n1. Search ADS for papers that report H0 from Cepheids, 2019 to 2024.\n"
        "2. Download the 3 studies that measured the zero point with the largest samples.\n"
        "3. Compare their values in a table.\n\nI will start once you confirm.")


def test_a_plan_gets_no_citation_nudge(run_astro, fake, astro_env):
    fake.add({"text": PLAN})
    result = run_astro(["run", "plan a review of the Cepheid zero point"], astro_env)
    assert result.returncode == 0, result.stderr
    assert len(fake.bodies()) == 1  # no second request asking to fix claims
    assert result.stdout.count("Download the 3 studies") == 1


def test_a_plan_is_printed_once_in_the_repl(repl, fake):
    from tests.conftest import CTRL_D

    fake.add({"text": PLAN})
    out = repl.type_and_run("plan a review of the Cepheid zero point\n" + CTRL_D)
    assert out.count("Download the 3 studies") == 1
    assert len(fake.bodies()) == 1
    assert "uncited" not in out  # a step of a plan is not reported as a claim either


# --- 12. Claude Code's flags: --system-prompt, --append-system-prompt, --disallowedTools, --add-dir ----------------
def _system(body) -> str:
    first = body["messages"][0]
    content = first["content"]
    return content if isinstance(content, str) else " ".join(part.get("text", "") for part in content)


def test_system_prompt_flags_replace_and_append(run_astro, fake, astro_env):
    fake.add({"text": "ok"}, {"text": "ok"})
    result = run_astro(["-p", "hi", "--system-prompt", "You are a terse bot for radio astronomers."], astro_env)
    assert result.returncode == 0, result.stderr
    system = _system(fake.bodies()[0])
    assert "You are a terse bot for radio astronomers." in system and "You are astro" not in system
    assert "You can use these tools" in system  # the tools section stays
    result = run_astro(["-p", "hi", "--append-system-prompt", "Always give distances in parsecs."], astro_env)
    assert result.returncode == 0, result.stderr
    system = _system(fake.bodies()[1])
    assert "You are astro" in system and "Always give distances in parsecs." in system


def test_disallowed_tools_never_run(run_astro, fake, astro_env, workspace):
    (workspace / "a.txt").write_text("secret plan")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}, {"text": "I could not read it."})
    result = run_astro(["-p", "read a.txt", "--disallowedTools", "read_file,run_bash", "--output-format", "json"],
                       astro_env)
    assert result.returncode == 0, result.stderr
    sent = json.dumps(fake.bodies()[1]["messages"])
    assert "secret plan" not in sent


def test_add_dir_lets_the_file_tools_read_another_folder(run_astro, fake, astro_env, tmp_path):
    other = tmp_path / "shared-data"
    other.mkdir()
    (other / "obs.txt").write_text("V = 3.44 mag")
    path = str(other / "obs.txt")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": path}}]}, {"text": "refused"},
             {"tool_calls": [{"name": "read_file", "arguments": {"path": path}}]}, {"text": "V is 3.44."})
    assert run_astro(["-p", "read it"], astro_env).returncode == 0
    assert "V = 3.44 mag" not in json.dumps(fake.bodies()[1]["messages"])  # outside the workspace: refused
    assert run_astro(["-p", "read it", "--add-dir", str(other)], astro_env).returncode == 0
    assert "V = 3.44 mag" in json.dumps(fake.bodies()[3]["messages"])


# --- 13. stream-json in Claude Code's shapes; its result fields -------------------------------------------------
def test_stream_json_speaks_claude_codes_messages(run_astro, fake, astro_env, workspace):
    fake.add({"tool_calls": [{"id": "call_w1", "name": "file_write",
                              "arguments": {"path": "out.md", "content": "# notes"}}]},
             {"text": "I was not allowed to write."})
    result = run_astro(["-p", "write notes", "--output-format", "stream-json", "--verbose"], astro_env)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [m["type"] for m in lines] == ["system", "assistant", "user", "assistant", "result"]
    init = lines[0]
    assert init["subtype"] == "init" and "read_file" in init["tools"] and init["model"] == "openai/fake-model"
    [tool_use] = lines[1]["message"]["content"]
    assert (tool_use["type"], tool_use["name"], tool_use["input"]["path"]) == ("tool_use", "file_write", "out.md")
    [tool_result] = lines[2]["message"]["content"]
    assert tool_result["type"] == "tool_result" and tool_result["is_error"] is True
    assert tool_result["tool_use_id"] == tool_use["id"]
    assert lines[3]["message"]["content"] == [{"type": "text", "text": "I was not allowed to write."}]
    final = lines[4]
    assert final["subtype"] == "success" and final["stop_reason"] == "end_turn"
    assert final["session_id"] == init["session_id"]
    assert final["permission_denials"] == [{"tool_name": "file_write", "tool_use_id": tool_use["id"],
                                            "tool_input": {"path": "out.md", "content": "# notes"}}]
    assert not (workspace / "out.md").exists()
    fake.add({"text": "Again."})
    richer = run_astro(["-p", "again", "--output-format", "astro-events"], astro_env)
    types = [json.loads(line)["type"] for line in richer.stdout.splitlines()]
    assert types[0] == "turn_started" and "text_delta" in types and types[-1] == "result"


# --- 14. the claim-check note on stderr is whole, as docs/citations.md shows it ---------------------------------
def test_the_claim_check_note_is_printed_whole(run_astro, fake, astro_env):
    planets = ("WASP-12b", "WASP-18b", "WASP-19b", "WASP-33b", "WASP-43b")
    claims = " ".join(f"The Bond albedo of {p} is exactly 0.{i}2, as established by JWST in 2023."
                      for i, p in enumerate(planets, start=1))
    fake.add({"text": claims}, {"text": "I have no passage for these albedos."})
    result = run_astro(["run", "albedos?"], astro_env)
    assert result.returncode == 0, result.stderr
    note = " ".join(result.stderr.split())
    assert all(p in note for p in planets)
    assert "Then give your whole answer again." in note


# (`!cmd`, `@FILE` and a binary attachment: tests/ui/test_repl_inputs.py, tests/cli/test_attachments.py)
# --- 15. -a FILE: a file for one question, read as the library reads it, not added to it ---------------------------
COWAN_PDF = FIXTURES_DIR / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf"


def test_attach_a_pdf_and_a_table_to_one_question(run_astro, fake, astro_env, workspace):
    (workspace / "obs.csv").write_text("star,V\nM31-V1,19.4\n")
    fake.add({"text": "Albedos and one star."})
    result = run_astro(["-p", "what do these say?", "-a", str(COWAN_PDF), "-a", "obs.csv"],
                       dict(astro_env, ASTRO_READ_MAX_CHARS="3000"))
    assert result.returncode == 0, result.stderr
    asked = questions(fake)[0]
    assert "THE STATISTICS OF ALBEDO AND HEAT RECIRCULATION" in asked  # the PDF, read by the library's reader
    assert "of 63,303 characters" in asked  # bounded, and says so (stop 54: scripts and displays of 1001.0012 read whole)
    assert "M31-V1,19.4" in asked and asked.startswith("what do these say?")
    assert '<attached-file path="' in asked
    listed = run_astro(["sessions", "list", "--json"], astro_env)
    assert json.loads(listed.stdout)[0]["title"] == "what do these say?"
    library = run_astro(["library", "list", "--json"], astro_env)
    assert library.stdout.strip() in ("", "[]")  # not added to the library


def test_max_budget_stops_the_run_before_the_next_request(run_astro, fake, astro_env, workspace):
    glob = {"tool_calls": [{"name": "glob_files", "arguments": {"pattern": "*"}}]}
    fake.add(glob, glob, glob, {"text": "done"})
    env = dict(astro_env, ASTRO_MODEL="openai/gpt-4.1")  # a model litellm has a price for
    result = run_astro(["-p", "look around", "--max-budget-usd", "0.0005", "--output-format", "json"], env)
    assert result.returncode == 4, result.stderr
    obj = json.loads(result.stdout)
    assert obj["subtype"] == "error_max_budget_usd" and obj["is_error"] is True
    assert "cost budget ($0.0005) was reached" in obj["error"]
    assert len(fake.bodies()) == 2  # each request costs $0.00036: the third is never sent


# --- 12. --session-id --------------------------------------------------------------------------------------------
def test_session_id_names_the_new_session(run_astro, fake, astro_env):
    fake.add({"text": "ok"}, {"text": "continued"})
    sid = "3f2a9c41-d0e7-4b3a-9a55-1c2d3e4f5a6b"
    result = run_astro(["-p", "hello", "--session-id", sid, "--output-format", "json"], astro_env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["session_id"] == sid
    again = run_astro(["-p", "hello again", "--session-id", sid], astro_env)
    assert again.returncode == 2 and f"--resume {sid}" in again.stderr
    assert run_astro(["-p", "more", "--resume", sid], astro_env).returncode == 0
    bad = run_astro(["-p", "x", "--session-id", "../../etc"], astro_env)
    assert bad.returncode == 2 and "is not a session id" in bad.stderr


# --- 12. --no-session-persistence ------------------------------------------------------------------------------------
def test_no_session_persistence_leaves_no_session_to_list_or_resume(run_astro, fake, astro_env, workspace):
    fake.add({"tool_calls": [{"name": "glob_files", "arguments": {"pattern": "*"}}]}, {"text": "Nothing kept."})
    result = run_astro(["-p", "look around", "--no-session-persistence", "--output-format", "json"], astro_env)
    assert result.returncode == 0, result.stderr
    gone = json.loads(result.stdout)["session_id"]
    assert json.loads(run_astro(["sessions", "list", "--json"], astro_env).stdout or "[]") == []
    resumed = run_astro(["-p", "and then?", "--resume", gone], astro_env)
    assert resumed.returncode == 2 and f"No session '{gone}'" in resumed.stderr
    fake.add({"text": "Kept."})
    kept = json.loads(run_astro(["-p", "hello", "--output-format", "json"], astro_env).stdout)["session_id"]
    assert [s["id"] for s in json.loads(run_astro(["sessions", "list", "--json"], astro_env).stdout)] == [kept]
