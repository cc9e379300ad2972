"""The everyday task set of issue 48 (benchmarks/everyday_tasks.json) is well formed: at least 24
tasks, each in exactly one half, both halves covering every kind of work, and each rule judging a
run the way its words say (checked on made-up runs; the set itself is run by bench_local_model.py)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from benchmarks.everyday_tasks import SPLITS, add_workspace_files, load, tasks
from benchmarks.local_model_tasks import Run


def test_the_set_has_two_halves_by_task_that_cover_every_kind_of_work():
    data = load()["tasks"]
    names = [t["name"] for t in data]
    assert len(data) >= 24 and len(set(names)) == len(names)
    assert {t["split"] for t in data} == set(SPLITS)
    kinds = {t["kind"] for t in data}
    for split in SPLITS:
        assert {t["kind"] for t in data if t["split"] == split} == kinds, split
    halves = Counter(t["split"] for t in data)
    assert abs(halves["development"] - halves["held_out"]) <= 2
    assert halves["held_out_51"] >= 12  # stop 51's fresh held-out half (stop 50's was read while tuning)
    assert {t.name for t in tasks("development")}.isdisjoint(t.name for t in tasks("held_out"))


def test_a_rule_passes_the_right_run_and_fails_the_recorded_wrong_ones(tmp_path: Path):
    add_workspace_files(tmp_path)
    assert (tmp_path / "data" / "stars.csv").read_text().count("\n") == 5
    by_name = {t.name: t for t in tasks()}
    csv = by_name["csv_rows"].check
    assert csv(Run("data/stars.csv has 4 rows of stars with their vmag.", ["read_file"], tmp_path, {}))
    assert not csv(Run("<environment>\n[session]\ndate: 2026-12-07 4 vmag", [], tmp_path, {}))
    memory = by_name["memory_vega"].check
    assert not memory(Run("Saved.", ["save_note"], tmp_path, {}))
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "vega-magnitudes.md").write_text("We use Vega magnitudes.\n")
    assert memory(Run("Saved.", ["save_memory"], tmp_path, {}))
    cite = by_name["cite_eclipse_wavelength"].check
    assert cite(Run("Because ... [1001.0012:p4:c7]", ["rag_search"], tmp_path, {}))
    assert not cite(Run("Because ... (Knutson et al. 2007)", ["rag_search"], tmp_path, {}))
    scale = by_name["lib_scale_parameter"].check
    assert scale(Run("The emcee paper sets a = 2.", ["rag_search"], tmp_path, {}))
    assert not scale(Run("It uses a = 2.5 on page 12.", ["rag_search"], tmp_path, {}))


# Stop 52's fresh held-out half: what a right run says or leaves behind, per task (each value read off the
# workspace file or the fixture paper's indexed text by hand).
RIGHT_52 = {
    "log_best_seeing": "The best seeing, 0.9 arcsec, was on 2024-09-04 (HAT-P-32, r).",
    "log_wasp43_count": "There are 3 WASP-43 exposures in the log.",
    "log_total_exposure": "The exposures add up to 480 s (8 min).",
    "mcmc_inclination": "The fit gives i = 85.7 ± 0.3 deg.",
    "proposal_hours": "proposal/abstract.md requests 14.2 hours of NIRSpec G395H time.",
    "proposal_pi": "The PI is Lucia Moreno.",
    "note_toi1431": "Saved the note 'TOI-1431 follow-up'.",
    "note_from_log_airmass": "The highest airmass was 1.47 (2024-09-07); saved the note.",
    "memory_bjd": "Saved to memory: times are BJD_TDB.",
    "memory_asplund": "Saved to memory: solar abundances from Asplund et al. (2009).",
    "task_from_referee": "Added the task: add the TESS sector 41 transits to the joint fit.",
    "task_keck": "Added the task.",
    "lib_wasp4_depth": "Table 1 of Cowan & Agol gives a 3.6 micron eclipse depth of 3.19(31) × 10^-3 for WASP-4b.",
    "lib_hd209458_contrast": "Hardly: T_d = 1486 K and T_n = 1476 K [1001.0012:p11:c45].",
    "lib_tres4_no_recirculation": "T_eps=0 = 2250 K for TrES-4b (Table 1 of 1001.0012).",
    "lib_albedo_limit": "Low Bond albedos are favoured: A_B < 0.35 at 1 sigma.",
    "lib_run_length": "Run it for a few, say 10, autocorrelation times [1202.3665:s4:c23].",
    "lib_kepler7_absent": "Your library does not give a day-side temperature for Kepler-7b: it is not in Table 1.",
    "cite_walker_start": "Start the walkers in a tight ball around a good point [1202.3665:s4:c20].",
    "cite_hottest_low_recirculation": "The hottest planets have low recirculation efficiency [1001.0012:p8:c36].",
}


def _store_task(workspace: Path, text: str) -> None:
    """A task stored the way todo_write stores it: a session's plan in the workspace database."""
    from astro_cli.store.db import Database
    from astro_cli.store.sessions import SessionStore
    from astro_cli.tasks.store import Task, TaskStore

    (workspace / ".astro").mkdir(exist_ok=True)
    database = Database(workspace / ".astro" / "astro.db")
    session = SessionStore(database).create(str(workspace), "test-model")
    TaskStore(database).replace(session, [Task("1", text)], "2026-12-07T17:00:00Z")
    database.close()


