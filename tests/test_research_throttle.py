"""Issue 15: arXiv's three-second spacing holds across astro processes of one user, with the real
process (two `astro search --source arxiv` started together against the stand-in arXiv)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from astro_cli.research.http import ARXIV_CLOCK, Throttle
from tests import research_server
from tests.conftest import base_env

research = research_server.research
INTERVAL = 1.0


@pytest.mark.slow
def test_two_processes_started_together_are_spaced(research, workspace, tmp_path):
    env = {**base_env(tmp_path), **research.env(ASTRO_ARXIV_MIN_INTERVAL=str(INTERVAL), ASTRO_HTTP_TIMEOUT="5")}
    command = [sys.executable, "-m", "astro_cli", "search", "testing", "--source", "arxiv", "--json"]
    started = [subprocess.Popen(command, env=env, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True) for _ in range(3)]
    for process in started:
        _out, err = process.communicate(timeout=90)
        assert process.returncode == 0, err
    times = sorted(r.at for r in research.hits("/api/query"))
    assert len(times) == 3
    # Without the shared clock the three arrive within a few milliseconds of each other.
    assert min(b - a for a, b in zip(times, times[1:])) >= INTERVAL * 0.75
    assert (tmp_path / "astro-home" / ARXIV_CLOCK).is_file()


def test_the_clock_file_spaces_two_throttles_and_a_broken_one_falls_back(tmp_path):
    import time

    clock = tmp_path / "home" / ARXIV_CLOCK
    first, second = Throttle(0.3, clock), Throttle(0.3, clock)  # as two processes would hold them
    first.wait()
    began = time.time()
    second.wait()  # knows of the first only through the file
    assert time.time() - began >= 0.25
    clock.write_text("not a time\n")
    first.wait()  # an unreadable clock is no clock: no wait beyond its own spacing, no error
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    fallback = Throttle(0.2, blocked / ARXIV_CLOCK)  # its folder cannot be made
    fallback.wait()
    began = time.time()
    fallback.wait()
    assert time.time() - began >= 0.15  # still spaced within the process
