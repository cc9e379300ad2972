"""Fuzzing (issue 13): SKILL.md, memory files, config files and tool arguments never crash astro.

Every input is either accepted or refused with astro's own one-sentence error. The benchmark
(benchmarks/bench_reliability.py) runs the same targets with many more inputs.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import fuzz_targets as fz

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(fz.SKILL_DOCS)
def test_skill_md(text: str):
    with tempfile.TemporaryDirectory() as tmp:
        fz.skill_md(text, Path(tmp))


@FUZZ
@given(fz.MEMORY_DOCS)
def test_memory_files(text: str):
    with tempfile.TemporaryDirectory() as tmp:
        fz.memory_file(text, Path(tmp))


@FUZZ
@given(fz.CONFIG_DOCS)
def test_config_files(data: bytes):
    with tempfile.TemporaryDirectory() as tmp:
        fz.config_file(data, Path(tmp))


@pytest.fixture(scope="module")
def harness():
    harness = fz.ToolHarness()
    yield harness
    harness.close()


@FUZZ
@given(st.sampled_from(fz.TOOL_NAMES), fz.TOOL_ARGUMENTS)
def test_tool_arguments(harness, name: str, raw: str):
    harness.call(name, raw)
