"""The registry: layers and shadowing, usage ranking in real SQLite, the budget, the reminder and its cache,
broken edits; and the `astro skills` commands."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from astro_cli.skills.listing import HIDDEN_BUDGET
from astro_cli.skills.registry import SkillRegistry, skill_files
from astro_cli.skills.usage import DAY, UsageStore, decayed
from astro_cli.store.db import Database
from tests.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "skills"


def make(
    root: Path, name: str, description: str = "Does a thing.", extra: str = "", body: str = "Body."
) -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}\n", encoding="utf-8")
    return path


def touch_later(path: Path) -> None:
    """Make sure a rewrite is seen even on filesystems with coarse mtimes."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def layers(tmp_path):
    dirs = {name: tmp_path / name for name in ("bundled", "user", "claude", "project")}
    order = [
        ("bundled", dirs["bundled"]),
        ("user", dirs["user"]),
        ("project", dirs["claude"]),
        ("project", dirs["project"]),
    ]
    return dirs, order


def test_later_layers_shadow_earlier_ones_by_name(layers):
    dirs, order = layers
    make(dirs["bundled"], "plotting", "Bundled plotting.")
    make(dirs["bundled"], "methodology", "Bundled methodology.")
    make(dirs["user"], "plotting", "My plotting style.")
    make(dirs["claude"], "review", "From .claude/skills.")
    make(dirs["project"], "review", "From skills/.")
    registry = SkillRegistry(order)
    assert registry.names() == ["methodology", "plotting", "review"]
    assert (
        registry.get("plotting").description == "My plotting style."
        and registry.get("plotting").layer == "user"
    )
    assert registry.get("review").description == "From skills/."
    shadowed = {(hidden.description, winner.description) for hidden, winner in registry.snapshot.shadowed}
    assert shadowed == {
        ("Bundled plotting.", "My plotting style."),
        ("From .claude/skills.", "From skills/."),
    }


def test_the_same_folder_reached_twice_counts_once(layers, tmp_path):
    dirs, order = layers
    make(dirs["user"], "plotting")
    os.symlink(dirs["user"], dirs["project"])  # the project's skills/ is a link to the user's folder
    (dirs["bundled"]).mkdir()
    os.symlink(dirs["user"] / "plotting", dirs["bundled"] / "plotting")  # a linked skill folder
    registry = SkillRegistry([*order, ("user", dirs["user"])])
    assert [s.layer for s in registry.all()] == ["bundled"]
    assert registry.snapshot.shadowed == ()
    assert len(skill_files(order)) == 1


def test_missing_layers_are_not_an_error(tmp_path):
    registry = SkillRegistry([("bundled", tmp_path / "nope"), ("user", tmp_path / "file.txt")])
    (tmp_path / "file.txt").write_text("not a folder")
    assert registry.names() == [] and registry.reminder() is None


def test_usage_scores_decay_with_a_seven_day_half_life(tmp_path):
    db = Database(tmp_path / "astro.db")
    store = UsageStore(db)
    now = time.time()
    for _ in range(3):
        store.record("plotting", "s1", "model", when=now - 60)
    store.record("methodology", "s1", "user", when=now - 14 * DAY)
    store.record("ancient", None, "model", when=now - 400 * DAY)
    scores = store.scores(now)
    assert scores["plotting"] == pytest.approx(3.0, rel=1e-3)
    assert scores["methodology"] == pytest.approx(0.25, rel=1e-3)
    assert "ancient" not in scores
    assert decayed(7 * DAY) == pytest.approx(0.5)
    db.close()


def test_listing_follows_usage_and_the_budget_shortens_the_least_used_first(layers, tmp_path):
    dirs, order = layers
    for name in ("alpha", "beta", "gamma", "delta"):
        make(dirs["project"], name, f"The {name} method for astronomers.", "when_to_use: When asked.\n")
    scores = {"gamma": 5.0, "alpha": 2.0, "delta": 0.1}
    line = len("- alpha: The alpha method for astronomers. - When asked.") + 1
    short = len("- alpha: The alpha method for astronomers.") + 1
    registry = SkillRegistry(order, scorer=lambda: scores, budget=2 * line + (short + 1) + (short - 1))
    entries = registry.entries()
    assert [e.skill.name for e in entries] == ["gamma", "alpha", "delta", "beta"]
    assert all(e.listed for e in entries)
    assert [e.form for e in entries] == ["full", "full", "first sentence", "first sentence"]
    text = registry.reminder()
    assert text.index("- gamma:") < text.index("- alpha:") < text.index("- delta:") < text.index("- beta:")
    assert "- beta: The beta method for astronomers.\n" in text and "- gamma: The gamma method for astronomers. - When asked." in text
    names_only = SkillRegistry(order, scorer=lambda: scores, budget=len("- gamma\n- alpha\n- delta\n- beta\n"))
    assert [e.form for e in names_only.entries()] == ["name only"] * 4 and all(e.listed for e in names_only.entries())
    too_small = SkillRegistry(order, scorer=lambda: scores, budget=len("- gamma\n- alpha\n"))
    assert [e.listed for e in too_small.entries()] == [True, True, False, False]
    assert too_small.entries()[-1].reason == HIDDEN_BUDGET


