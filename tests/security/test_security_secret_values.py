"""Issue 25: secrets known by value, not only by a variable's name. A password written into
ASTRO_LIBRARY_URL (the URL's userinfo or libpq's `?password=`) is in a variable whose name says
nothing; it must still reach no command, database, log, `config show` or model. Real processes:
`astro run` with the scripted model, a real PostgreSQL library, the warm worker."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import tool_results
from tests.pg_support import MEMBER, MEMBER_PASSWORD, new_database

DUMP = "env; echo URL=$ASTRO_LIBRARY_URL; tr '\\0' '\\n' < /proc/$PPID/environ"


def _url(cluster, form: str) -> str:
    database = new_database(cluster)
    if form == "userinfo":
        return f"postgresql://{MEMBER}:{MEMBER_PASSWORD}@127.0.0.1:{cluster.port}/{database}"
    return f"postgresql://{MEMBER}@127.0.0.1:{cluster.port}/{database}?password={MEMBER_PASSWORD}"


@pytest.mark.parametrize("form", ["userinfo", "parameter"])
def test_a_password_in_the_library_url_reaches_no_command_database_log_or_model(form, pg_server, fake, astro_env,
                                                                              workspace, run_astro):
    env = {**astro_env, "ASTRO_LIBRARY_URL": _url(pg_server, form), "ASTRO_DEBUG": "1"}
    fake.add(
        {"tool_calls": [{"name": "run_bash", "arguments": {"command": f"{DUMP} > env.txt; cat env.txt"}},
                        {"name": "rag_search", "arguments": {"query": "albedo"}}]},  # the library is really used
        # A model repeating it: the user's own terminal shows the answer as streamed, what is stored is redacted.
        {"text": f"I saw postgresql://x:{MEMBER_PASSWORD}@h/db"},
    )
    result = run_astro(["run", "--allow", "run_bash", "show me your environment"], env)
    assert result.returncode == 0, result.stderr
    shown, searched = tool_results(fake.bodies()[1])
    assert "PATH=" in shown and "URL=\n" in shown + "\n"  # the command ran; the variable was not passed on
    database = b"".join(p.read_bytes() for p in (workspace / ".astro").glob("astro.db*"))
    log = (Path(env["ASTRO_HOME"]) / "logs" / "astro.log").read_text()
    config = run_astro(["config", "show", "--json"], env)
    assert config.returncode == 0, config.stderr
    value = next(row["value"] for row in json.loads(config.stdout) if row["key"] == "library.database_url")
    assert "[REDACTED:" in value and MEMBER in value  # still useful: who and where, not the password
    for where, text in (("requests", json.dumps(fake.bodies())), ("command output", (workspace / "env.txt").read_text()),
                        ("session database", database.decode("latin-1")), ("debug log", log),
                        ("stderr", result.stderr), ("config show", config.stdout)):
        assert MEMBER_PASSWORD not in text, where
    import sqlite3

    db = sqlite3.connect(workspace / ".astro" / "astro.db")
    [(session_id,)] = db.execute("SELECT id FROM sessions").fetchall()
    db.close()
    export = run_astro(["sessions", "export", session_id, "--format", "json"], env)
    assert MEMBER_PASSWORD not in export.stdout and "[REDACTED:" in export.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the worker's /proc environment")
def test_the_warm_worker_started_with_a_library_url_holds_no_password(tmp_path):
    from tests.worker_support import new_worker

    url = f"postgresql://{MEMBER}:{MEMBER_PASSWORD}@127.0.0.1:5432/db?sslpassword=other-secret-77"
    worker = new_worker(tmp_path, ASTRO_LIBRARY_URL=url, GITHUB_PAT_VALUE="ghp_" + "k" * 36)
    try:
        environ = Path(f"/proc/{worker.status()['pid']}/environ").read_bytes()
        assert b"ASTRO_RUNTIME_DIR=" in environ
        for secret in (MEMBER_PASSWORD, "other-secret-77", "ghp_kkkk"):
            assert secret.encode() not in environ
    finally:
        worker.stop()


def test_secrets_are_recognised_by_their_shape_in_every_redaction():
    from astro_cli.security.secrets import Redactor, environment_without_secrets

    redactor = Redactor.from_environment({"ASTRO_LIBRARY_URL": "postgresql://u:longpassword9@h/db"})
    samples = {
        "postgresql://u:pw@db/x": "pw@",
        "host=db password='two words' user=u": "two words",
        "dsn ?password=hunter22&sslmode=require": "hunter22",
        "OpenAI sk-proj-AbCdEfGhIjKlMnOpQrStUv": "sk-proj-AbCd",
        "Anthropic sk-ant-api03-AbCdEfGhIjKl-mnop": "sk-ant-api03",
        "ghp_" + "a" * 36: "ghp_aaa",
        "github_pat_" + "B" * 40: "github_pat_BBB",
        "aws AKIAIOSFODNN7EXAMPLE": "AKIAIOSFODNN7EXAMPLE",
        "ads token Xy7" + "q" * 37: "Xy7qqq",
        "a log line {'password': 'longpassword9'}": "longpassword9",  # the URL's password, known by value
    }
    for text, secret in samples.items():
        assert secret not in redactor.redact(text), text
        assert "[REDACTED:" in redactor.redact(text)
    for harmless in ("commit 0123456789abcdef0123456789abcdef01234567", "arXiv:2101.00001v2",
                     "https://github.com/dfm/emcee", "disk-averaged temperature", "T = 1500 K"):
        assert redactor.redact(harmless) == harmless
    env = environment_without_secrets({"ASTRO_LIBRARY_URL": "postgresql://u:pw@h/d", "PATH": "/bin",
                                       "NOTE": "sk-ant-api03-AbCdEfGhIjKl-mnop"})
    assert env == {"PATH": "/bin"}
