"""Broken state files get one sentence (issue 13): the database and the config files, with the real process."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider


def _one_sentence(proc: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 or all(not line.startswith(("  File", "sqlite3.")) for line in lines), proc.stderr
    return " ".join(proc.stderr.split())


@pytest.mark.parametrize("command", [["run", "Hello"], ["sessions", "list"]])
def test_a_garbage_database_is_one_sentence_and_left_as_it_was(run_astro, astro_env, workspace, command):
    db = workspace / ".astro" / "astro.db"
    db.parent.mkdir()
    garbage = os.urandom(8192)
    db.write_bytes(garbage)
    proc = run_astro(command, astro_env)
    assert proc.returncode == 2
    sentence = _one_sentence(proc)
    assert f"{db} is damaged (file is not a database)" in sentence
    assert ".corrupt-" in sentence and "mv " in sentence
    assert db.read_bytes() == garbage  # nothing is lost: the file stays for the researcher to rescue


def test_a_truncated_database_is_one_sentence(run_astro, fake: FakeProvider, astro_env, workspace):
    fake.add({"text": "An answer worth keeping."})
    assert run_astro(["run", "First question"], astro_env).returncode == 0
    db = workspace / ".astro" / "astro.db"
    connection = sqlite3.connect(db)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 3])
    proc = run_astro(["run", "--continue", "Second question"], astro_env)
    assert proc.returncode == 2
    assert f"{db} is damaged" in _one_sentence(proc)


def test_a_database_path_that_is_a_folder(run_astro, astro_env, workspace):
    (workspace / ".astro" / "astro.db").mkdir(parents=True)
    proc = run_astro(["run", "Hello"], astro_env)
    assert proc.returncode == 2
    assert f"{workspace / '.astro' / 'astro.db'} is a folder" in _one_sentence(proc)


def _without_root_overrides() -> None:
    """In the child: drop the capabilities that let root write anywhere (DAC override, fowner), so
    a read-only folder is read-only to it too."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_a_read_only_workspace(run_astro, astro_env, workspace):
    workspace.chmod(0o555)
    try:
        preexec = _without_root_overrides if os.geteuid() == 0 else None
        proc = subprocess.run([sys.executable, "-m", "astro_cli", "run", "Hello"], env=astro_env, cwd=workspace,
                              capture_output=True, text=True, timeout=120, preexec_fn=preexec)
    finally:
        workspace.chmod(0o755)
    assert proc.returncode == 2, proc.stderr
    sentence = _one_sentence(proc)
    assert f"{workspace / '.astro' / 'astro.db'} cannot be written" in sentence and "read-only" in sentence


@pytest.mark.parametrize("layer", ["user", "project"])
def test_a_config_file_that_is_not_utf8(run_astro, astro_env, workspace, layer):
    path = (Path(astro_env["ASTRO_HOME"]) if layer == "user" else workspace / ".astro") / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("model: openai/fake-model\n# r\u00e9sum\u00e9\n".encode("latin-1"))
    proc = run_astro(["run", "Hello"], astro_env)
    assert proc.returncode == 2
    assert f"{path}: not UTF-8 text (byte 0xe9 at position 28, line 2); save it as UTF-8." in _one_sentence(proc)


def test_the_repl_offers_a_fresh_database_and_keeps_the_damaged_one(fake: FakeProvider, astro_env, workspace):
    pexpect = pytest.importorskip("pexpect")
    db = workspace / ".astro" / "astro.db"
    db.parent.mkdir()
    garbage = b"not sqlite at all " * 100
    db.write_bytes(garbage)
    env = dict(astro_env, TERM="dumb", COLUMNS="200", LINES="40")
    child = pexpect.spawn(sys.executable, ["-m", "astro_cli"], env=env, cwd=str(workspace), encoding="utf-8",
                          timeout=120, dimensions=(40, 200))
    try:
        child.expect("start a fresh database")
        child.sendline("y")
        child.expect("new session")
        child.expect("\n> ")
        assert child.waitnoecho(timeout=60)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    kept = list(db.parent.glob("astro.db.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == garbage
    assert sqlite3.connect(db).execute("SELECT count(*) FROM schema_migrations").fetchone()[0] > 0


OPEN_DATABASE = "import sys; from astro_cli.store.db import Database; Database(sys.argv[1]).close()"


def test_processes_opening_a_new_database_at_once_migrate_it_once(tmp_path):
    """Eight processes open one fresh database together (astro runs starting in a new workspace at the
    same moment): each migration is applied once and none of them fails."""
    for attempt in range(3):
        path = tmp_path / f"astro{attempt}.db"
        processes = [subprocess.Popen([sys.executable, "-c", OPEN_DATABASE, str(path)], text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(8)]
        failures = [err for p in processes for _out, err in [p.communicate(timeout=120)] if p.returncode != 0]
        assert failures == []
        with sqlite3.connect(path) as db:
            versions = [row[0] for row in db.execute("SELECT version FROM schema_migrations")]
        assert len(versions) == len(set(versions)) > 0