def _effects_of_a_right_run(name: str, workspace: Path) -> None:
    """What the right tool leaves behind: a note of the asked title, a memory file, a stored task."""
    notes, memory = workspace / "notes", workspace / "memory"
    if name == "note_toi1431":
        (notes / "toi-1431-follow-up.md").write_text("Next transit 2024-10-02, g filter.\n")
    if name == "note_from_log_airmass":
        (notes / "september-airmass.md").write_text("Highest airmass: 1.47.\n")
    if name.startswith("memory_"):
        memory.mkdir(exist_ok=True)
        (memory / f"{name}.md").write_text("Times are BJD_TDB; abundances from Asplund et al. (2009).\n")
    if name.startswith("task_"):
        _store_task(workspace, {"task_from_referee": "Add the TESS sector 41 transits to the joint fit",
                                "task_keck": "Ask for Keck/HIRES time for the TOI-1431 RVs"}[name])


def test_stop_52_held_out_half_is_fresh_and_judges_the_value_not_the_question(tmp_path: Path):
    data = load()["tasks"]
    fresh = [t for t in data if t["split"] == "held_out_52"]
    assert len(fresh) >= 16 and {t["name"] for t in fresh} == set(RIGHT_52)
    earlier = [t for t in data if t["split"] != "held_out_52"]
    assert {t["prompt"] for t in fresh}.isdisjoint(t["prompt"] for t in earlier)
    by_name = {t.name: t for t in tasks("held_out_52")}
    for task in fresh:
        name, tools = task["name"], [*task.get("tools_all", []), *task.get("tools_any", [])]
        echo = tmp_path / f"echo-{name}"
        add_workspace_files(echo)
        # Echoing the question, with every tool it needs reported as run, never passes.
        assert not by_name[name].check(Run(task["prompt"], tools, echo, {})), name
        right = tmp_path / f"right-{name}"
        add_workspace_files(right)
        _effects_of_a_right_run(name, right)
        assert by_name[name].check(Run(RIGHT_52[name], tools, right, {})), name


def test_stop_52_rules_fail_the_plausible_wrong_answers(tmp_path: Path):
    add_workspace_files(tmp_path)
    by_name = {t.name: t for t in tasks("held_out_52")}
    library = ["rag_search"]
    wrong = {
        "log_best_seeing": "The worst seeing, 2.1 arcsec, was on 2024-09-07.",
        "log_wasp43_count": "WASP-43 was observed on 2024-09-03 and 2024-09-07: 2 nights.",
        "mcmc_inclination": "The inclination is 85.7 deg (u1 = 0.38).",
        "lib_tres4_no_recirculation": "TrES-4b has T_d = 1891 K.",
        "lib_kepler7_absent": "I could not find Kepler-7b; HD 189733b has 1605 K.",
        "cite_walker_start": "Use hundreds of walkers [1202.3665:s4:c22].",
        "cite_hottest_low_recirculation": "Hot planets are dark [1001.0012:p1:c1].",
    }
    for name, answer in wrong.items():
        assert not by_name[name].check(Run(answer, library, tmp_path, {})), name
    # A library number without any library tool run is a guess.
    assert not by_name["lib_albedo_limit"].check(Run("A_B < 0.35.", [], tmp_path, {}))
    # The task of the item marked done is not the first unresolved one; saving a note is not saving a memory.
    _store_task(tmp_path, "Correct the sign error in Eq. 4")
    assert not by_name["task_from_referee"].check(Run("Added.", ["todo_write"], tmp_path, {}))
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "bjd.md").write_text("BJD_TDB\n")
    assert not by_name["memory_bjd"].check(Run("Saved.", ["save_memory", "save_note"], tmp_path, {}))


def _astro_events_run(run_astro, env: dict[str, str], workspace: Path, prompt: str) -> Run:
    """One real `astro run` as bench_local_model.py runs it (profile small, astro-events), read the same way."""
    out = run_astro(["run", "--profile", "small", "--output-format", "astro-events", prompt], env)
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    ran = [e["name"] for e in events if e.get("type") == "tool_finished" and e.get("ok")]
    answer = next(e for e in events if e.get("type") == "result")["result"]
    return Run(answer, ran, workspace, {})


def test_stop_52_write_rules_read_what_the_real_tools_left(run_astro, fake, astro_env, workspace: Path):
    """The note, memory and task rules judge the files and rows the real tools of `astro run` write."""
    add_workspace_files(workspace)
    by_name = {t.name: t for t in tasks("held_out_52")}
    fake.add(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes/referee.md"}}]},
        {"tool_calls": [{"name": "todo_write", "arguments": {"todos": [
            {"id": "s41", "content": "Add the TESS sector 41 transits to the joint fit", "status": "pending"}]}}]},
        {"tool_calls": [{"name": "save_note", "arguments": {
            "title": "September airmass", "content": "The highest airmass in the log is 1.47 (WASP-43, 2024-09-07)."}}]},
        {"text": "Task added and note saved."},
    )
    run = _astro_events_run(run_astro, astro_env, workspace, by_name["task_from_referee"].prompt)
    assert run.tools_ok == ["read_file", "todo_write", "save_note"]
    assert by_name["task_from_referee"].check(run) and by_name["note_from_log_airmass"].check(run)
    assert not by_name["task_keck"].check(run) and not by_name["note_toi1431"].check(run)

    fake.add(
        {"tool_calls": [{"name": "save_memory", "arguments": {
            "slug": "time-standard", "type": "preference", "description": "Times are BJD_TDB",
            "content": "All times are BJD_TDB, never HJD."}}]},
        {"text": "Saved."},
    )
    run = _astro_events_run(run_astro, astro_env, workspace, by_name["memory_bjd"].prompt)
    assert run.tools_ok == ["save_memory"] and by_name["memory_bjd"].check(run)
    assert not by_name["memory_asplund"].check(run)
