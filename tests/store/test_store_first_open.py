"""Several astro processes at a new workspace's database at once: all open it, none loses another's work."""

from __future__ import annotations

import sqlite3
import threading

import pytest


def test_a_database_another_process_is_creating_opens_once_that_process_is_done(tmp_path):
    """Two `library add` in a fresh folder (the CI failure of stop 40): while one process still writes
    the new file in its first journal mode, SQLite refuses the other's switch to WAL at once, without
    waiting. astro waits for it instead of saying the database "cannot be opened"."""
    from astro_cli.store.db import Database

    path = tmp_path / "astro.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE first_writer (x)")
    other.execute("BEGIN IMMEDIATE")  # the other process, mid-way through its first write
    other.execute("INSERT INTO first_writer VALUES (1)")
    done = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    done.start()
    try:
        database = Database(path)
    finally:
        done.join()
        other.close()
    assert database.query("PRAGMA journal_mode") == [{"journal_mode": "wal"}]
    assert database.query("SELECT count(*) AS n FROM first_writer") == [{"n": 1}]  # nothing of theirs lost
    database.close()


def test_a_database_locked_for_the_whole_wait_says_so(tmp_path):
    """Held past the wait (another command stuck mid-write): a sentence about the lock, not about permissions."""
    from astro_cli.store.db import switch_to_wal
    from astro_cli.store.db_errors import unusable_sentence

    path = tmp_path / "astro.db"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("CREATE TABLE t (x)")
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO t VALUES (1)")
    mine = sqlite3.connect(path, isolation_level=None, timeout=0.1)
    with pytest.raises(sqlite3.OperationalError) as caught:
        switch_to_wal(mine, timeout=0.3)
    sentence = unusable_sentence(path, caught.value)
    assert "locked by another process" in sentence and "write to" not in sentence
    other.execute("COMMIT")
    switch_to_wal(mine, timeout=0.3)  # free again: it switches
    assert mine.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    mine.close()
    other.close()


def test_a_session_opened_while_a_reading_command_cleans_up_is_kept(workspace, run_astro, astro_env, monkeypatch):
    """Two terminals in a fresh folder: `astro sessions list` creates the database, finds nothing and
    removes the empty file as it ends; `astro run` opened that file meanwhile and writes its session
    after. The session must be kept, not written into a deleted file (the two processes are two
    AppContexts here, so the moment between them is certain)."""
    from astro_cli.bootstrap import build_app

    for key, value in astro_env.items():
        monkeypatch.setenv(key, value)
    reader = build_app(workspace=workspace)
    writer = build_app(workspace=workspace)
    assert reader.sessions.list() == []  # creates .astro/astro.db, writes nothing
    assert writer.sessions.list() == []  # opens the same file; its first message is still being typed
    reader.close()  # the database it made is empty: cleaned up here
    session_id = writer.sessions.create(str(workspace), "openai/gpt-4o-mini")
    writer.sessions.append(session_id, {"role": "user", "content": "Which Cepheids are in M31?"})
    writer.close()
    listed = run_astro(["sessions", "list"], astro_env)
    assert session_id in listed.stdout, listed.stdout + listed.stderr
    with sqlite3.connect(workspace / ".astro" / "astro.db") as conn:
        stored = [row[0] for row in conn.execute("SELECT message FROM agent_messages")]
    assert any("Which Cepheids are in M31?" in message for message in stored)


def test_a_process_opening_while_the_empty_database_is_removed_makes_a_new_one(tmp_path):
    """The remover holds the folder while it deletes; an opener waits, then starts a fresh database."""
    from astro_cli.store.db import Database
    from astro_cli.store.locks import sole_use

    folder = tmp_path / ".astro"
    Database(folder / "astro.db").close()
    opened: list[Database] = []
    with sole_use(folder) as alone:
        assert alone
        opener = threading.Thread(target=lambda: opened.append(Database(folder / "astro.db")))
        opener.start()
        opener.join(0.3)
        assert opener.is_alive() and not opened  # it waits for the removal to finish
        for leftover in folder.iterdir():
            leftover.unlink()
        folder.rmdir()
    opener.join(30)
    database = opened[0]
    with sole_use(folder) as alone:
        assert not alone  # the new opener holds it: nothing removes its database now
    database.execute("CREATE TABLE kept (x)")
    database.close()
    assert (folder / "astro.db").is_file()
