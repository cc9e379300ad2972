"""An interrupted run ends even when a thread or an atexit handler would keep it alive (process_exit.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.helpers import exit_code
from tests.paths import REPO_ROOT

SCRIPT = textwrap.dedent("""
    import atexit, sys, threading
    from pathlib import Path
    from astro_cli.process_exit import exit_now

    marker = Path(sys.argv[1])
    atexit.register(marker.write_text, "atexit ran")
    if sys.argv[2] == "blocked":
        threading.Thread(target=threading.Event().wait).start()  # not a daemon: a normal exit waits forever
    exit_now(130, within=float(sys.argv[3]))
""")


def _run(tmp_path: Path, thread: str, within: str) -> tuple[subprocess.Popen[str], Path]:
    marker = tmp_path / "marker"
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(marker), thread, within], stderr=subprocess.PIPE,
                            text=True, cwd=REPO_ROOT)
    return proc, marker


def test_a_thread_that_never_ends_cannot_keep_an_interrupted_run_alive(tmp_path):
    proc, marker = _run(tmp_path, "blocked", "1")
    assert exit_code(proc, 120) == 130
    assert proc.stderr is not None
    assert "ending now" in proc.stderr.read()
    assert not marker.exists()  # the wind-down was still waiting for the thread when the bound ended it


def test_a_quick_wind_down_still_runs_atexit_and_keeps_the_code(tmp_path):
    proc, marker = _run(tmp_path, "none", "600")
    assert exit_code(proc, 120) == 130
    assert marker.read_text() == "atexit ran"
    assert proc.stderr is not None
    assert "ending now" not in proc.stderr.read()
