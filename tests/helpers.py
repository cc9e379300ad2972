"""Small helpers shared by the test files."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from astro_cli.worker.lifecycle import wait_until


def wait_for(predicate: Callable[[], Any], timeout: float = 120.0, interval: float = 0.05) -> bool:
    """Poll `predicate` until it is true or `timeout` seconds pass; True if it became true.

    The default ceiling is generous (a cold `astro` imports litellm first, which a loaded machine
    stretches to tens of seconds): a wait that succeeds returns as soon as it does."""
    return wait_until(predicate, timeout, interval)


def exit_code(proc: subprocess.Popen[str], timeout: float) -> int:
    """`proc`'s exit code; if it still runs after `timeout` s, the test fails with the stacks of its
    threads (faulthandler prints them on SIGABRT: tests start astro with PYTHONFAULTHANDLER=1)."""
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        pytest.fail(f"astro still ran {timeout:g} s later; its threads then:\n{(err or '')[-8000:]}")


def last_json(output: str) -> dict[str, Any]:
    """The last line of `astro run --output-format json|stream-json` output: the result object."""
    return json.loads(output.strip().splitlines()[-1])


def trust_workspace(workspace: Path, home: Path | None = None) -> None:
    """Trust the folder's risky project settings as they are now (what `astro trust` records).

    The tests' ASTRO_HOME is `<tmp>/astro-home`, beside the `<tmp>/project` workspace.
    """
    from astro_cli.security.trust import TrustStore, assess_workspace
    from astro_cli.skills.approving import pre_approving_skills
    from astro_cli.workspace import Workspace

    ws = Workspace(workspace.resolve())
    home = home or workspace.parent / "astro-home"
    state = assess_workspace(ws.root, home, ws.config_path, pre_approving_skills(ws.skills_dirs))
    TrustStore(home).trust(ws.root, state.items)


def system_of(body: dict[str, Any]) -> str:
    """The system prompt of a request the fake provider received."""
    return body["messages"][0]["content"]


def tool_results(body: dict[str, Any]) -> list[str]:
    """The tool results (OpenAI format) of a request the fake provider received."""
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def write_config(path: Path, settings: dict[str, Any]) -> None:
    """A YAML config file (user or project), its folder made first."""
    import yaml

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(settings), encoding="utf-8")


def cpu_seconds() -> float:
    """CPU time this process and its reaped children have used so far (user + system).

    A bound on work done, where a test must show that something stops instead of running for
    minutes: unlike a wall clock it does not stretch when the machine is busy with other work."""
    import resource
    import time

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime
