"""One pid-alive check (issue 27): a running process is alive; one that ended is gone even before
its parent reaps it (a zombie), which the copies it replaced disagreed on."""

from __future__ import annotations

import os
import subprocess
import sys

from astro_cli.pids import pid_alive
from tests.helpers import wait_for


def test_a_running_process_is_alive_and_an_ended_unreaped_one_is_gone():
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        assert pid_alive(proc.pid)
        proc.stdin.close()  # it ends; not waited for, so it stays a zombie until proc.wait()
        assert wait_for(lambda: not pid_alive(proc.pid), 60)
    finally:
        proc.wait(timeout=60)
    assert not pid_alive(proc.pid)
    assert pid_alive(os.getpid())
    assert not pid_alive(0) and not pid_alive(-1)
