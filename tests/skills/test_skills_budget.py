"""The skills listing over its budget: every eligible skill keeps at least its name, descriptions are
shortened first (least used, then bundled before user before project), and `skills list` says which."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import base_env
from tests.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "skills"
PHOTOMETRY = (
    "---\nname: aperture-photometry\ndescription: Aperture photometry of our HST/WFC3 frames with the "
    "group's zero points. Uses photutils with the 0.4 arcsec aperture and the local sky annulus, and writes "
    "the catalogue to data/phot/. Never use the pipeline's drizzled products for faint sources.\n"
    "when_to_use: When the user asks for fluxes, magnitudes or a catalogue of the WFC3 frames.\n---\n"
    "1. Load the frames.\n"
)


def _skills(cli, workspace: Path) -> tuple[dict, str, str]:
    home = workspace.parent / "astro-home"
    shutil.copytree(FIXTURES, home / "skills")  # anthropics/skills and two astro skills, as a user installs them
    (workspace / "skills" / "aperture-photometry").mkdir(parents=True)
    (workspace / "skills" / "aperture-photometry" / "SKILL.md").write_text(PHOTOMETRY)
    env = dict(base_env(workspace.parent), COLUMNS="250")
    rows = {row["name"]: row for row in json.loads(cli(["skills", "list", "--json"], env=env).stdout)}
    report = json.loads(cli(["prompt", "show", "--json"], env=env).stdout)
    reminder = next(s["text"] for s in report["sections"] if s["name"] == "skills")
    return rows, reminder, cli(["skills", "list"], env=env).stdout


def test_every_eligible_skill_keeps_its_name_in_the_reminder(cli, workspace):
    rows, reminder, table = _skills(cli, workspace)
    eligible = [name for name, row in rows.items() if "paths" not in row["reason"]]
    assert len(eligible) >= 14  # 7 from the fixtures, 5 bundled, the project's own
    listed = [line.split(":")[0].removeprefix("- ") for line in reminder.splitlines() if line.startswith("- ")]
    assert sorted(listed) == sorted(eligible)
    assert all(rows[name]["status"] == "listed" for name in eligible)
    body = reminder.split("\n", 2)[2].rsplit("\nWhen a skill matches", 1)[0]
    assert len(body) <= 4000  # skills.budget_chars


def test_the_project_skill_keeps_its_description_and_the_list_says_who_was_shortened(cli, workspace):
    rows, reminder, table = _skills(cli, workspace)
    assert rows["aperture-photometry"]["form"] == "full"
    assert "- aperture-photometry: Aperture photometry of our HST/WFC3 frames" in reminder
    assert "- When the user asks for fluxes" in reminder
    shortened = {name for name, row in rows.items() if row["status"] == "listed" and row["form"] != "full"}
    assert shortened and all(rows[name]["layer"] != "project" for name in shortened)
    # With no usage yet, bundled skills give up their descriptions before user skills do.
    bundled = [rows[n]["form"] for n in rows if rows[n]["layer"] == "bundled" and rows[n]["status"] == "listed"]
    user = [rows[n]["form"] for n in rows if rows[n]["layer"] == "user"]
    order = ["full", "first sentence", "name only"]
    assert max(order.index(f) for f in user) <= min(order.index(f) for f in bundled) or all(
        f != "full" for f in bundled)
    line = next(row for row in table.splitlines() if row.startswith(next(iter(shortened))))
    assert "to fit skills.budget_chars" in line
