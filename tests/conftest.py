"""Shared test fixtures: a workspace, the fake model provider, and ways to run the real `astro`.

`cli` runs astro in-process through typer's runner (fast once litellm is imported);
`run_astro` starts the real process (exit codes, output, files). Both point every external
service at 127.0.0.1, so no test can reach the network.

`run_astro(["run", ...])` hands the run to one warm worker per test process (`warm_worker`), as a
user's `astro run` does once a worker is up: ~0.1 CPU-s a run instead of ~7 for importing litellm
again. Each test still has its own workspace and ASTRO_HOME (the worker's child adopts the
client's environment and folder). Tests marked `cold_start`, tests that start `astro` themselves
(signals, kill -9, pseudo-terminals) and `pytest --no-warm-worker` keep the in-process path.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from astro_cli.slash import slash_commands
from tests.fakeprovider import FakeProvider
from tests.markers import MARKERS, apply_markers
from tests.paths import FIXTURES_DIR
from tests.suite_speed import cache_bytecode, heavy_first

pytest_plugins = ["tests.pg_support"]  # pg_server, pgvector_server, pg_url: a real PostgreSQL (issue 20)

FIXTURES = FIXTURES_DIR
PROVIDER_KEYS = (
    "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "MISTRAL_API_KEY",
    "DEEPSEEK_API_KEY", "ADS_API_TOKEN", "ADS_DEV_KEY",
)
# A closed port: anything that tries a real service in a test fails fast instead of reaching out.
CLOSED = "http://127.0.0.1:9"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--no-warm-worker", action="store_true",
                     help="run every `astro run` of run_astro in its own process (the cold start path)")


def pytest_configure(config: pytest.Config) -> None:
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # Started by a shell without job control (`make test &`): SIGINT is ignored, and every astro a
        # test starts would inherit that, so the Ctrl-C tests could not interrupt anything. As in a
        # foreground run, the processes the tests start take SIGINT's default again.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")
    cache_bytecode(config.rootpath)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    apply_markers(items)
    if hasattr(config, "workerinput"):  # an xdist worker: the costliest modules first (tests/suite_speed.py)
        heavy_first(items)


@pytest.fixture(autouse=True)
def isolated_astro(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """astro's code run in the test process (build_app, a tool called directly) sees the tests' environment
    too: an ASTRO_HOME of the test's own, closed service addresses, vectors off. Without it, it read the
    user's real home and settings, and a search there started a background embedding process that
    outlived its test and took a core from the others."""
    clear_astro_environment(monkeypatch)
    for key, value in base_env(tmp_path).items():
        if key.startswith(("ASTRO_", "LITELLM_")):
            monkeypatch.setenv(key, value)


def clear_astro_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ASTRO_ setting and no provider key left in this process's environment."""
    for key in list(os.environ):
        if key.startswith("ASTRO_") or key in PROVIDER_KEYS:
            monkeypatch.delenv(key, raising=False)


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    provider = FakeProvider()
    yield provider
    provider.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "project"
    ws.mkdir()
    return ws


def base_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTRO_") and k not in PROVIDER_KEYS}
    env.update(
        ASTRO_HOME=str(tmp_path / "astro-home"),
        ASTRO_RETRY_BACKOFF="0.01",
        ASTRO_ARXIV_URL=CLOSED + "/api/query",
        ASTRO_ARXIV_PDF_URL=CLOSED,
        ASTRO_ADS_URL=CLOSED + "/v1",
        ASTRO_CROSSREF_URL=CLOSED + "/crossref",
        ASTRO_SIMBAD_URL=CLOSED + "/simbad/sim-tap",
        ASTRO_OLLAMA_URL=CLOSED,
        ASTRO_LOCAL_SERVERS=CLOSED,  # never the real 8080/8000/1234 of the machine running the tests
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        # In-process runs, no background worker; tests/worker/test_worker*.py turn it on in a runtime folder of their own.
        ASTRO_WORKER="0",
        # Vectors are on by default when the local model is installed (issue 30); the tests written before
        # that expect keyword search and no background embedding. tests/research/search/test_library_default_embed.py
        # drops this to test the default.
        ASTRO_LIBRARY_EMBEDDING_MODEL="off",
        NO_COLOR="1",
        TERM="dumb",
        PYTHONFAULTHANDLER="1",  # a hung astro shows its threads' stacks (tests/helpers.py exit_code)
        COLUMNS="120",
    )
    return env


@pytest.fixture
def astro_env(tmp_path: Path, fake: FakeProvider) -> dict[str, str]:
    """Environment for astro talking to the fake provider in the OpenAI format."""
    env = base_env(tmp_path)
    env.update(ASTRO_MODEL="openai/fake-model", ASTRO_API_BASE=fake.openai_url, ASTRO_API_KEY="sk-test-secret-123")
    return env


@pytest.fixture
def anthropic_env(tmp_path: Path, fake: FakeProvider) -> dict[str, str]:
    """Environment for astro talking to the fake provider in the Anthropic format."""
    env = base_env(tmp_path)
    env.update(
        ASTRO_MODEL="anthropic/claude-sonnet-4-5", ASTRO_API_BASE=fake.url, ASTRO_API_KEY="sk-ant-test-secret-456"
    )
    return env