def test_reminder_format_and_who_is_listed(layers):
    dirs, order = layers
    make(dirs["project"], "review", "Literature reviews.", "when_to_use: When the user asks for a review.\n")
    make(dirs["project"], "secret", "User only.", "disable-model-invocation: true\n")
    make(dirs["project"], "helper", "Not for users.", "user-invocable: false\n")
    make(dirs["project"], "fits", "FITS work.", "paths: ['*.fits']\n")
    registry = SkillRegistry(order)
    text = registry.reminder()
    assert text.startswith("<system-reminder>\n") and text.endswith("\n</system-reminder>")
    assert "- review: Literature reviews. - When the user asks for a review.\n" in text
    assert "call load_skill BEFORE generating any other response" in text
    assert "<command-name> tag" in text and "ALREADY been loaded" in text
    for hidden in ("secret", "helper", "fits"):
        assert f"- {hidden}:" not in text
    assert "- fits: FITS work." in registry.reminder({"fits"})
    reasons = {e.skill.name: e.reason for e in registry.entries()}
    assert "disable-model-invocation" in reasons["secret"] and "user-invocable" in reasons["helper"]
    assert "waiting for a file matching paths: *.fits" in reasons["fits"]


def test_reminder_text_is_stable_until_something_really_changes(layers):
    dirs, order = layers
    path = make(dirs["project"], "review", "Reviews.")
    scores: dict[str, float] = {}
    registry = SkillRegistry(order, scorer=lambda: scores)
    first = registry.reminder()
    make(dirs["project"], "another", "Another.")
    assert registry.reminder() is first  # the files are read at (re)load, not at every assembly
    registry.reload()  # "another" appeared: the text changes
    second = registry.reminder()
    assert second != first and "- another:" in second
    assert registry.reload() is False and registry.reminder() is second  # nothing changed: same object
    scores["review"] = 3.0  # a use recorded mid-turn does not reorder the listing...
    assert registry.reminder() is second
    assert registry.refresh_scores() is True  # ...until the next turn starts
    assert registry.reminder().index("- review:") < registry.reminder().index("- another:")
    path.write_text("---\nname: review\ndescription: Reviews, revised.\n---\nBody\n", encoding="utf-8")
    touch_later(path)
    assert registry.reload() is True and "Reviews, revised." in registry.reminder()


def test_braces_in_a_description_reach_the_prompt_without_breaking_it(workspace, tmp_path, monkeypatch):
    from astro_cli.bootstrap import build_app

    monkeypatch.setenv("ASTRO_HOME", str(tmp_path / "home"))
    make(workspace / "skills", "templating", "Fills {{placeholders}} in LaTeX templates.")
    app = build_app(workspace=workspace).install_features()
    system = app.prompt.assemble(app.tools.ordered()).system
    assert "- templating: Fills {{placeholders}} in LaTeX templates." in system


def test_a_broken_edit_keeps_the_last_good_version_and_warns_once(layers):
    dirs, order = layers
    path = make(dirs["project"], "review", "Reviews.")
    warnings: list[str] = []
    registry = SkillRegistry(order, warn=warnings.append)
    assert registry.get("review").description == "Reviews."
    path.write_text("---\nname: review\ndescription: 'unclosed\n---\n", encoding="utf-8")
    touch_later(path)
    registry.reload()
    registry.reload()
    assert registry.get("review").description == "Reviews."
    assert len(warnings) == 1 and "review/SKILL.md" in warnings[0]
    assert "last good version stays in use" in warnings[0] and "does not parse" in warnings[0]
    assert registry.snapshot.problems[0].kept is True


def test_a_new_broken_file_is_skipped_with_one_warning_naming_file_and_reason(layers):
    dirs, order = layers
    make(dirs["project"], "good")
    bad = dirs["project"] / "bad" / "SKILL.md"
    bad.parent.mkdir()
    bad.write_text("---\nname: bad\n---\nno description\n")
    warnings: list[str] = []
    registry = SkillRegistry(
        order, warn=warnings.append, display=lambda p: p.relative_to(dirs["project"]).as_posix()
    )
    assert registry.names() == ["good"]
    registry.reload()
    assert warnings == ["skill file bad/SKILL.md was skipped: it has no 'description' in its frontmatter."]


def test_get_exposes_the_fields_the_subagent_engineer_needs(layers):
    dirs, order = layers
    make(
        dirs["project"],
        "deep-dive",
        "Long reading.",
        "context: fork\nmodel: openai/gpt-4.1\nallowed-tools: rag_search\n",
        body="Read everything about $ARGUMENTS.",
    )
    skill = SkillRegistry(order).get("deep-dive")
    assert (skill.context, skill.model, skill.allowed_tools) == ("fork", "openai/gpt-4.1", ("rag_search",))
    assert skill.render("M87") == "Read everything about M87.\n"


