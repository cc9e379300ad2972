"""`astro library search` through the warm worker (issue 30): the same hits as a search in its own
process, numpy and the local model loaded before the worker forks, and the search done in-process
when no worker runs (which then starts one for the next search)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from astro_cli.research.library.parse import parse_paper
from astro_cli.research.library.service import Library
from astro_cli.research.search.embedding_choice import DEFAULT_MODEL, default_installed
from tests.helpers import wait_for
from tests.library_support import add_paper, make_app
from tests.worker_support import new_worker, run

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux"),
    pytest.mark.skipif(not default_installed(), reason="the local embedding model is not installed"),
]

QUESTION = "quantum critical point of the nodes on the Bethe lattice"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace whose library holds one paper with the local model's vectors (the default)."""
    root = tmp_path_factory.mktemp("search-worker") / "ws"
    app = make_app(root, **{"library.embedding_model": None})
    add_paper(app, "1111.2011")
    parse_paper(Library.of(app), "1111.2011", vectors="now")
    app.close()
    return root


def test_no_worker_searches_in_process_then_a_started_worker_gives_the_same_hits(library, tmp_path):
    worker = new_worker(tmp_path, start=False)
    env = {k: v for k, v in worker.env.items() if k != "ASTRO_LIBRARY_EMBEDDING_MODEL"}  # the default model
    try:
        alone = run(["library", "search", QUESTION, "--json"], env, library)
        assert alone.returncode == 0, alone.stderr
        found = json.loads(alone.stdout)
        assert found["method"] == "hybrid" and found["hits"]
        # The in-process search found no worker and started one for the next search.
        assert wait_for(lambda: (worker.status() or {}).get("pid"), 300), worker.log()
        assert f"{DEFAULT_MODEL} loaded" in worker.log()
        assert worker.status()["threads"] == 1  # numpy came in with one BLAS thread: it can still fork

        for args in (["--json"], [], ["--model-view"]):
            through = run(["library", "search", QUESTION, *args], env, library)
            assert worker.served() == 1 + (["--json"], [], ["--model-view"]).index(args), worker.log()
            if args == ["--json"]:
                assert through.stdout == alone.stdout
            else:
                with_off = {**env, "ASTRO_WORKER": "0"}
                assert through.stdout == run(["library", "search", QUESTION, *args], with_off, library).stdout
            assert through.returncode == 0 and through.stderr == alone.stderr
    finally:
        worker.stop()


def test_bad_input_gets_the_same_sentence_through_the_worker(library, tmp_path):
    worker = new_worker(tmp_path)
    try:
        env = worker.env
        through = run(["library", "search", "--paper", "9999.99999", QUESTION], env, library)
        assert worker.served() == 1
        alone = run(["library", "search", "--paper", "9999.99999", QUESTION], {**env, "ASTRO_WORKER": "0"}, library)
        assert through.returncode == alone.returncode != 0
        assert through.stderr == alone.stderr
        assert b"Paper '9999.99999' is not in the library" in through.stderr
        assert b"Traceback" not in through.stderr
    finally:
        worker.stop()
