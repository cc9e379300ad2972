"""Issue 20: reaching the group's server. Where the password comes from (and where never), one sentence
and exit 2 when the server is down or refuses the login, one retry of a lost connection, and a
session that keeps every message when the library goes away under it (the real process)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import yaml

from astro_cli.research.library.service import Library
from astro_cli.research.library.storage import LibraryUnavailable
from astro_cli.research.library.storage.pg_connect import redact_url
from tests.fakeprovider import FakeProvider
from tests.helpers import tool_results, trust_workspace, write_config
from tests.library_support import add_paper
from tests.pg_cluster import Cluster, free_port, system_bindir
from tests.pg_support import MEMBER, MEMBER_PASSWORD, member_url, new_database, pg_app


def _one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_a_server_that_is_down_is_one_sentence_naming_it_and_exit_2(run_astro, astro_env):
    port = free_port()  # nothing listens there
    env = {**astro_env, "ASTRO_LIBRARY_URL": f"postgresql://{MEMBER}@127.0.0.1:{port}/groupdb"}
    result = run_astro(["library", "list"], env)
    assert result.returncode == 2
    assert _one_error_line(result.stderr) == (
        f"error: The group library at postgresql://{MEMBER}@127.0.0.1:{port}/groupdb is not reachable: the "
        "connection was refused (is the server running and listening there?).")


def test_a_refused_login_names_the_user_and_never_shows_the_password(run_astro, astro_env, pg_server):
    url = member_url(pg_server, new_database(pg_server), with_password=False)
    env = {**astro_env, "ASTRO_LIBRARY_URL": url, "PGPASSWORD": "wrong-password-123"}
    result = run_astro(["library", "search", "walkers"], env)
    assert result.returncode == 2
    line = _one_error_line(result.stderr)
    assert line.startswith(f"error: The group library at {url} refused the login of {MEMBER}: it needs the password "
                           "given that it accepts")
    inline = url.replace(f"{MEMBER}@", f"{MEMBER}:wrong-password-456@")
    result = run_astro(["library", "list"], {**astro_env, "ASTRO_LIBRARY_URL": inline})
    assert result.returncode == 2 and "wrong-password-456" not in result.stderr + result.stdout
    assert "refused the login" in _one_error_line(result.stderr)


def test_the_password_comes_from_pgpassword_pgpass_or_the_key_store(tmp_path, pg_server, monkeypatch):
    url = member_url(pg_server, new_database(pg_server), with_password=False)
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-such-pgpass"))
    nothing = pg_app(tmp_path / "none", url)
    with pytest.raises(LibraryUnavailable, match=f"refused the login of {MEMBER}: it needs a password"):
        Library.of(nothing).store.paper("x")
    nothing.close()

    monkeypatch.setenv("PGPASSWORD", MEMBER_PASSWORD)
    with_env = pg_app(tmp_path / "env", url)
    assert Library.of(with_env).store.paper("x") is None
    with_env.close()

    monkeypatch.delenv("PGPASSWORD")
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"127.0.0.1:{pg_server.port}:*:{MEMBER}:{MEMBER_PASSWORD}\n")
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    with_pgpass = pg_app(tmp_path / "pgpass-ws", url)
    assert Library.of(with_pgpass).store.paper("x") is None
    with_pgpass.close()

    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-such-pgpass"))
    keyed = pg_app(tmp_path / "keys", url)
    keyed.home.root.mkdir(parents=True, exist_ok=True)
    (keyed.home.root / "keys.yaml").write_text(yaml.safe_dump({"library": MEMBER_PASSWORD}))
    assert Library.of(keyed).store.paper("x") is None
    assert keyed.redactor.redact(f"pw {MEMBER_PASSWORD}") == "pw [REDACTED:keys.yaml:library]"
    keyed.close()


def test_a_workspace_config_never_supplies_the_password(tmp_path, pg_server, cli, astro_env, workspace):
    url = member_url(pg_server, new_database(pg_server))  # with the password written in
    write_config(workspace / ".astro" / "config.yaml", {"library": {"database_url": url}})
    trust_workspace(workspace)
    result = cli(["library", "list"], astro_env)
    assert result.exit_code == 2
    assert "never from a workspace's config" in result.stderr and MEMBER_PASSWORD not in result.stderr
    # In the user's own config the same URL works, and is never shown with its password.
    write_config(Path(astro_env["ASTRO_HOME"]) / "config.yaml", {"library": {"database_url": url}})
    (workspace / ".astro" / "config.yaml").unlink()
    result = cli(["library", "list"], astro_env)
    assert result.exit_code == 0 and "The library is empty" in result.stdout


def test_an_untrusted_folder_cannot_point_the_library_at_a_server(run_astro, astro_env, workspace):
    write_config(workspace / ".astro" / "config.yaml",
                 {"library": {"database_url": "postgresql://evil@198.51.100.7/loot", "files_path": "/tmp/loot"}})
    result = run_astro(["library", "list"], astro_env)
    assert result.returncode == 0
    assert "The library is empty" in result.stdout  # the workspace's own library, untouched
    assert "library.database_url" in result.stderr and "library.files_path" in result.stderr


def test_a_url_with_a_password_is_redacted_wherever_it_is_shown():
    assert redact_url("see postgresql://alice:s3cr3t-pass@db:5432/astro now") == (
        "see postgresql://alice:[REDACTED:url password]@db:5432/astro now")
    assert redact_url("postgresql://alice@db/astro?password=s3cr3t") == (
        "postgresql://alice@db/astro?password=[REDACTED:password parameter]")
    assert redact_url("postgresql://alice@db/astro") == "postgresql://alice@db/astro"


def test_astro_library_url_names_the_setting(tmp_path):
    from astro_cli.config import load_settings

    settings = load_settings([], env={"ASTRO_LIBRARY_URL": "postgresql://a@h/db"})
    assert settings.get("library.database_url") == "postgresql://a@h/db"
    assert settings.source("library.database_url") == "env ASTRO_LIBRARY_URL"


@pytest.fixture
def own_server():
    """A server of this test's own: it is stopped and started again."""
    bindir = system_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed here")
    cluster = Cluster(bindir).start()
    cluster.create_role(MEMBER, MEMBER_PASSWORD)
    yield cluster
    cluster.remove()


