"""Issue 42: `astro library add ./x.tex` reads x.tex and what it inputs, never another paper of its
folder; `astro library search Q -p ID` is the search's --paper, not astro's own -p (print). The real
astro process, keywords only (the tests' environment turns vectors off)."""

from __future__ import annotations

import json
import shutil

from tests.conftest import base_env
from tests.library_support import EMCEE_TEX, PAPERS

FEIDEN_TEX = PAPERS / "feiden_2016AA_ms.tex"


def test_a_tex_in_a_folder_of_two_papers_brings_only_itself_and_its_inputs(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    folder = workspace / "drafts"
    (folder / "parts").mkdir(parents=True)
    emcee = EMCEE_TEX.read_text()
    # the named paper inputs a part from a sub-folder; the larger paper beside it must not be read
    emcee = emcee.replace("\\section{Introduction}", "\\input{parts/extra}\n\\section{Introduction}", 1)
    (folder / "emcee.tex").write_text(emcee)
    (folder / "parts" / "extra.tex").write_text("The quokka diagnostic of this draft is written in an input file.\n")
    shutil.copyfile(FEIDEN_TEX, folder / "feiden.tex")  # twice emcee's size: the old code read it instead
    added = run_astro(["library", "add", "./drafts/emcee.tex", "--year", "2013"], env)
    assert added.returncode == 0, added.stderr
    assert "The MCMC Hammer" in added.stdout.splitlines()[0]
    rows = json.loads(run_astro(["library", "list", "--json"], env).stdout)
    row = rows[0] if isinstance(rows, list) else rows["papers"][0]
    stored = workspace / row["source_path"]
    assert sorted(p.relative_to(stored).as_posix() for p in stored.rglob("*.tex")) == ["emcee.tex", "parts/extra.tex"]
    quokka = json.loads(run_astro(["library", "search", "quokka diagnostic", "--json"], env).stdout)["hits"]
    assert quokka and "quokka diagnostic" in quokka[0]["text"]
    walkers = json.loads(run_astro(["library", "search", "affine invariant ensemble walkers", "--json"], env).stdout)
    assert walkers["hits"]
    scorpius = json.loads(run_astro(["library", "search", "Upper Scorpius magnetic", "--json"], env).stdout)["hits"]
    assert not scorpius  # the other paper's text is not in the library


def test_search_dash_p_is_the_paper_filter(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)
    shutil.copyfile(EMCEE_TEX, workspace / "emcee.tex")
    added = run_astro(["library", "add", "./emcee.tex", "--year", "2013", "--arxiv", "1202.3665"], env)
    assert added.returncode == 0, added.stderr
    found = run_astro(["library", "search", "acceptance fraction", "-p", "1202.3665", "--json"], env)
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert hits and {hit["source"] for hit in hits} == {"1202.3665"}
    missing = run_astro(["library", "search", "acceptance fraction", "-p", "2401.99999"], env)
    assert missing.returncode != 0 and "No model is configured" not in missing.stderr
    assert "astro library list" in missing.stderr and "Traceback" not in missing.stderr
