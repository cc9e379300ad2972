"""The debug log (`--debug` / ASTRO_DEBUG=1): where it is, what it holds, and that no secret reaches it."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from tests.compact_support import open_test_session
from tests.helpers import tool_results

KEY = "ads-logleak-7777777777"


def debug_log(env: dict[str, str]) -> Path:
    return Path(env["ASTRO_HOME"]) / "logs" / "astro.log"


@pytest.mark.cold_start  # the log of an in-process run, from `--debug` on the command line
def test_debug_writes_the_tool_result_to_the_log_with_the_key_redacted(fake, astro_env, workspace, run_astro):
    env = dict(astro_env, ADS_API_TOKEN=KEY)
    (workspace / "notes.txt").write_text(f"ADS token for the survey: {KEY}\n")
    fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}, {"text": "Read it."})
    result = run_astro(["--debug", "run", "what is in notes.txt?"], env)
    assert result.returncode == 0, result.stderr
    assert KEY in (workspace / "notes.txt").read_text()  # the tool really read the key...
    log = debug_log(env).read_text()
    assert "tool read_file [main] ok" in log  # ...and the log shows the result it returned,
    assert "ADS token for the survey: [REDACTED:ADS_API_TOKEN]" in log  # without the key
    assert KEY not in log and env["ASTRO_API_KEY"] not in log
    assert debug_log(env).stat().st_mode & 0o777 == 0o600


def test_without_debug_there_is_no_log(fake, astro_env, workspace, run_astro):
    fake.add({"text": "Hello."})
    assert run_astro(["run", "hello"], astro_env).returncode == 0
    assert not debug_log(astro_env).exists()


def test_the_log_rotates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from astro_cli import debuglog

    monkeypatch.setattr(debuglog, "MAX_BYTES", 2000)
    with logged_to(tmp_path) as path:
        for number in range(100):
            logging.getLogger("astro_cli.test").debug("line %d %s", number, "x" * 60)
    names = sorted(p.name for p in path.parent.iterdir())
    assert names == ["astro.log", "astro.log.1", "astro.log.2", "astro.log.3"]
    assert "line 99" in path.read_text() and path.stat().st_size <= 2000


def test_a_failing_listener_leaves_a_traceback_in_the_log_and_the_turn_goes_on(fake, workspace, monkeypatch):
    app, session, events = open_test_session(monkeypatch, workspace, fake)

    def broken_renderer(event) -> None:
        raise RuntimeError(f"renderer bug on {event.type}")

    session.bus.subscribe(broken_renderer)
    fake.add({"tool_calls": [{"name": "glob_files", "arguments": {"pattern": "*"}}]}, {"text": "Two files."})
    try:
        with logged_to(app.home.root) as path:
            outcome = session.run_turn("what is here?")
    finally:
        app.close()
    assert outcome.answer == "Two files." and len(fake.requests) == 2  # the tool ran, the turn ended
    assert [e.type for e in events].count("tool_finished") == 1  # the other listeners got every event
    log = path.read_text()
    assert "an event listener failed on tool_finished" in log
    assert "Traceback (most recent call last)" in log and "RuntimeError: renderer bug on tool_finished" in log


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux")
def test_the_warm_workers_child_honours_debug(tmp_path, fake, astro_env, workspace):
    from tests.worker_support import new_worker, run

    worker = new_worker(tmp_path / "worker")
    try:
        env = dict(worker.client_env(astro_env), ADS_API_TOKEN=KEY)
        (workspace / "notes.txt").write_text(f"token {KEY}\n")
        fake.add({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}, {"text": "Read."})
        before = worker.served()
        result = run(["--debug", "run", "read notes.txt"], env, workspace)
        assert result.returncode == 0, result.stderr
        assert worker.served() == before + 1  # the run went to the worker's child
        assert KEY in tool_results(fake.bodies()[-1])[0].replace("[REDACTED:ADS_API_TOKEN]", KEY)
        log = debug_log(env).read_text()
        assert "tool read_file [main] ok" in log and "token [REDACTED:ADS_API_TOKEN]" in log
        assert KEY not in log
    finally:
        worker.stop()


class logged_to:
    """The debug log on, in-process, under `home`; taken off again afterwards."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def __enter__(self) -> Path:
        from astro_cli.debuglog import enable

        path = enable(self.home)
        assert path is not None
        return path

    def __exit__(self, *exc: object) -> None:
        logger = logging.getLogger("astro_cli")
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(logging.NOTSET)
