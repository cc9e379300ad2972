"""The worker's parts on their own: the private runtime folder, frames with descriptors, the record of
what imports read from the environment, and which modules the worker may learn."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from astro_cli.worker import protocol
from astro_cli.worker.paths import WorkerPaths, installation_key
from tests.paths import REPO_ROOT
from tests.worker_support import runtime_folder


def test_runtime_folder_is_created_private_and_refused_when_others_can_enter(tmp_path):
    paths = WorkerPaths(str(tmp_path / "run"), installation_key())
    assert paths.problem() == "no runtime folder yet"
    assert paths.problem(create=True) is None
    assert (os.stat(paths.folder).st_mode & 0o777) == 0o700
    os.chmod(paths.folder, 0o755)
    assert "open to other users (mode 755)" in paths.problem()


def test_runtime_folder_that_is_a_link_or_too_deep_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(target)
    assert "is not a folder" in WorkerPaths(str(tmp_path / "link"), installation_key()).problem()
    deep = WorkerPaths(str(tmp_path / ("x" * 120)), installation_key())
    assert "too long for a Unix socket" in deep.problem(create=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_runtime_folder_of_another_user_is_refused(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    os.chown(folder, 4242, 4242)
    assert "belongs to another user" in WorkerPaths(str(folder), installation_key()).problem()


def test_installation_key_differs_per_package_folder():
    assert installation_key("/a/astro_cli") != installation_key("/b/astro_cli")
    assert installation_key() == installation_key()


def test_frames_carry_descriptors_and_undecodable_bytes():
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    read_end, write_end = os.pipe()
    odd = b"caf\xe9".decode("utf-8", "surrogateescape")  # a Latin-1 byte in argv or the environment
    try:
        protocol.send_frame(left, {"kind": "run", "argv": [odd]}, [write_end])
        protocol.send_frame(left, {"env": {"X": odd}})
        header, fds = protocol.recv_frame_with_fds(right)
        body = protocol.recv_frame(right)
        assert header == {"kind": "run", "argv": [odd]} and body == {"env": {"X": odd}}
        os.write(fds[0], b"through the passed descriptor")
        assert os.read(read_end, 100) == b"through the passed descriptor"
        assert protocol.peer_uid(right) == os.getuid()
        left.close()
        with pytest.raises(protocol.ProtocolError):
            protocol.recv_frame(right)
    finally:
        for fd in (read_end, write_end, *locals().get("fds", [])):
            try:
                os.close(fd)
            except OSError:
                pass
        right.close()


def test_a_frame_that_is_not_json_is_a_protocol_error():
    left, right = socket.socketpair()
    left.sendall(b"\x00\x00\x00\x03abc")
    with pytest.raises(protocol.ProtocolError):
        protocol.recv_frame(right)
    left.close()
    right.close()


def test_environment_record_notes_reads_with_their_values_and_what_imports_set(monkeypatch):
    from astro_cli.worker.preload import WarmState, recording_environment

    monkeypatch.setenv("READ_ME", "yes")
    monkeypatch.delenv("NOT_THERE", raising=False)
    state = WarmState(worker_pid=os.getpid())
    with recording_environment(state):
        assert os.getenv("READ_ME") == "yes" and os.getenv("NOT_THERE") is None
        os.environ["SET_BY_IMPORT"] = "/some/folder"
        assert os.environ["SET_BY_IMPORT"] == "/some/folder"  # read after its own write: not an input
    monkeypatch.delenv("SET_BY_IMPORT")
    assert type(os.environ).__name__ == "_Environ"
    assert state.env_reads == {"READ_ME": "yes", "NOT_THERE": None}
    assert state.env_effects == {"SET_BY_IMPORT": "/some/folder"}


def test_a_child_declines_when_the_client_environment_differs(monkeypatch):
    from astro_cli.worker import preload
    from astro_cli.worker.process_state import Incompatible

    state = preload.WarmState(worker_pid=os.getpid(), env_reads={"LITELLM_LOG": "ERROR", "NO_COLOR": None})
    monkeypatch.setattr(preload, "_STATE", state)
    preload.check_environment({"LITELLM_LOG": "ERROR", "PATH": "/bin"})
    with pytest.raises(Incompatible, match="NO_COLOR differs"):
        preload.check_environment({"LITELLM_LOG": "ERROR", "NO_COLOR": "1"})
    with pytest.raises(Incompatible, match="LITELLM_LOG differs"):
        preload.check_environment({"LITELLM_LOG": "DEBUG"})


def test_only_astro_dependencies_and_the_standard_library_are_learned():
    from astro_cli.worker.preload import learnable

    fake_modules = {name: object() for name in (
        "litellm.llms.anthropic", "litellm.types", "json.decoder", "astro_cli.tools.files", "numpy", "astropy.units",
        "tkinter", "my_workspace_helper", "model:litellm.types:Usage", "model:plugin.models:Thing")}
    fake_modules["rich.markdown"] = None  # an import that failed
    assert learnable([*fake_modules, "not.loaded"], fake_modules) == [
        "astro_cli.tools.files", "json.decoder", "litellm.llms.anthropic", "litellm.types", "model:litellm.types:Usage"]


def test_warm_list_merges_and_keeps_refusals(tmp_path):
    from astro_cli.worker.preload import merge_warm_list, read_warm_list

    path = str(tmp_path / "worker.warm")
    merge_warm_list(path, ["b", "a"])
    merge_warm_list(path, ["c"], deny=["b"])
    merge_warm_list(path, ["b"])
    assert read_warm_list(path) == (["a", "c"], {"b"})


def test_switched_off_by_environment_touches_nothing(monkeypatch, tmp_path):
    from astro_cli.worker.client import Fallback, try_worker

    monkeypatch.setenv("ASTRO_RUNTIME_DIR", str(tmp_path / "never-made"))
    monkeypatch.setenv("ASTRO_WORKER", "0")
    outcome = try_worker(["astro", "run", "hi"])
    assert isinstance(outcome, Fallback) and outcome.reason == "turned off by ASTRO_WORKER=0"
    assert not outcome.start_worker and not (tmp_path / "never-made").exists()


def test_no_worker_yet_asks_for_one(monkeypatch):
    from astro_cli.worker.client import Fallback, try_worker

    runtime = runtime_folder()
    monkeypatch.setenv("ASTRO_RUNTIME_DIR", str(runtime))
    monkeypatch.delenv("ASTRO_WORKER", raising=False)
    try:
        outcome = try_worker(["astro", "run", "hi"])
    finally:
        runtime.rmdir()
    assert isinstance(outcome, Fallback) and outcome.start_worker and outcome.reason == "no worker is running"


def test_the_thin_client_imports_nothing_heavy():
    probe = ("import sys\nimport astro_cli.main, astro_cli.worker.client\n"
             "print(sorted(m for m in ('typer', 'rich', 'yaml', 'litellm', 'dataclasses', 'typing', 'logging') "
             "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO_ROOT)
    assert done.stdout.strip() == "[]", done.stderr


def test_a_run_that_needs_no_model_starts_no_worker(astro_env, workspace):
    from astro_cli.worker.lifecycle import lock_is_held
    from astro_cli.worker.paths import WorkerPaths

    runtime = runtime_folder()
    env = {k: v for k, v in astro_env.items() if k != "ASTRO_WORKER"}
    env["ASTRO_RUNTIME_DIR"] = str(runtime)
    try:
        for args in (["run", "--help"], ["run", "  "]):
            done = subprocess.run([sys.executable, "-m", "astro_cli", *args], env=env, cwd=workspace,
                                  capture_output=True, timeout=120)
            assert done.returncode in (0, 2)
        paths = WorkerPaths(str(runtime), installation_key())
        assert not lock_is_held(paths) and not Path(paths.socket).exists()
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
