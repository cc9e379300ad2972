"""The everyday task set of issue 48 (benchmarks/everyday_tasks.json) is well formed: at least 24
tasks, each in exactly one half, both halves covering every kind of work, and each rule judging a
run the way its words say (checked on made-up runs; the set itself is run by bench_local_model.py)."""

from __future__ import annotations

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
