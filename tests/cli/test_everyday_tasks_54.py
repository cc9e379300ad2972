"""Stop 54's fresh held-out half of issue 48's everyday set (`held_out_54` in benchmarks/everyday_tasks.json):
new wording and targets, the mix the stop asked for, every expected value really in the workspace file or in
the fixture paper's indexed text, and each rule judging the value (or the tool's effect), never the question
echoed back nor the neighbouring value. The set itself is run once, by bench_local_model.py, after the
developer's code is frozen; these tests never start a model."""

from __future__ import annotations

import csv
import io
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from contextlib import closing
from pathlib import Path

from benchmarks.common import clean_env
from benchmarks.everyday_tasks import add_workspace_files, load, tasks
from benchmarks.local_model_tasks import Run
from tests.cli.test_everyday_tasks import _astro_events_run, _store_task

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ROOT / "tests" / "fixtures" / "papers"

# What a right run says, per task (each value read off the workspace file or the paper's indexed text by hand).
RIGHT_54 = {
    "camera_pixel_scale": "instruments/camera.yaml gives pixel_scale_arcsec: 0.187 (arcsec per pixel).",
    "photometry_aperture": "The aperture radius is 7.5 px (photometry/aperture.cfg).",
    "sed_redshift": "Z_HOST = 0.0423 is hard-coded in models/sed_fit.py.",
    "ttv_most_negative": "Epoch 64, with O-C = -2.31 min (± 0.52).",
    "nights_lost_weather": "Three nights were lost to weather (2025-02-04, 2025-02-06 and 2025-02-09).",
    "notes_lamp_current": "It dropped to 9.5 mA (nominal 12 mA), per notes/instrument-issues.md.",
    "note_filter_offset": "Saved the note.",
    "memory_vacuum_wavelengths": "Saved to memory.",
    "memory_jupiter_masses": "Saved to memory.",
    "task_last_unchecked": "Added the task.",
    "lib_wasp18_brightness": "Table 1 of Cowan & Agol lists T_bright = 3128(150) K at 4.5 μm for WASP-18b "
                             "[1001.0012:p12:c48].",
    "lib_most_albedo": "MOST found a very low albedo for HD 209458b, < 8% (Rowe et al. 2008) [1001.0012:p2:c4].",
    "lib_kelt9_absent": "Your library has no day-side temperature for KELT-9b: it is in neither paper.",
    "cite_integer_parameters": "The stretch move assumes vector-like parameters, so integer-valued ones do not fit "
                               "[1202.3665:s4:c25].",
}

# Plausible wrong runs (the neighbouring value, the wrong row, a value from memory, the wrong passage).
WRONG_54 = {
    "camera_pixel_scale": "With 2x2 binning the pixel scale is 0.374 arcsec; the gain is 2.1 e-/ADU.",
    "photometry_aperture": "The sky annulus runs from 12 to 18 px.",
    "sed_redshift": "The fit uses H0 = 67.4 km/s/Mpc and 64 walkers.",
    "ttv_most_negative": "Epoch 78 has the smallest O-C, 0.18 min.",
    "nights_lost_weather": "We observed on 4 nights and lost 1 to a technical fault.",
    "notes_lamp_current": "The nominal lamp current is 12 mA.",
    "lib_wasp18_brightness": "WASP-18b has T_bright = 3000(107) K at 3.6 μm and T_d = 2998 K.",
    "lib_most_albedo": "HD 209458b has A_λ = 0.09(7); the paper finds Bond albedos < 10%.",
    "lib_kelt9_absent": "KELT-9b's day side is about 4,600 K, though it is not in your library.",
    "cite_integer_parameters": "Walkers can get stuck in different modes [1202.3665:s4:c24].",
}


def _effects_of_a_right_run(name: str, workspace: Path) -> None:
    """What the right tool leaves behind: a note, a memory file, a stored task."""
    if name == "note_filter_offset":
        (workspace / "notes" / "filter-wheel.md").write_text("z-band filter wheel offset: +142 steps.\n")
    if name.startswith("memory_"):
        (workspace / "memory").mkdir(exist_ok=True)
        (workspace / "memory" / f"{name}.md").write_text("Vacuum wavelengths, not air; masses in Jupiter masses.\n")
    if name == "task_last_unchecked":
        _store_task(workspace, "Make the corner plot for the appendix")


