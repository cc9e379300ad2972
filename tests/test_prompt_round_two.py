"""Issue 47, the seeds' last rows, through the real `astro` process: `{{model}}` without a model,
per-agent entries reaching that agent's runs, the abort signal through assembly, selective
inheritance of sections by subagents, configurable compaction prompts."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import base_env


def test_model_variable_renders_none_when_no_model_is_configured(run_astro, workspace: Path):
    env = {**base_env(workspace.parent), "ASTRO_IDENTITY": "You are astro, running on {{model}}."}
    shown = run_astro(["prompt", "show", "--json"], env)
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert report["sections"][0]["text"] == "You are astro, running on (none)."
    assert report["variables"]["model"] == "(none)"
