"""Issue 31, the minor points (5-20): what a researcher meets in the first hour, each through the
real `astro` process (a subprocess, or a pseudo-terminal)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pybtex.database
import yaml

from tests import research_server
from tests.conftest import base_env
from tests.helpers import last_json
from tests.library_support import EMCEE_TEX


def _project_config(workspace: Path, settings: dict) -> None:
    (workspace / ".astro").mkdir(exist_ok=True)
    (workspace / ".astro" / "config.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")


# --- 5. hooks of an untrusted folder are listed as withheld -------------------------------------------
def test_hooks_list_names_the_hooks_an_untrusted_folder_withholds(run_astro, workspace, tmp_path):
    _project_config(workspace, {"hooks": {"PreToolUse": [{"matcher": "run_bash",
                                                          "hooks": [{"type": "command", "command": "echo hi"}]}]}})
    result = run_astro(["hooks", "list"], base_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "No hooks are configured" not in result.stdout
    assert "configured in .astro/config.yaml, not applied until `astro trust`" in result.stdout
    assert "PreToolUse (tools matching 'run_bash') runs:\n  echo hi" in result.stdout


# --- 6. a refused tool's line is whole, with the --allow to give --------------------------------------
def test_a_refused_tool_line_is_printed_whole(run_astro, fake, astro_env):
    fake.add({"tool_calls": [{"name": "run_bash", "arguments": {"command": "ls"}}]}, {"text": "I could not list."})
    result = run_astro(["run", "list the folder"], astro_env)
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stderr.splitlines() if "run_bash" in line and "error" in line)
    assert line.endswith("--allow run_bash, --yes, or config 'permissions.allow'."), line


# --- 7. BibTeX is the default format of `sessions cite` and `library export` -------------------------
research = research_server.research


def test_cite_and_export_print_bibtex_without_a_flag(run_astro, fake, astro_env, research):
    env = {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT)}
    fake.add({"tool_calls": [{"name": "download_paper", "arguments": {"id": "1111.2011", "source": False}}]},
             {"text": "The Bethe-lattice nodes are in arXiv:1111.2011."})
    ran = run_astro(["run", "--output-format", "json", "--yes", "Sources?"], env)
    assert ran.returncode == 0, ran.stderr
    session_id = last_json(ran.stdout)["session_id"]
    cited = run_astro(["sessions", "cite", session_id], env)
    assert cited.returncode == 0, cited.stderr
    assert list(pybtex.database.parse_string(cited.stdout, "bibtex").entries) == ["Murray2012_1111.2011"]
    exported = run_astro(["library", "export"], env)
    assert exported.returncode == 0, exported.stderr
    assert list(pybtex.database.parse_string(exported.stdout, "bibtex").entries) == ["Murray2012_1111.2011"]


# --- 8. a group named alone lists (or shows), as `git remote` and `llm keys` do ------------------------
def test_groups_named_alone_list_and_exit_0(run_astro, fake, astro_env):
    fake.add({"text": "Cepheids pulsate."})
    assert run_astro(["run", "what is a cepheid?"], astro_env).returncode == 0
    expected = {"sessions": "what is a cepheid?", "keys": "No keys yet", "config": "max_steps",
                "hooks": "fail_closed"}
    for group, shown in expected.items():
        result = run_astro([group], astro_env)
        assert result.returncode == 0, (group, result.stderr)
        assert shown in result.stdout, (group, result.stdout)
        assert "Usage:" not in result.stdout
    helped = run_astro(["sessions", "--help"], astro_env)
    assert helped.returncode == 0 and "list" in helped.stdout and "cite" in helped.stdout


# --- 9. config show KEY|PREFIX, config get/set, a pager on a terminal -------------------------------------
def test_config_show_takes_keys_and_prefixes_and_get_set_work(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    one = run_astro(["config", "show", "model"], env)
    assert one.returncode == 0, one.stderr
    assert "model" in one.stdout and "max_steps" not in one.stdout
    library = run_astro(["config", "show", "library"], env)
    assert "library.embedding_model" in library.stdout and "max_steps" not in library.stdout
    assert run_astro(["config", "get", "max_steps"], env).stdout.strip() == "25"
    wrote = run_astro(["config", "set", "max_steps", "20"], env)  # a workspace may tighten a limit
    assert wrote.returncode == 0, wrote.stderr
    assert yaml.safe_load((workspace / ".astro" / "config.yaml").read_text())["max_steps"] == 20
    assert run_astro(["config", "get", "max_steps"], env).stdout.strip() == "20"
    looser = run_astro(["config", "set", "max_steps", "40"], env)  # ... never loosen it: said, not written
    assert looser.returncode != 0 and "--user" in looser.stderr and "Traceback" not in looser.stderr
    assert yaml.safe_load((workspace / ".astro" / "config.yaml").read_text())["max_steps"] == 20
    mine = run_astro(["config", "set", "max_steps", "40", "--user"], env)
    assert mine.returncode == 0, mine.stderr
    (workspace / ".astro" / "config.yaml").unlink()
    assert run_astro(["config", "get", "max_steps"], env).stdout.strip() == "40"
    bad = run_astro(["config", "set", "max_steps", "lots"], env)
    assert bad.returncode == 2 and "error: 'max_steps' should be a whole number, not 'lots'." in bad.stderr


def test_config_show_pages_a_long_listing_on_a_terminal(workspace, tmp_path):
    import pexpect

    paged = tmp_path / "paged.txt"
    env = dict(base_env(tmp_path), PAGER=f"cat > {paged}", MANPAGER="", TERM="xterm")
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli", "config", "show"], env=env, cwd=str(workspace),
                          encoding="utf-8", timeout=60, dimensions=(24, 100))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "max_steps" in paged.read_text(encoding="utf-8")


# --- 12 (config part). a mistyped key gets "did you mean" -------------------------------------------------
def test_a_mistyped_config_key_gets_a_suggestion(run_astro, workspace, tmp_path):
    _project_config(workspace, {"modle": "openai/gpt-4.1"})
    result = run_astro(["config", "show", "model"], base_env(tmp_path))
    assert "unknown setting 'modle' is ignored (did you mean 'model'?)" in result.stderr
    asked = run_astro(["config", "get", "modle"], base_env(tmp_path))
    assert asked.returncode == 2 and "(did you mean 'model'?)" in asked.stderr


# --- 10. help in plain words: whole summaries, PATH/ID/N metavars, no pydantic ---------------------------
def test_help_and_bad_values_read_as_plain_sentences(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    top = run_astro(["--help"], env).stdout
    commands = top.split("Commands:")[1]
    assert "..." not in commands and "<str>" not in top and "<int>" not in top
    assert "status, start, stop." in " ".join(commands.split())  # the worker's whole summary
    assert "--max-steps N" in top and "--resume ID" in top
    added = run_astro(["library", "add", "--help"], env).stdout
    assert "<list[str]>" not in added and "--author AUTHOR" in added
    assert "-o, --output PATH" in run_astro(["sessions", "cite", "--help"], env).stdout
    fmt = run_astro(["run", "--output-format", "yaml", "x"], env)
    assert fmt.returncode == 2 and "Value error" not in fmt.stderr
    assert "'yaml' is not one of 'text', 'json', 'stream-json', 'astro-events'." in fmt.stderr
    steps = run_astro(["--max-steps", "lots"], env)
    assert steps.returncode == 2 and "'lots' is not a whole number" in steps.stderr
    assert "Input should be" not in steps.stderr


# --- 12. typos everywhere a name is typed: providers, sessions (config keys above) ---------------------
def test_a_mistyped_provider_or_session_gets_a_suggestion(run_astro, fake, astro_env, tmp_path):
    typo = run_astro(["keys", "set", "antropic"], astro_env, input="sk-ant-xyz\n")
    assert typo.returncode == 2, typo.stdout
    assert "did you mean 'anthropic'?" in typo.stderr
    assert not (tmp_path / "astro-home" / "keys.yaml").exists()  # nothing saved under the typo
    fake.add({"text": "ok"})
    session_id = last_json(run_astro(["run", "--output-format", "json", "hi"], astro_env).stdout)["session_id"]
    mistyped = session_id[:-1] + ("0" if session_id[-1] != "0" else "1")
    shown = run_astro(["sessions", "show", mistyped], astro_env)
    assert shown.returncode == 2 and f"(did you mean '{session_id}'?)" in shown.stderr
    resumed = run_astro(["run", "--resume", mistyped, "more"], astro_env)
    assert resumed.returncode == 2 and f"(did you mean '{session_id}'?)" in resumed.stderr


# --- 13. --output-format json: Claude Code's field names, and one object even when the run cannot start -
def test_json_output_uses_claude_codes_names_and_always_prints_one_object(run_astro, fake, astro_env, tmp_path):
    fake.add({"text": "A Cepheid pulsates."})
    result = run_astro(["run", "--output-format", "json", "what is a cepheid?"], astro_env)
    obj = last_json(result.stdout)
    assert obj["type"] == "result" and obj["subtype"] == "success" and obj["is_error"] is False
    assert obj["result"] == obj["answer"] == "A Cepheid pulsates."
    assert obj["num_turns"] == obj["num_steps"] == 1
    assert "total_cost_usd" in obj and obj["exit_code"] == 0
    broken = run_astro(["run", "--output-format", "json", "x"], base_env(tmp_path))  # no model at all
    assert broken.returncode == 2
    lines = broken.stdout.strip().splitlines()
    assert len(lines) == 1
    failed = json.loads(lines[0])
    assert failed["is_error"] is True and failed["exit_code"] == 2 and failed["subtype"] == "error_during_execution"
    assert failed["error"].startswith("No model is configured")
    streamed = run_astro(["-p", "--output-format", "stream-json", "--resume", "nope", "x"], astro_env)
    assert streamed.returncode == 2
    assert last_json(streamed.stdout)["error"].startswith("No session 'nope'")


# --- 20 (cost). the cost is rounded to 6 significant digits ---------------------------------------------
def test_the_cost_has_no_floating_point_noise(run_astro, fake, astro_env):
    fake.add({"text": "Priced.", "usage": {"input_tokens": 1000, "output_tokens": 100}})
    env = dict(astro_env, ASTRO_MODEL="openai/gpt-4o-mini")
    obj = last_json(run_astro(["run", "--output-format", "json", "hi"], env).stdout)
    cost = obj["total_cost_usd"]
    assert isinstance(cost, float) and cost > 0
    assert cost == float(f"{cost:.6g}") and len(repr(cost)) <= 12, cost
    assert obj["cost_usd"] == cost


# --- 17. mcp add checks the command; mcp list exits 1 when a server failed; "1 tool" ---------------------
ONE_TOOL_SERVER = '''
from mcp.server import MCPServer

server = MCPServer("echo")


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


server.run()
'''


def test_mcp_add_checks_the_command_and_list_fails_for_a_failed_server(run_astro, astro_env, tmp_path):
    config = tmp_path / "astro-home" / "config.yaml"
    missing = run_astro(["mcp", "add", "ghost", "--", "no-such-mcp-server-x"], astro_env)
    assert missing.returncode == 2
    assert "'no-such-mcp-server-x' was not found on PATH" in missing.stderr and "Nothing was added" in missing.stderr
    assert not config.exists()
    script = tmp_path / "echo_server.py"
    script.write_text(ONE_TOOL_SERVER, encoding="utf-8")
    assert run_astro(["mcp", "add", "echo", "--", sys.executable, str(script)], astro_env).returncode == 0
    listed = run_astro(["mcp", "list"], astro_env, timeout=120)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "ready (1 tool," in listed.stdout
    crash = [sys.executable, "-c", "import sys; sys.exit(3)"]
    assert run_astro(["mcp", "add", "crashes", "--", *crash], astro_env).returncode == 0
    listed = run_astro(["mcp", "list"], astro_env, timeout=120)
    assert listed.returncode == 1 and "failed" in listed.stdout


# --- 18. the ADS-token error names `astro keys set ads` -------------------------------------------------
def test_the_missing_ads_token_error_names_astro_keys_set_ads(run_astro, workspace, tmp_path):
    result = run_astro(["search", "cepheid", "--source", "ads"], base_env(tmp_path))
    assert result.returncode == 1
    assert "NASA ADS needs an API token: `astro keys set ads` keeps one (or set ADS_API_TOKEN" in result.stderr


# --- 19. a .tex gives its year and journal; what is still missing is named --------------------------------
def test_a_tex_gives_its_year_and_journal_and_a_missing_year_is_named(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    text = EMCEE_TEX.read_text(encoding="utf-8")
    dated = text.replace("\\begin{document}", "\\journal{PASP}\n\\received{2012 February 21}\n"
                         "\\accepted{2013 January 30}\n\\begin{document}", 1)
    (workspace / "dated").mkdir()
    (workspace / "dated" / "main.tex").write_text(dated, encoding="utf-8")
    added = run_astro(["library", "add", "./dated/main.tex"], env)
    assert added.returncode == 0, added.stderr
    assert "2013" in added.stdout and "warning" not in added.stderr
    [row] = json.loads(run_astro(["library", "list", "--json"], env).stdout)
    assert row["year"] == 2013 and row["journal"] == "PASP" and row["id"] == "foremanmackey2013emcee"
    exported = run_astro(["library", "export"], env).stdout
    assert exported.startswith("@ARTICLE") and "year = 2013" in exported and "pasp" in exported.lower()
    (workspace / "undated").mkdir()
    (workspace / "undated" / "main.tex").write_text(text.replace("emcee: The MCMC Hammer", "A sampler"),
                                                   encoding="utf-8")
    undated = run_astro(["library", "add", "./undated/main.tex"], env)
    assert undated.returncode == 0
    assert "warning: no year could be read from ./undated/main.tex; `astro library add ./undated/main.tex " \
           "--year ...` completes the row" in " ".join(undated.stderr.split())


# --- 16. the sources line counts papers, and names the forms one paper was cited in -------------------
def test_the_sources_line_counts_a_paper_cited_twice_once(run_astro, fake, astro_env, research):
    env = {**astro_env, **research.env(ASTRO_HTTP_TIMEOUT=research_server.CLIENT_TIMEOUT)}
    fake.add({"tool_calls": [{"name": "download_paper", "arguments": {"id": "1111.2011", "source": False}}]},
             {"text": "The nodes are in arXiv:1111.2011, as Murray et al. (2012) show."},
             {"text": "The nodes are in arXiv:1111.2011, as Murray et al. (2012) show."})  # after a claim nudge
    ran = run_astro(["run", "--yes", "Sources?"], env)
    assert ran.returncode == 0, ran.stderr
    footer = next(line for line in ran.stderr.splitlines() if line.startswith("sources: "))
    assert footer.startswith("sources: 1 verified (arXiv:1111.2011 = "), footer
    assert "Murray" in footer and "2 verified" not in footer