def test_nearest_names_for_a_typo(layers):
    dirs, order = layers
    for name in ("literature-review", "plotting", "presentation"):
        make(dirs["project"], name)
    registry = SkillRegistry(order)
    assert registry.nearest("literature-reveiw")[0] == "literature-review"
    assert "plotting" in registry.nearest("ploting")


# --- the commands ------------------------------------------------------------------------------
def _copy_fixtures(workspace: Path) -> None:
    import shutil

    shutil.copytree(FIXTURES, workspace / "skills")


def test_skills_list_json_shows_layers_reasons_and_rejects(cli, workspace):
    _copy_fixtures(workspace)
    result = cli(["skills", "list", "--all", "--json"])
    assert result.exit_code == 0, result.stderr
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert rows["nasa-ads"]["layer"] == "project" and rows["nasa-ads"]["path"] == "skills/nasa-ads/SKILL.md"
    assert rows["template"]["status"] == "rejected" and "template-skill" in rows["template"]["reason"]
    assert rows["nasa-ads-v1.1.0"]["status"] == "rejected"
    assert rows["plotting"]["layer"] == "bundled"  # the repository's own skills/
    assert rows["fits-files"]["status"] == "hidden" and "paths" in rows["fits-files"]["reason"]
    shortened = [r for r in rows.values() if r["status"] == "listed" and r["form"] != "full"]
    assert shortened, "the fixtures plus the bundled skills exceed the default 4000-character budget"
    assert not [r for r in rows.values() if r["reason"] == HIDDEN_BUDGET]  # shortened, not dropped
    assert not (workspace / ".astro").exists()  # listing creates nothing in the workspace


def test_skills_list_text_shows_hidden_reason_and_fork_note(cli, workspace, tmp_path):
    make(workspace / "skills", "deep-dive", "Long reading.", "context: fork\n")
    env = {"ASTRO_HOME": str(tmp_path / "home"), "ASTRO_SKILLS_BUDGET_CHARS": "10", "COLUMNS": "400"}
    result = cli(["skills", "list"], env=env)
    assert result.exit_code == 0, result.stderr
    line = next(row for row in result.stdout.splitlines() if "deep-dive" in row)
    assert "hidden: over the skills.budget_chars budget" in line
    assert "fork: runs in a subagent" in line


def test_skills_show_prints_fields_and_body_and_names_near_misses(cli, workspace):
    make(
        workspace / "skills",
        "orbit-fit",
        "Fits orbits.",
        "allowed-tools: [file_write]\n",
        body="Fit $ARGUMENTS.",
    )
    result = cli(["skills", "show", "orbit-fit"])
    assert result.exit_code == 0, result.stderr
    assert "allowed-tools: file_write" in result.stdout and result.stdout.rstrip().endswith("Fit $ARGUMENTS.")
    missing = cli(["skills", "show", "orbit-fti"])
    assert (
        missing.exit_code == 2
        and "Nearest: orbit-fit" in missing.stderr
        and "Traceback" not in missing.stderr
    )


def test_skills_new_writes_a_scaffold_that_validates(cli, workspace):
    result = cli(["skills", "new", "spectral-fit", "-d", "Fits spectra: lines, continuum."])
    assert result.exit_code == 0, result.stderr
    path = workspace / "skills" / "spectral-fit" / "SKILL.md"
    assert "Fits spectra: lines, continuum." in path.read_text()
    assert cli(["skills", "new", "spectral-fit"]).exit_code == 2  # never overwrites
    assert cli(["skills", "new", "bad name"]).exit_code == 2
    checked = cli(["skills", "validate", str(path.parent)])
    assert checked.exit_code == 0 and "ok     spectral-fit" in checked.stdout


def test_skills_validate_exits_1_on_errors_and_names_each_reason(cli, workspace):
    result = cli(["skills", "validate", str(FIXTURES)])
    assert result.exit_code == 1
    assert "8 ok, 2 rejected" in result.stdout
    assert "template/SKILL.md: its name 'template-skill' differs from its folder 'template'" in result.stdout
    assert cli(["skills", "validate", str(FIXTURES / "astropy" / "SKILL.md")]).exit_code == 0
    assert cli(["skills", "validate", "no/such/path"]).exit_code == 1


def test_bundled_skills_all_validate_and_cite_astro_tools(cli, workspace):
    from astro_cli.workspace import bundled_skills_dir

    result = cli(["skills", "validate", str(bundled_skills_dir())])
    assert result.exit_code == 0, result.stdout
    names = {p.parent.name for p in bundled_skills_dir().glob("*/SKILL.md")}
    assert {"methodology", "literature-review", "plotting", "presentation", "observing-proposal"} <= names
    for name in names:
        body = (bundled_skills_dir() / name / "SKILL.md").read_text()
        assert (
            sum(
                tool in body
                for tool in (
                    "search_papers",
                    "get_paper_content",
                    "rag_search",
                    "query_target",
                    "file_write",
                    "run_bash",
                    "todo_write",
                    "save_note",
                    "glob_files",
                )
            )
            >= 3
        )
