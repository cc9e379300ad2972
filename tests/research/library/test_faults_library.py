"""Concurrent `astro library add` in one workspace (issue 13): one file, one row, no error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests import research_server
from tests.conftest import base_env
from tests.research_server import FIXTURES

research = research_server.research  # fixture

PDF_1001 = (FIXTURES / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf").read_bytes()


def _start_adds(ids: list[str], env: dict[str, str], cwd: Path) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-m", "astro_cli", "library", "add", paper, "--no-parse"], env=env,
                             cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for paper in ids]


def test_three_adds_of_one_paper_at_once_end_with_one_file_and_one_row(research, workspace, tmp_path):
    research.slow_down("/pdf/", 2.0)  # the downloads overlap, as they do on a real link
    env = {**base_env(tmp_path), **research.env()}
    procs = _start_adds(["1001.0012"] * 3, env, workspace)
    outcomes = [(proc.wait(120), *proc.communicate()) for proc in procs]
    for code, out, err in outcomes:
        assert code == 0, err
        assert "Traceback" not in err
        assert "1001.0012" in out
    papers = workspace / "papers"
    assert sorted(p.name for p in papers.iterdir() if not p.name.startswith(".")) == ["1001.0012.pdf"]
    assert not list(papers.glob("*.part")) and not list(papers.glob(".*.part"))
    assert (papers / "1001.0012.pdf").read_bytes() == PDF_1001
    listing = subprocess.run([sys.executable, "-m", "astro_cli", "library", "list", "--json"], env=env,
                             cwd=workspace, capture_output=True, text=True)
    assert listing.stdout.count('"1001.0012"') >= 1 and listing.stdout.count('"id": "1001.0012"') == 1
    assert sum("added" in out for _code, out, _err in outcomes) == 1
    assert sum("already in the library" in out for _code, out, _err in outcomes) == 2


def test_adds_of_different_papers_at_once_all_succeed(research, workspace, tmp_path):
    research.slow_down("/pdf/", 1.0)
    env = {**base_env(tmp_path), **research.env()}
    procs = _start_adds(["1001.0012", "1111.2011"], env, workspace)
    for proc in procs:
        code = proc.wait(120)
        _out, err = proc.communicate()
        assert code == 0, err
    assert sorted(p.name for p in (workspace / "papers").glob("*.pdf")) == ["1001.0012.pdf", "1111.2011.pdf"]
