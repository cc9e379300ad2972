"""Skills through the real loop: load_skill round trip, pre-approval, conditional activation and a new
SKILL.md written by a tool, all through `astro run`, the real litellm and the fake provider; and /NAME."""

from __future__ import annotations

import io
import json
import os
import sqlite3
from pathlib import Path

from astro_cli.skills.watcher import SkillWatcher
from astro_cli.slash import slash_commands
from tests.fakeprovider import FakeProvider
from tests.helpers import trust_workspace, wait_for


def make(root: Path, name: str, front: str, body: str) -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\n{front}---\n{body}\n", encoding="utf-8")
    return path


def system_of(body: dict) -> str:
    return body["messages"][0]["content"]


def tool_results(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def uses(workspace: Path) -> list[tuple]:
    with sqlite3.connect(workspace / ".astro" / "astro.db") as conn:
        return conn.execute("SELECT name, source FROM skill_usage ORDER BY id").fetchall()


ORBIT = (
    "description: Fits exoplanet orbits from radial velocities.\n"
    "when_to_use: When the user asks to fit an orbit.\n"
    "allowed-tools: [file_write]\n"
)


def test_load_skill_round_trip_and_pre_approval_for_the_turn(cli, fake: FakeProvider, astro_env, workspace):
    make(
        workspace / "skills", "orbit-fit", ORBIT, "Fit the orbit of $ARGUMENTS. Scripts: ${SKILL_DIR}/fit.py"
    )
    trust_workspace(workspace)  # a project skill's allowed-tools pre-approve only in a trusted folder
    fake.add(
        {
            "tool_calls": [
                {"name": "load_skill", "arguments": {"name": "orbit-fit", "arguments": "HD 209458"}}
            ]
        },
        {
            "tool_calls": [
                {"name": "file_write", "arguments": {"path": "fit.py", "content": "print('fit')\n"}}
            ]
        },
        {"text": "I wrote fit.py."},
    )
    result = cli(["run", "Fit the orbit of HD 209458"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    first, second, third = fake.bodies()
    assert (
        "- orbit-fit: Fits exoplanet orbits from radial velocities. - When the user asks to fit an orbit."
        in system_of(first)
    )
    loaded = tool_results(second)[-1]
    skill_dir = (workspace / "skills" / "orbit-fit").resolve()
    assert loaded.startswith("<command-name>orbit-fit</command-name>\n")
    assert f"Fit the orbit of HD 209458. Scripts: {skill_dir}/fit.py" in loaded
    # file_write needs permission and none was given, but the skill's allowed-tools pre-approved it.
    assert tool_results(third)[-1].startswith("Created fit.py")
    assert (workspace / "fit.py").read_text() == "print('fit')\n"
    assert uses(workspace) == [("orbit-fit", "model")]
    # The system prompt did not change within the turn (the use does not reorder mid-turn).
    assert system_of(first) == system_of(second) == system_of(third)

    # The pre-approval ended with the turn: the next turn's file_write is refused again.
    fake.add(
        {"tool_calls": [{"name": "file_write", "arguments": {"path": "again.py", "content": "x"}}]},
        {"text": "Refused."},
    )
    result = cli(["run", "--continue", "Write again.py"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    assert "needs permission" in tool_results(fake.bodies()[-1])[-1]
    assert not (workspace / "again.py").exists()

    # The use now ranks orbit-fit: `astro skills list` shows a score.
    listed = json.loads(cli(["skills", "list", "--json"], env=astro_env).stdout)
    assert next(r for r in listed if r["name"] == "orbit-fit")["score"] > 0.99


def test_loading_an_unknown_skill_is_an_error_naming_the_nearest(cli, fake, astro_env, workspace):
    make(workspace / "skills", "orbit-fit", ORBIT, "Body.")
    fake.add(
        {"tool_calls": [{"name": "load_skill", "arguments": {"name": "orbit-fti"}}]},
        {"text": "Sorry."},
    )
    result = cli(["run", "--output-format", "json", "Fit"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    error = tool_results(fake.bodies()[1])[-1]
    assert error.startswith("Error: There is no skill named 'orbit-fti'. Nearest: orbit-fit")
    assert json.loads(result.stdout.strip().splitlines()[-1])["tool_calls"] == [
        {"name": "load_skill", "ok": False}
    ]


def test_a_matching_file_read_lists_a_conditional_skill_in_the_next_request(cli, fake, astro_env, workspace):
    make(
        workspace / "skills",
        "fits-quicklook",
        "description: Quick looks at FITS images.\npaths: ['*.fits']\n",
        "Use astropy.",
    )
    (workspace / "data").mkdir()
    (workspace / "data" / "notes.txt").write_text("observing log\n")
    (workspace / "data" / "m31.fits").write_text("SIMPLE  =                    T\n")
    fake.add(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "data/notes.txt"}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "data/m31.fits"}}]},
        {"text": "A FITS header."},
    )
    result = cli(["run", "What is in data/?"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    first, second, third = (system_of(b) for b in fake.bodies())
    assert "fits-quicklook" not in first and "fits-quicklook" not in second  # notes.txt matched nothing
    assert "- fits-quicklook: Quick looks at FITS images." in third


def test_a_skill_written_by_a_tool_is_listed_in_the_next_request(cli, fake, astro_env, workspace):
    content = "---\nname: redshift-check\ndescription: Checks redshifts against NED.\n---\nCheck them.\n"
    fake.add(
        {
            "tool_calls": [
                {
                    "name": "file_write",
                    "arguments": {"path": "skills/redshift-check/SKILL.md", "content": content},
                }
            ]
        },
        {"text": "Done."},
    )
    result = cli(["run", "--yes", "Write a skill"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    first, second = (system_of(b) for b in fake.bodies())
    assert "redshift-check" not in first
    assert "- redshift-check: Checks redshifts against NED." in second


def test_a_broken_skill_is_reported_once_and_the_run_goes_on(cli, fake, astro_env, workspace):
    make(workspace / "skills", "broken", "description: 'unclosed\n", "Body.")
    fake.add({"text": "Fine."})
    result = cli(["run", "Hello"], env=astro_env)
    assert result.exit_code == 0 and result.stdout.strip() == "Fine."
    assert result.stderr.count("skills/broken/SKILL.md was skipped: its YAML frontmatter does not parse") == 1
    assert "Traceback" not in result.stderr


# --- /NAME and /skills in the REPL (unit level: the REPL engineer covers the pty) --------------
def _app(workspace: Path, home: Path, monkeypatch):
    from astro_cli.bootstrap import build_app

    monkeypatch.setenv("ASTRO_HOME", str(home))
    return build_app(workspace=workspace).install_features()


def test_slash_name_queues_the_skill_body_for_the_next_turn(workspace, tmp_path, monkeypatch):
    from rich.console import Console

    from astro_cli.slash import SlashContext

    make(
        workspace / "skills", "orbit-fit", ORBIT + "argument-hint: '[star]'\n", "Fit the orbit of $ARGUMENTS."
    )
    make(workspace / "skills", "helper", "description: For the model.\nuser-invocable: false\n", "Help.")
    app = _app(workspace, tmp_path / "home", monkeypatch)
    out = io.StringIO()
    queued: list[tuple[str, str | None]] = []
    ctx = SlashContext(
        app=app, console=Console(file=out, width=200), session=None,
        queue_prompt=lambda text, shown=None: queued.append((text, shown)),
    )
    fallback = slash_commands(app).fallback
    assert fallback(ctx, "orbit-fit", "51 Peg") is True
    assert queued == [(
        f"<command-name>orbit-fit</command-name>\nBase directory for this skill: "
        f"{(workspace / 'skills' / 'orbit-fit').resolve()}\n\nFit the orbit of 51 Peg.\n",
        "/orbit-fit 51 Peg",  # what the REPL echoes
    )]
    assert fallback(ctx, "helper", "") is True and len(queued) == 1
    assert "not user-invocable" in out.getvalue()
    assert fallback(ctx, "no-such-skill", "") is False
    slash_commands(app)["skills"].handler(ctx, "")
    table = out.getvalue()
    assert "/orbit-fit [star]" in table and "listed" in table
    app.close()
    assert uses(workspace) == [("orbit-fit", "user")]


# --- hot reload ---------------------------------------------------------------------------------


def test_hot_reload_new_changed_broken_and_removed_skills(workspace, tmp_path, monkeypatch):
    from astro_cli.skills.feature import start_watcher

    app = _app(workspace, tmp_path / "home", monkeypatch)
    tools = app.tools.ordered()

    def system() -> str:
        return app.prompt.assemble(tools).system

    before = system()
    start_watcher(app)  # the workspace has no skills/ yet: its parent is watched until it appears
    try:
        path = make(workspace / "skills", "spectra", "description: Reduces long-slit spectra.\n", "Body.")
        assert wait_for(lambda: "- spectra: Reduces long-slit spectra." in system(), timeout=30.0, interval=0.02)
        path.write_text("---\nname: spectra\ndescription: Reduces echelle spectra.\n---\nBody.\n")
        assert wait_for(lambda: "- spectra: Reduces echelle spectra." in system(), timeout=30.0, interval=0.02)
        temp = path.with_name(".SKILL.md.swp")  # an editor's atomic save: write a temporary file, rename it
        temp.write_text("---\nname: spectra\ndescription: Reduces IFU cubes.\n---\nBody.\n")
        os.replace(temp, path)
        assert wait_for(lambda: "- spectra: Reduces IFU cubes." in system(), timeout=30.0, interval=0.02)
        path.write_text("---\nname: spectra\ndescription: 'unclosed\n---\n")  # a broken save
        assert wait_for(lambda: any("spectra/SKILL.md has an error" in w for w in app.warnings), timeout=30.0, interval=0.02)
        assert "- spectra: Reduces IFU cubes." in system()  # the last good version stays
        path.unlink()
        path.parent.rmdir()
        assert wait_for(lambda: "- spectra:" not in system(), timeout=30.0, interval=0.02)
        assert system() == before
    finally:
        app.close()
    watcher = app.services.find(SkillWatcher)
    assert watcher is not None and not watcher.running


def test_the_watcher_is_off_when_config_says_so(workspace, tmp_path, monkeypatch):
    from astro_cli.skills.feature import start_watcher

    monkeypatch.setenv("ASTRO_SKILLS_WATCH", "false")
    app = _app(workspace, tmp_path / "home", monkeypatch)
    start_watcher(app)
    assert SkillWatcher not in app.services
    app.close()
