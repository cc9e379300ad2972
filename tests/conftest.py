"""Shared test fixtures: a workspace, the fake model provider, and ways to run the real `astro`.

`cli` runs astro in-process through typer's runner (fast once litellm is imported);
`run_astro` starts the real process (exit codes, signals, kill -9). Both point every external
service at 127.0.0.1, so no test can reach the network.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider

FIXTURES = Path(__file__).parent / "fixtures"
PROVIDER_KEYS = (
    "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "MISTRAL_API_KEY",
    "DEEPSEEK_API_KEY", "ADS_API_TOKEN", "ADS_DEV_KEY",
)
# A closed port: anything that tries a real service in a test fails fast instead of reaching out.
CLOSED = "http://127.0.0.1:9"


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
        ASTRO_SIMBAD_URL=CLOSED + "/simbad/sim-tap",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        NO_COLOR="1",
        TERM="dumb",
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


@pytest.fixture
def run_astro(workspace: Path):
    """Run the real astro process: run_astro(args, env, input=None, timeout=60)."""

    def run(args: list[str], env: dict[str, str], input: str | None = None, timeout: float = 90,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "astro_cli", *args],
            env=env, input=input, capture_output=True, text=True, timeout=timeout, cwd=cwd or workspace,
        )

    return run


@pytest.fixture
def cli(workspace: Path, monkeypatch: pytest.MonkeyPatch):
    """Run astro in-process: cli(args, env) -> click Result with .exit_code, .stdout, .stderr."""
    from typer.testing import CliRunner

    from astro_cli.cli import app

    def invoke(args: list[str], env: dict[str, str] | None = None, input: str | None = None) -> Any:
        monkeypatch.chdir(workspace)
        for key in list(os.environ):
            if key.startswith("ASTRO_") or key in PROVIDER_KEYS:
                monkeypatch.delenv(key, raising=False)
        for key, value in (env or base_env(workspace.parent)).items():
            monkeypatch.setenv(key, value)
        return CliRunner().invoke(app, args, input=input, catch_exceptions=False)

    return invoke