def test_stop_54_held_out_half_is_fresh_and_has_the_asked_mix():
    data = load()["tasks"]
    fresh = [t for t in data if t["split"] == "held_out_54"]
    assert {t["name"] for t in fresh} == set(RIGHT_54)
    assert Counter(t["kind"] for t in fresh) == {"files": 3, "tables": 2, "notes": 2, "memory": 2, "tasks": 1,
                                                 "library_numbers": 3, "citations": 1}
    earlier = [t for t in data if t["split"] != "held_out_54"]
    assert {t["prompt"] for t in fresh}.isdisjoint(t["prompt"] for t in earlier)
    # The files it reads are new ones: the older tasks' files are all still there.
    older = {"data/stars.csv", "data/targets.ecsv", "data/rv.csv", "notes/todo.md", "notes/meeting.md",
             "obs/2024B/night_log.csv", "results/mcmc/posteriors.ecsv", "proposal/abstract.md", "notes/referee.md",
             "config/reduction.toml", "spectra/setup.txt", "paper/draft.tex", "survey/candidates.csv",
             "radio/vla_epochs.ecsv", "notes/telecon-2024-11-14.md", "notes/observing-plan.md"}
    assert older < set(load()["workspace"])


def test_stop_54_rules_pass_the_right_run_and_never_the_question_echoed(tmp_path: Path):
    by_name = {t.name: t for t in tasks("held_out_54")}
    for task in [t for t in load()["tasks"] if t["split"] == "held_out_54"]:
        name, tools = task["name"], [*task.get("tools_all", []), *task.get("tools_any", [])]
        echo = tmp_path / f"echo-{name}"
        add_workspace_files(echo)
        assert not by_name[name].check(Run(task["prompt"], tools, echo, {})), name
        right = tmp_path / f"right-{name}"
        add_workspace_files(right)
        _effects_of_a_right_run(name, right)
        assert by_name[name].check(Run(RIGHT_54[name], tools, right, {})), name
        if name in WRONG_54:
            assert not by_name[name].check(Run(WRONG_54[name], tools, right, {})), name
    # A library value without a library tool run is a guess; a note is not a memory; a done item is no task.
    assert not by_name["lib_wasp18_brightness"].check(Run(RIGHT_54["lib_wasp18_brightness"], [], tmp_path, {}))
    memory = tmp_path / "right-memory_vacuum_wavelengths"
    assert not by_name["memory_vacuum_wavelengths"].check(Run("Saved.", ["save_memory", "save_note"], memory, {}))
    for item in ("Send the posteriors to Ana", "Re-run the joint fit with the new stellar density prior"):
        wrong_item = tmp_path / f"wrong-task-{item[:4]}"
        add_workspace_files(wrong_item)
        _store_task(wrong_item, item)
        assert not by_name["task_last_unchecked"].check(Run("Added.", ["todo_write"], wrong_item, {}))


def test_stop_54_expected_values_are_in_the_workspace_files(tmp_path: Path):
    add_workspace_files(tmp_path)
    assert "pixel_scale_arcsec: 0.187" in (tmp_path / "instruments" / "camera.yaml").read_text()
    assert sorted(p.name for p in (tmp_path / "photometry").iterdir()) == ["aperture.cfg", "comparison_stars.txt"]
    assert "aperture_radius_px = 7.5" in (tmp_path / "photometry" / "aperture.cfg").read_text()
    assert "Z_HOST = 0.0423" in (tmp_path / "models" / "sed_fit.py").read_text()
    ecsv = (tmp_path / "lightcurves" / "ttv.ecsv").read_text()
    assert "{name: o_c, unit: min" in ecsv
    rows = [line.split() for line in ecsv.splitlines() if line[:1].isdigit()]
    assert min(rows, key=lambda r: float(r[1]))[:2] == ["64", "-2.31"]
    nights = list(csv.DictReader(io.StringIO((tmp_path / "logs" / "2025A_nights.csv").read_text())))
    assert Counter(r["status"] for r in nights) == {"observed": 4, "weather": 3, "technical": 1}
    notes = sorted((tmp_path / "notes").glob("*.md"))
    assert len(notes) == 7 and [p.name for p in notes if "ThAr" in p.read_text()] == ["instrument-issues.md"]
    assert "current dropped to 9.5 mA" in (tmp_path / "notes" / "instrument-issues.md").read_text()
    checklist = (tmp_path / "notes" / "analysis-checklist.md").read_text().splitlines()
    assert [line for line in checklist if line.startswith("- [ ]")][-1] == "- [ ] Make the corner plot for the appendix."
    assert checklist[-1].startswith("- [x]")


