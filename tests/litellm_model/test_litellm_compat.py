"""The litellm fence (issue 27): every use of a library's internals checks for it first; a missing
part turns that optimisation off with one --debug line and the run goes on."""

from __future__ import annotations

import logging
import types
from pathlib import Path

import pytest

from astro_cli.litellm_model import compat


@pytest.fixture(autouse=True)
def fresh_notes(monkeypatch):
    monkeypatch.setattr(compat, "_said", set())


def test_a_stream_without_a_chunk_list_is_read_as_it_is_and_the_debug_log_says_why(caplog):
    caplog.set_level(logging.DEBUG, logger=compat.__name__)
    response = types.SimpleNamespace()  # a newer litellm's stream wrapper, say, that keeps no chunks
    assert compat.forget_chunks(response) is False
    assert compat.forget_chunks(response) is False
    said = [r.getMessage() for r in caplog.records if r.name == compat.__name__]
    assert said == ["trimming litellm's chunk list is off: SimpleNamespace has no list named 'chunks'"]


def test_the_chunk_list_keeps_the_usage_chunks_and_the_last_two():
    chunks = [types.SimpleNamespace(usage=None, n=i) for i in range(10)]
    chunks[3].usage = {"prompt_tokens": 5}
    response = types.SimpleNamespace(chunks=chunks)
    assert compat.forget_chunks(response) is True
    assert [c.n for c in response.chunks] == [3, 8, 9]


def test_a_litellm_without_the_fork_guard_or_process_defaults_turns_those_off(caplog):
    caplog.set_level(logging.DEBUG, logger=compat.__name__)
    no_guard = {compat.FORK_GUARD: types.SimpleNamespace()}  # the module is there, the function is not
    assert compat.reserve_for_forking("a test", modules=no_guard) is False
    assert compat.apply_process_defaults(modules={compat.PROCESS_DEFAULTS: types.SimpleNamespace()}) is False
    assert compat.apply_process_defaults(modules={}) is False
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "litellm's fork guard is off" in said and "process defaults in a forked child is off" in said


def test_a_litellm_without_bundled_tokenizers_falls_back(tmp_path: Path):
    spec = types.SimpleNamespace(submodule_search_locations=[str(tmp_path)])
    assert compat.tokenizer_dir(find_spec=lambda name: spec) is None
    assert compat.tokenizer_dir(find_spec=lambda name: None) is None
    (tmp_path / "litellm_core_utils" / "tokenizers").mkdir(parents=True)
    assert compat.tokenizer_dir(find_spec=lambda name: spec) == tmp_path / "litellm_core_utils" / "tokenizers"


def test_pydantic_flags_of_another_shape_read_as_unknown():
    class Plain:
        model_config = None

    assert compat.model_built(Plain) is None
    assert compat.defers_build(Plain) is False
    assert list(compat.pydantic_models(modules={})) == []


def test_the_environment_recorder_sees_reads_and_writes(monkeypatch):
    monkeypatch.setenv("ASTRO_COMPAT_PROBE", "seen")
    reads: dict[str, str | None] = {}
    writes: list[str] = []
    with compat.recording_environment(lambda k, v: reads.setdefault(k, v), writes.append):
        import os

        os.environ.get("ASTRO_COMPAT_PROBE")
        os.environ.get("ASTRO_COMPAT_ABSENT")
        os.environ["ASTRO_COMPAT_WRITTEN"] = "1"
    monkeypatch.delenv("ASTRO_COMPAT_WRITTEN")
    assert reads["ASTRO_COMPAT_PROBE"] == "seen" and reads["ASTRO_COMPAT_ABSENT"] is None
    assert writes == ["ASTRO_COMPAT_WRITTEN"]
    assert type(os.environ).__name__ == "_Environ"  # the class is given back


def test_the_installed_litellm_has_every_optimisation_the_fence_knows():
    """Run against a litellm the pin allows: what is off there is listed (benchmarks/RESULTS.md)."""
    assert compat.available() == {"fork guard": None, "process defaults": None, "bundled tokenizer": None}
