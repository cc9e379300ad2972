"""Stop 53's fresh held-out half of issue 48's everyday set (`held_out_53` in benchmarks/everyday_tasks.json):
new wording and targets, the mix the stop asked for, every expected value really in the workspace file or in
the fixture paper's indexed text, and each rule judging the value (or the tool's effect), never the question
echoed back. The set itself is run once, by bench_local_model.py, after the developers' code is frozen."""

from __future__ import annotations

import csv
import io
import re
import sqlite3
import statistics
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
RIGHT_53 = {
    "toml_read_noise": "config/reduction.toml sets read_noise_e = 6.3 electrons.",
    "spectra_resolving_power": "You observed with FIES at a resolving power of R = 67,000 (spectra/setup.txt).",
    "draft_albedo": "The abstract quotes A_g = 0.27 ± 0.04.",
    "candidates_mean_snr": "The mean S/N of the 5 candidates is 11.0.",
    "vla_peak_flux": "The source peaked at 4.73 mJy on MJD 60426.22.",
    "telecon_who_reduces": "Priya: she took the sector 58 reduction over from Tomás.",
    "note_nirspec_date": "Saved the note.",
    "memory_relative_flux": "Saved to memory.",
    "memory_pdf_figures": "Saved to memory.",
    "task_urgent_from_plan": "Added the task.",
    "lib_corot2_albedo": "Table 1 of Cowan & Agol lists A_λ = 0.16(7) for CoRoT-2b [1001.0012:p11:c44].",
    "lib_single_fit_chi2": "The single-parameter fit has χ² = 132 (reduced χ² = 5.3) [1001.0012:p6:c29].",
    "lib_wasp43_absent": "No: WASP-43b is not in your library; Table 1 of 1001.0012 covers 24 other planets.",
    "cite_many_walkers": "Run emcee with a large number of walkers, like hundreds [1202.3665:s4:c22].",
}

# Plausible wrong runs (the neighbouring value, the wrong row, a number for the wrong planet, the wrong passage).
WRONG_53 = {
    "toml_read_noise": "The gain is 1.85 e-/ADU.",
    "spectra_resolving_power": "The spectra cover 370-830 nm.",
    "draft_albedo": "Kepler-7b has A_g = 0.32 ± 0.03.",
    "candidates_mean_snr": "The average S/N is 11.2 (sum 56).",
    "vla_peak_flux": "It peaked at 4.18 mJy on MJD 60433.40.",
    "telecon_who_reduces": "Tomás is doing the reduction.",
    "lib_corot2_albedo": "CoRoT-1b has A_λ < 0.1; TrES-3b was observed at 1.25(0.16) μm.",
    "lib_single_fit_chi2": "HD 189733b has T_n = 1107(132) K; the fit has 25 degrees of freedom.",
    "lib_wasp43_absent": "WASP-43b is not listed, but WASP-4b has a 3.6 μm depth of 3.19 × 10^-3.",
    "cite_many_walkers": "Start the walkers in a tight ball [1202.3665:s4:c20].",
}


def _effects_of_a_right_run(name: str, workspace: Path) -> None:
    """What the right tool leaves behind: a note, a memory file, a stored task."""
    if name == "note_nirspec_date":
        (workspace / "notes" / "wasp-43b-nirspec.md").write_text("NIRSpec data for WASP-43b expected 2025-01-15.\n")
    if name.startswith("memory_"):
        (workspace / "memory").mkdir(exist_ok=True)
        (workspace / "memory" / f"{name}.md").write_text("Fit in normalised flux; figures as PDF, never PNG.\n")
    if name == "task_urgent_from_plan":
        _store_task(workspace, "Book the NOT/FIES nights for the Rossiter-McLaughlin run on HAT-P-32b")


def test_stop_53_held_out_half_is_fresh_and_has_the_asked_mix():
    data = load()["tasks"]
    fresh = [t for t in data if t["split"] == "held_out_53"]
    assert {t["name"] for t in fresh} == set(RIGHT_53)
    assert Counter(t["kind"] for t in fresh) == {"files": 3, "tables": 2, "notes": 2, "memory": 2, "tasks": 1,
                                                 "library_numbers": 3, "citations": 1}
    earlier = [t for t in data if t["split"] != "held_out_53"]
    assert {t["prompt"] for t in fresh}.isdisjoint(t["prompt"] for t in earlier)
    # The files it reads are new ones: the older tasks' files are as they were.
    older = {"data/stars.csv", "data/targets.ecsv", "data/rv.csv", "notes/todo.md", "notes/meeting.md",
             "obs/2024B/night_log.csv", "results/mcmc/posteriors.ecsv", "proposal/abstract.md", "notes/referee.md"}
    assert older < set(load()["workspace"])


