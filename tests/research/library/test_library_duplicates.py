"""Issue 31 point 3: one paper, one row. Re-adding the same file (with --arxiv, then --author, as
astro's own hint suggests) updates its row; `library check` reports likely duplicates and
`library merge A B` makes them one. The real `astro` process throughout."""

from __future__ import annotations

import json
import shutil

from tests.conftest import base_env
from tests.library_support import EMCEE_TEX


def _papers(run_astro, env) -> dict[str, dict]:
    listed = run_astro(["library", "list", "--json"], env)
    assert listed.returncode == 0, listed.stderr
    return {row["id"]: row for row in json.loads(listed.stdout)}


def test_adding_the_same_tex_three_times_keeps_one_row(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    (workspace / "draft").mkdir()
    shutil.copyfile(EMCEE_TEX, workspace / "draft" / "main.tex")
    first = run_astro(["library", "add", "./draft/main.tex"], env)
    assert first.returncode == 0, first.stderr
    [paper_id] = _papers(run_astro, env)
    again = run_astro(["library", "add", "./draft/main.tex", "--arxiv", "1202.3665"], env)
    assert again.returncode == 0, again.stderr
    assert f"{paper_id} updated (already in the library)" in again.stdout
    third = run_astro(["library", "add", "./draft/main.tex", "--author", "Daniel Foreman-Mackey"], env)
    assert third.returncode == 0, third.stderr
    papers = _papers(run_astro, env)
    assert list(papers) == [paper_id]
    assert papers[paper_id]["arxiv_id"] == "1202.3665"
    assert papers[paper_id]["authors"] == ["Daniel Foreman-Mackey"]
    hits = json.loads(run_astro(["library", "search", "MCMC Hammer", "--json"], env).stdout)["hits"]
    texts = [hit["text"] for hit in hits]
    assert len(texts) == len(set(texts))  # one passage, once
    by_id = run_astro(["library", "add", "./draft/main.tex", "--arxiv", "1202.3665", "--title", "emcee"], env)
    assert by_id.returncode == 0 and list(_papers(run_astro, env)) == [paper_id]


def test_check_reports_likely_duplicates_and_merge_resolves_them(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    for folder, extra in (("a", ["--year", "2013"]), ("b", ["--doi", "10.1086/670067"])):
        (workspace / folder).mkdir()
        text = EMCEE_TEX.read_text(encoding="utf-8")
        # Two copies that differ by one comment: two files, one paper.
        (workspace / folder / "main.tex").write_text(text + f"\n% copy {folder}\n", encoding="utf-8")
        assert run_astro(["library", "add", f"./{folder}/main.tex", *extra], env).returncode == 0
    papers = _papers(run_astro, env)
    assert len(papers) == 2
    local_id = next(pid for pid in papers if pid != "10.1086/670067")
    check = run_astro(["library", "check"], env)
    assert check.returncode == 1, check.stdout
    assert "likely the same paper (near-identical titles and the same first author (foremanmackey))" in check.stdout
    assert f"astro library merge {local_id} 10.1086/670067" in check.stdout
    merged = run_astro(["library", "merge", local_id, "10.1086/670067"], env)
    assert merged.returncode == 0, merged.stderr
    assert f"Merged 10.1086/670067 into {local_id}" in merged.stdout
    papers = _papers(run_astro, env)
    assert list(papers) == [local_id]
    assert papers[local_id]["doi"] == "10.1086/670067" and papers[local_id]["year"] == 2013
    assert papers[local_id]["chunks"] > 0
    again = run_astro(["library", "check"], env)
    assert again.returncode == 0 and "Everything is in order." in again.stdout, again.stdout
    refused = run_astro(["library", "merge", local_id, "nope"], env)
    assert refused.returncode == 2 and "'nope' is not in the library" in refused.stderr