@pytest.fixture(scope="session")
def warm_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One warm worker for this test process (so one per xdist worker), in a runtime folder and
    ASTRO_HOME of its own; None when it cannot start (the runs then stay in-process)."""
    import warnings

    from tests.worker_support import new_worker

    # A worker left behind by a killed pytest exits on its own after 30 idle minutes.
    worker = new_worker(tmp_path_factory.mktemp("warm-worker"), start=False, ASTRO_WORKER_IDLE_MINUTES="30")
    try:
        worker.start()
    except (AssertionError, subprocess.SubprocessError) as exc:
        warnings.warn(f"the shared warm worker did not start; `astro run` tests run in-process: {exc}",
                      stacklevel=1)
        worker.stop()
        yield None
        return
    yield worker
    worker.stop()


def through_warm_worker(request: pytest.FixtureRequest, args: list[str], env: dict[str, str]) -> dict[str, str]:
    """`env` pointed at the shared warm worker when this is an `astro run` the tests' base environment
    keeps in-process (ASTRO_WORKER=0 and no runtime folder of its own); else `env` unchanged."""
    from astro_cli.argv import rewrite

    # As astro's own entry point reads it (astro_cli/main.py): `astro -p "q"` is `astro run "q"`.
    command = rewrite(args[1:] if args[:1] == ["--debug"] else args)[:1]
    if (command != ["run"] or env.get("ASTRO_WORKER") != "0" or "ASTRO_RUNTIME_DIR" in env
            or request.node.get_closest_marker("cold_start") or request.config.getoption("--no-warm-worker")):
        return env
    worker = request.getfixturevalue("warm_worker")
    if worker is None:
        return env
    return {**worker.client_env(env), "ASTRO_WORKER_IDLE_MINUTES": "30"}


@pytest.fixture
def run_astro(workspace: Path, request: pytest.FixtureRequest):
    """Run the real astro process: run_astro(args, env, input=None, timeout=90).

    `astro run` goes through the shared warm worker (see the module's docstring); mark a test
    `cold_start` to keep its runs in their own process."""

    def run(args: list[str], env: dict[str, str], input: str | None = None, timeout: float = 90,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "astro_cli", *args],
            env=through_warm_worker(request, args, env), input=input, capture_output=True, text=True,
            # Never the runner's own stdin: piped input joins the question (issue 46), and a runner's open
            # pipe would be waited for.
            **({"stdin": subprocess.DEVNULL} if input is None else {}),
            timeout=timeout, cwd=cwd or workspace,
        )

    return run


@pytest.fixture
def cli(workspace: Path, monkeypatch: pytest.MonkeyPatch):
    """Run astro in-process: cli(args, env) -> click Result with .exit_code, .stdout, .stderr."""
    from typer.testing import CliRunner

    from astro_cli.cli import app

    def invoke(args: list[str], env: dict[str, str] | None = None, input: str | None = None) -> Any:
        monkeypatch.chdir(workspace)
        clear_astro_environment(monkeypatch)
        for key, value in (env or base_env(workspace.parent)).items():
            monkeypatch.setenv(key, value)
        return CliRunner().invoke(app, args, input=input, catch_exceptions=False)

    return invoke


CTRL_D = "\x04"


@pytest.fixture
def repl(astro_env, workspace, monkeypatch):
    """The real REPL in-process, prompt-toolkit reading keys from a pipe: `repl.type_and_run(keys)`
    types the keys, runs the loop until Ctrl-D and returns what the console printed."""
    import io
    from contextlib import ExitStack

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from rich.console import Console

    from astro_cli.bootstrap import build_app
    from astro_cli.ui.prompt_input import PromptReader
    from astro_cli.ui.repl import Repl

    monkeypatch.chdir(workspace)
    clear_astro_environment(monkeypatch)
    for key, value in astro_env.items():
        monkeypatch.setenv(key, value)
    with ExitStack() as stack:
        app = build_app()
        stack.callback(app.close)
        pipe = stack.enter_context(create_pipe_input())
        out = io.StringIO()
        reader = PromptReader(
            app.home.history_path, commands=slash_commands(app).completions, session_ids=lambda: [],
            input=pipe, output=DummyOutput(),
        )
        shell = Repl(app, Console(file=out, width=200, color_system=None), reader=reader)
        shell.open()

        def run(keys: str) -> str:
            pipe.send_text(keys)
            shell.run()
            return out.getvalue()

        def send_when(line_is: Callable[[str], bool], keys: str, until: Callable[[str], bool] | None = None,
                      timeout: float = 60.0) -> None:
            """Type `keys` once the line being edited passes `line_is`, as a person who looks at the
            screen would (not after a fixed delay, which a loaded machine outruns). With `until`, press
            them again each second until the line passes it: a Tab pressed while prompt-toolkit is still
            computing completions in the background is dropped, and a person would press it again."""
            def line() -> str:
                return str(reader.session.app.current_buffer.text)

            def wait_for_line(check: Callable[[str], bool], seconds: float) -> bool:
                deadline = time.monotonic() + seconds
                while time.monotonic() < deadline:
                    if check(line()):
                        return True
                    time.sleep(0.02)
                return False

            def press() -> None:
                wait_for_line(line_is, timeout)
                pipe.send_text(keys)
                if until is None:
                    return
                deadline = time.monotonic() + timeout
                while not wait_for_line(until, 1.0) and time.monotonic() < deadline and line_is(line()):
                    pipe.send_text(keys)

            threading.Thread(target=press, daemon=True).start()

        shell.type_and_run = run
        shell.send_when = send_when
        shell.pipe = pipe
        yield shell


@pytest.fixture
def catalog():
    """The stand-in Virtual Observatory services (tests/catalog_server.py), one per test."""
    from tests.catalog_server import CatalogServer

    server = CatalogServer()
    yield server
    server.close()
