"""The commands as a new researcher meets them: failed runs, --continue with nothing to continue, the
step budget in JSON and in a subagent's report, `library remove` at the end of input, the skill
scaffold, `library search` hints, a paper arXiv knows nothing about, and the "nothing new" nudge."""

from __future__ import annotations

import json

import pytest

from astro_cli.research.library.service import Library
from astro_cli.tasks.nudges import DIMINISHING_TEXT
from tests import research_server
from tests.conftest import CLOSED
from tests.helpers import last_json
from tests.library_support import add_paper, make_app

research = research_server.research


def test_failed_runs_stay_out_of_sessions_list_and_continue(cli, fake, astro_env):
    broken = dict(astro_env, ASTRO_API_BASE=CLOSED + "/v1")
    for question in ("first try", "second try"):
        assert cli(["run", question], env=broken).exit_code == 3
    listed = cli(["sessions", "list", "--json"], env=astro_env)
    assert json.loads(listed.stdout) == []
    table = cli(["sessions", "list"], env=astro_env)
    assert "2 session(s) holding only failed attempts" in table.stdout and "--all" in table.stdout
    everything = json.loads(cli(["sessions", "list", "--all", "--json"], env=astro_env).stdout)
    assert sorted(row["title"] for row in everything) == ["first try", "second try"]  # kept, not deleted
    nothing = cli(["run", "--continue", "go on"], env=astro_env)
    assert nothing.exit_code == 2
    assert "Nothing to continue: no earlier session in" in nothing.stderr and fake.requests == []
    fake.add({"text": "Answered."}, {"text": "Continued."})
    first = last_json(cli(["run", "--output-format", "json", "a real question"], env=astro_env).stdout)
    again = last_json(cli(["run", "--continue", "--output-format", "json", "go on"], env=astro_env).stdout)
    assert again["session_id"] == first["session_id"]
    assert [row["title"] for row in json.loads(cli(["sessions", "list", "--json"], env=astro_env).stdout)] == [
        "a real question"]


def test_a_question_that_failed_and_then_got_answered_is_listed(cli, fake, astro_env):
    fake.add({"status": 500, "error": "down"}, {"status": 500, "error": "down"}, {"status": 500, "error": "down"},
             {"status": 500, "error": "down"}, {"text": "Back up."})
    session = last_json(cli(["run", "--output-format", "json", "are you there?"], env=astro_env).stdout)
    assert session["is_error"] and session["stop_reason"] == "provider_error"
    assert cli(["run", "--resume", session["session_id"], "again?"], env=astro_env).exit_code == 0
    rows = json.loads(cli(["sessions", "list", "--json"], env=astro_env).stdout)
    assert [row["id"] for row in rows] == [session["session_id"]]


def test_the_json_result_of_a_spent_step_budget_gives_the_reason(cli, fake, astro_env, workspace):
    (workspace / "a.txt").write_text("a\n")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}, {"text": ""})
    result = cli(["run", "--max-steps", "1", "--output-format", "json", "read it"], env=astro_env)
    assert result.exit_code == 4
    obj = last_json(result.stdout)
    assert obj["is_error"] is True and obj["stop_reason"] == "max_steps"
    assert obj["error"] == ("The step budget (1) ran out without an answer; raise it with --max-steps or config "
                            "'max_steps'.")


def test_a_subagent_that_spends_its_steps_reports_n_of_n(cli, fake, astro_env, workspace):
    (workspace / "a.txt").write_text("a\n")
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    fake.add({"tool_calls": [{"name": "subagent", "arguments": {"task": "read a.txt", "max_steps": 2}}]},
             read, read, {"text": "It says a."}, {"text": "Done."})
    result = cli(["run", "--output-format", "json", "delegate"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    report = next(m["content"] for m in fake.bodies()[-1]["messages"] if m["role"] == "tool")
    assert "steps: 2 of 2 (all used, then a final answer was asked for)" in report
    assert "3 of 2" not in report


def test_library_remove_at_the_end_of_input_removes_nothing(cli, workspace):
    app = make_app(workspace)
    add_paper(app, "1001.0012")
    app.close()
    result = cli(["library", "remove", "1001.0012"], input="")
    assert result.exit_code == 1
    assert "Nothing removed." in result.stdout and "Aborted" not in result.stdout + result.stderr
    assert (workspace / "papers" / "1001.0012.pdf").exists()


def test_the_skill_scaffold_knows_subagents_exist(cli, workspace):
    assert cli(["skills", "new", "spectral-fit"]).exit_code == 0
    text = (workspace / "skills" / "spectral-fit" / "SKILL.md").read_text()
    assert "once subagents are available" not in text and "fork: runs in a subagent" in text


def test_library_search_tells_a_person_what_to_type(cli, workspace):
    app = make_app(workspace)
    add_paper(app, "1001.0012")
    app.close()
    from astro_cli.research.library.parse import parse_paper

    app = make_app(workspace)
    parse_paper(Library.of(app), "1001.0012")
    app.close()
    empty = cli(["library", "search", "supernova cosmology"])
    assert empty.exit_code == 0
    assert "astro search 'supernova cosmology'" in empty.stdout and "astro library add" in empty.stdout
    assert "search_papers" not in empty.stdout and "download_paper" not in empty.stdout
    unknown = cli(["library", "search", "albedo", "--paper", "2501.00001"])
    assert unknown.exit_code == 2
    assert "`astro library add 2501.00001` adds it" in unknown.stderr and "download_paper" not in unknown.stderr


@pytest.fixture
def services(astro_env, research):
    return {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT)}


def test_a_paper_arxiv_has_no_metadata_for_is_titled_from_its_pdf_with_a_warning(cli, services, workspace):
    result = cli(["library", "add", "1001.0012", "--no-parse"], env=services)  # the stand-in arXiv knows no such id
    assert result.exit_code == 0, result.stderr
    title = "The Statistics of Albedo and Heat Recirculation on Hot Exoplanets"
    assert result.stdout.startswith(f"1001.0012 added: {title}")
    assert "warning: arXiv returned no metadata for 1001.0012" in result.stderr
    assert f'the title "{title}" (authors, year too) was read from the PDF' in result.stderr
    exported = cli(["library", "export", "--bibtex"], env=services)
    assert f'title = "{{{title}}}"' in exported.stdout and "Untitled" not in exported.stdout
    assert "Cowan" in exported.stdout and "2010" in exported.stdout and "anon" not in exported.stdout


def test_distinct_writes_with_equal_results_are_not_nothing_new(cli, fake, astro_env, workspace):
    writes = [{"tool_calls": [{"name": "run_bash", "arguments": {"command": f"echo {n} > f{n}.txt"}}]}
              for n in range(3)]
    fake.add(*writes, {"text": "Three files written."})
    result = cli(["run", "--allow", "run_bash", "--output-format", "json", "write three files"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    assert [(workspace / f"f{n}.txt").read_text() for n in range(3)] == ["0\n", "1\n", "2\n"]
    assert not any("brought nothing new" in json.dumps(body) for body in fake.bodies())
    # The same call with the same result is still nothing new.
    again = [{"tool_calls": [{"name": "run_bash", "arguments": {"command": "echo 0 > f0.txt"}}]}] * 3
    fake.add(*again, {"text": "Done."})
    cli(["run", "--allow", "run_bash", "write f0 again"], env=astro_env)
    assert any(DIMINISHING_TEXT.format(steps=2) in json.dumps(body, ensure_ascii=False) for body in fake.bodies())