def test_stop_54_library_values_are_in_the_indexed_fixture_papers(tmp_path: Path):
    """The numbers and passages the library tasks expect are in the text `astro library add` indexes,
    at the chunks the citation rule names; KELT-9b is in neither paper."""
    closed = "http://127.0.0.1:9"  # as bench_local_model.py: no research service is reached
    env = clean_env(ASTRO_HOME=str(tmp_path / "home"), ASTRO_LIBRARY_EMBEDDING_MODEL="off", NO_COLOR="1",
                    ASTRO_ARXIV_URL=closed + "/api/query", ASTRO_ARXIV_PDF_URL=closed, ASTRO_ADS_URL=closed + "/v1",
                    ASTRO_CROSSREF_URL=closed + "/crossref", ASTRO_SIMBAD_URL=closed + "/simbad",
                    ASTRO_OLLAMA_URL=closed)
    project = tmp_path / "project"
    (project / ".astro").mkdir(parents=True)
    for name, extra in (("arXiv_1001.0012v2_astro-ph.EP.pdf", []),
                        ("emcee_2013PASP_ms.tex", ["--year", "2013", "--arxiv", "1202.3665"])):
        out = subprocess.run([sys.executable, "-m", "astro_cli", "library", "add", str(PAPERS / name), *extra],
                             cwd=project, env=env, capture_output=True, text=True, timeout=180)
        assert out.returncode == 0, out.stderr
    with closing(sqlite3.connect(project / ".astro" / "astro.db")) as db:
        chunks = {(paper, ord_): text for paper, ord_, text in db.execute("SELECT paper_id, ord, text FROM chunks")}
    text = "\n".join(chunks.values())
    # WASP-18b's rows of Table 1: 3.6 micron first (T_bright 3000), then 4.5 micron (3128).
    wasp18 = text[text.index("WASP-18b[20]"):].splitlines()
    assert "| 3000(107) | T_d=2998(138) K" in wasp18[0] and wasp18[0].startswith("WASP-18b[20] | 3070(50) | 3.6(")
    assert wasp18[1].startswith("4.5(1.0)") and wasp18[1].endswith("| 3128(150)")
    assert "Measurements of HD 209458b taken with the Canadian MOST satellite revealed a very low albedo (< 8%" \
           in chunks[("1001.0012", 4)]
    assert not re.search(r"KELT", text, re.IGNORECASE)
    assert "parameters that must be integer-valued" in chunks[("1202.3665", 25)]
    assert not any("integer-valued" in t for key, t in chunks.items() if key != ("1202.3665", 25))


def test_stop_54_write_rules_read_what_the_real_tools_left(run_astro, fake, astro_env, workspace: Path):
    """The note, memory and task rules judge the files and rows the real tools of `astro run` write."""
    add_workspace_files(workspace)
    by_name = {t.name: t for t in tasks("held_out_54")}
    fake.add(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes/analysis-checklist.md"}}]},
        {"tool_calls": [{"name": "todo_write", "arguments": {"todos": [
            {"id": "corner", "content": "Make the corner plot for the appendix", "status": "pending"}]}}]},
        {"tool_calls": [{"name": "save_note", "arguments": {
            "title": "Filter wheel", "content": "The z-band filter wheel offset is +142 steps."}}]},
        {"text": "Task added and note saved."},
    )
    run = _astro_events_run(run_astro, astro_env, workspace, by_name["task_last_unchecked"].prompt)
    assert run.tools_ok == ["read_file", "todo_write", "save_note"]
    assert by_name["task_last_unchecked"].check(run) and by_name["note_filter_offset"].check(run)
    assert not by_name["memory_jupiter_masses"].check(run)

    fake.add(
        {"tool_calls": [{"name": "save_memory", "arguments": {
            "slug": "vacuum-wavelengths", "type": "preference", "description": "Wavelength convention",
            "content": "Wavelengths are vacuum wavelengths, never air."}}]},
        {"text": "Saved."},
    )
    run = _astro_events_run(run_astro, astro_env, workspace, by_name["memory_vacuum_wavelengths"].prompt)
    assert run.tools_ok == ["save_memory"] and by_name["memory_vacuum_wavelengths"].check(run)
    assert not by_name["memory_jupiter_masses"].check(run)


def test_no_write_rule_of_any_split_is_met_by_the_workspace_files_alone(tmp_path: Path):
    """A file the set adds must not already hold what another task's note or memory must write (a new note
    that happened to hold 2025-01-15 once met held_out_53's note rule before any run)."""
    add_workspace_files(tmp_path)
    for task in [t for t in load()["tasks"] if "file_contains" in t]:
        pattern, text = task["file_contains"]
        assert not [p for p in tmp_path.glob(pattern) if text.lower() in p.read_text().lower()], task["name"]