def test_a_lost_connection_is_retried_once_then_reported(tmp_path, own_server):
    app = pg_app(tmp_path / "ws", member_url(own_server, new_database(own_server)))
    add_paper(app, "1202.3665")
    store = Library.of(app).store
    first = store._scalar("SELECT pg_backend_pid() AS pid")
    own_server.admin(f"SELECT pg_terminate_backend({first})")  # the server drops us (a restart, a network blip)
    assert store.paper("1202.3665")["title"] == "emcee: The MCMC Hammer"  # retried on a new connection
    assert store._scalar("SELECT pg_backend_pid() AS pid") != first
    own_server.stop()
    with pytest.raises(LibraryUnavailable, match="is not reachable: the connection was refused"):
        store.paper("1202.3665")
    own_server.restart()
    assert store.paper("1202.3665") is not None  # and it comes back by itself
    app.close()


def test_a_session_keeps_every_message_when_the_library_goes_away(run_astro, astro_env, fake: FakeProvider,
                                                                  own_server, workspace, tmp_path):
    database = new_database(own_server)
    url = member_url(own_server, database, with_password=False)
    seeded = pg_app(tmp_path / "seed", member_url(own_server, database))
    add_paper(seeded, "1202.3665")
    from astro_cli.research.library.parse import parse_paper

    parse_paper(Library.of(seeded), "1202.3665")
    seeded.close()

    def search(question: str) -> dict:
        return {"tool_calls": [{"name": "rag_search", "arguments": {"query": question}}]}

    def drop_connections(_body: dict) -> dict:  # astro's connection is cut between two steps
        own_server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'astro'")
        return search("how many walkers")

    def stop_server(_body: dict) -> dict:
        own_server.stop()
        return search("autocorrelation time")

    fake.add(search("acceptance fraction"), drop_connections, stop_server,
             {"text": "The acceptance fraction should be 0.2-0.5 (1202.3665)."})
    env = {**astro_env, "ASTRO_LIBRARY_URL": url, "PGPASSWORD": MEMBER_PASSWORD}
    result = run_astro(["run", "What acceptance fraction should emcee have?"], env)
    assert result.returncode == 0, result.stderr
    first, second, third = tool_results(fake.bodies()[3])
    assert "0.2 to 0.5" in first and "walkers" in second  # the lost connection was retried
    assert third.startswith("Error: The group library at") and "is not reachable: the connection was refused" in third
    assert "Traceback" not in result.stderr
    conn = sqlite3.connect(workspace / ".astro" / "astro.db")
    roles = [r[0] for r in conn.execute("SELECT role FROM agent_messages ORDER BY seq")]
    conn.close()
    # Every step is stored (the citation check then asks about 1202.3665, which the away library cannot confirm).
    assert roles[:8] == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant"]
    assert MEMBER_PASSWORD not in (workspace / ".astro" / "astro.db").read_bytes().decode("latin-1")


def test_config_show_never_prints_the_urls_password(cli, astro_env, tmp_path):
    write_config(Path(astro_env["ASTRO_HOME"]) / "config.yaml",
                 {"library": {"database_url": "postgresql://alice:hunter2-long@db.example.org/group"}})
    result = cli(["config", "show", "--json"], astro_env)
    assert result.exit_code == 0
    assert "hunter2-long" not in result.stdout and "postgresql://alice:[REDACTED:url password]@db.example.org/group" in result.stdout


def test_a_broken_key_store_is_one_sentence_only_when_it_is_needed(tmp_path, pg_server, monkeypatch):
    url = member_url(pg_server, new_database(pg_server), with_password=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-such-pgpass"))
    app = pg_app(tmp_path / "ws", url)
    app.home.root.mkdir(parents=True, exist_ok=True)
    (app.home.root / "keys.yaml").write_text("library: [unclosed\n")
    monkeypatch.setenv("PGPASSWORD", MEMBER_PASSWORD)
    assert Library.of(app).store.paper("x") is None  # PGPASSWORD works: the key store is never read
    app.close()
    monkeypatch.delenv("PGPASSWORD")
    app = pg_app(tmp_path / "ws", url)
    with pytest.raises(LibraryUnavailable, match="password could not be read from the key store: .*keys.yaml is not valid YAML"):
        Library.of(app).store.paper("x")
    app.close()