def test_stop_53_rules_pass_the_right_run_and_never_the_question_echoed(tmp_path: Path):
    by_name = {t.name: t for t in tasks("held_out_53")}
    for task in [t for t in load()["tasks"] if t["split"] == "held_out_53"]:
        name, tools = task["name"], [*task.get("tools_all", []), *task.get("tools_any", [])]
        echo = tmp_path / f"echo-{name}"
        add_workspace_files(echo)
        assert not by_name[name].check(Run(task["prompt"], tools, echo, {})), name
        right = tmp_path / f"right-{name}"
        add_workspace_files(right)
        _effects_of_a_right_run(name, right)
        assert by_name[name].check(Run(RIGHT_53[name], tools, right, {})), name
        if name in WRONG_53:
            assert not by_name[name].check(Run(WRONG_53[name], tools, right, {})), name
    # A library value without a library tool run is a guess; a note is not a memory; the done item is no task.
    assert not by_name["lib_single_fit_chi2"].check(Run(RIGHT_53["lib_single_fit_chi2"], [], tmp_path, {}))
    memory = tmp_path / "right-memory_pdf_figures"
    assert not by_name["memory_pdf_figures"].check(Run("Saved.", ["save_memory", "save_note"], memory, {}))
    done = tmp_path / "done-task"
    add_workspace_files(done)
    _store_task(done, "Submit the LCO request for the TOI-1431 transits")
    assert not by_name["task_urgent_from_plan"].check(Run("Added.", ["todo_write"], done, {}))


def test_stop_53_expected_values_are_in_the_workspace_files(tmp_path: Path):
    add_workspace_files(tmp_path)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "survey" / "candidates.csv").read_text())))
    assert statistics.mean(float(r["snr"]) for r in rows) == 11.0
    ecsv = (tmp_path / "radio" / "vla_epochs.ecsv").read_text()
    assert "{name: flux, unit: mJy" in ecsv
    epochs = [line.split() for line in ecsv.splitlines() if line[:1].isdigit()]
    assert max(epochs, key=lambda r: float(r[2]))[::2] == ["60426.22", "4.73"]
    assert "read_noise_e = 6.3" in (tmp_path / "config" / "reduction.toml").read_text()
    assert "R = 67000" in (tmp_path / "spectra" / "setup.txt").read_text()
    assert "A_g = 0.27" in (tmp_path / "paper" / "draft.tex").read_text()
    assert "Priya takes over the TESS sector 58" in (tmp_path / "notes" / "telecon-2024-11-14.md").read_text()
    plan = (tmp_path / "notes" / "observing-plan.md").read_text().splitlines()
    assert [line for line in plan if "URGENT" in line] == [plan[4]] and "FIES" in plan[4]


def test_stop_53_library_values_are_in_the_indexed_fixture_papers(tmp_path: Path):
    """The numbers and passages the library tasks expect are in the text `astro library add` indexes,
    at the chunks the citation rule names; WASP-43b is in neither paper."""
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
    assert re.search(r"CoRoT-2b\[2\][^\n]*\n(?:[^\n]*\n)*?[^\n]*A_λ = 0\.16\(7\)", text)
    assert "has χ^2 = 132 (reduced χ^2 = 5.3)" in text
    assert not re.search(r"WASP-?43", text)
    assert "large number of walkers, like hundreds" in chunks[("1202.3665", 22)]
    assert "use hundreds in most applications" in chunks[("1202.3665", 23)]


def test_stop_53_write_rules_read_what_the_real_tools_left(run_astro, fake, astro_env, workspace: Path):
    """The note, memory and task rules judge the files and rows the real tools of `astro run` write."""
    add_workspace_files(workspace)
    by_name = {t.name: t for t in tasks("held_out_53")}
    fake.add(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes/observing-plan.md"}}]},
        {"tool_calls": [{"name": "todo_write", "arguments": {"todos": [
            {"id": "fies", "content": "Book the NOT/FIES nights for the Rossiter-McLaughlin run", "status": "pending"}]}}]},
        {"tool_calls": [{"name": "save_note", "arguments": {
            "title": "WASP-43b NIRSpec", "content": "The NIRSpec data for WASP-43b are expected on 2025-01-15."}}]},
        {"text": "Task added and note saved."},
    )
    run = _astro_events_run(run_astro, astro_env, workspace, by_name["task_urgent_from_plan"].prompt)
    assert run.tools_ok == ["read_file", "todo_write", "save_note"]
    assert by_name["task_urgent_from_plan"].check(run) and by_name["note_nirspec_date"].check(run)
    assert not by_name["memory_pdf_figures"].check(run)

    fake.add(
        {"tool_calls": [{"name": "save_memory", "arguments": {
            "slug": "figure-format", "type": "preference", "description": "Figures as PDF",
            "content": "Figures go out as PDF, never PNG."}}]},
        {"text": "Saved."},
    )
    run = _astro_events_run(run_astro, astro_env, workspace, by_name["memory_pdf_figures"].prompt)
    assert run.tools_ok == ["save_memory"] and by_name["memory_pdf_figures"].check(run)
    assert not by_name["memory_relative_flux"].check(run)
