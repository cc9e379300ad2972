"""A throw-away PostgreSQL server for the tests and benchmarks: initdb, pg_ctl and a temporary folder.

The suite starts its own server (no mocks of the database) on a free port of 127.0.0.1 and removes
it at the end. PostgreSQL refuses to run as root, so when the tests run as root the cluster folder
is handed to an unprivileged account (`postgres` when the system packages created it, else
`nobody`) and initdb, pg_ctl and the server run as that account.

Two kinds of binaries are used:
- the system's (Debian's postgresql-15, /usr/lib/postgresql/15/bin; `.ci/run` installs it when
  missing): the server a department runs; Debian 12 has no pgvector package, so vectors are absent;
- `pgserver`'s (a PyPI wheel with PostgreSQL 16 and the pgvector extension, a dev dependency): the
  same code against a server that has pgvector.

Logins: the superuser `astro_admin` has a password (scram-sha-256 over TCP); `cluster.url()` gives
a URL without it and `cluster.password` is what PGPASSWORD, ~/.pgpass or the key store must supply.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SUPERUSER = "astro_admin"
PASSWORD = "pg-test-password-7f3a"  # a throw-away cluster's, only ever on 127.0.0.1
SYSTEM_BINDIRS = ("/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin", "/usr/local/bin")


def system_bindir() -> Path | None:
    """The folder of the system's initdb, pg_ctl and postgres, newest major version first."""
    candidates = sorted(glob.glob(SYSTEM_BINDIRS[0]), key=lambda p: int(p.split("/")[-2]) if
                        p.split("/")[-2].isdigit() else 0, reverse=True)
    for folder in [*candidates, *SYSTEM_BINDIRS[1:]]:
        path = Path(folder)
        if all((path / tool).exists() for tool in ("initdb", "pg_ctl", "postgres")):
            return path
    found = shutil.which("pg_ctl")
    return Path(found).resolve().parent if found else None


def pgserver_bindir() -> Path | None:
    """The binaries of the pgserver wheel (PostgreSQL with pgvector), when it is installed."""
    import importlib.util

    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return path if (path / "postgres").exists() else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _runner_account() -> pwd.struct_passwd | None:
    """Who runs the server: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("the tests run as root and there is no 'postgres' or 'nobody' account to run PostgreSQL")


@dataclass
class Cluster:
    bindir: Path
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="astro-pg-")))
    port: int = field(default_factory=free_port)
    password: str = PASSWORD
    durable: bool = False  # True: fsync and full page writes on, as a real server runs (benchmarks)
    started: bool = False

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def url(self, database: str = "postgres", user: str = SUPERUSER, password: str | None = None) -> str:
        secret = f":{password}" if password else ""
        return f"postgresql://{user}{secret}@127.0.0.1:{self.port}/{database}"

    def _run(self, args: list[str], **kwargs) -> subprocess.CompletedProcess:  # noqa: ANN003
        account = _runner_account()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
        lib = self.bindir.parent / "lib"
        if (lib / "libpq.so.5").exists():  # pgserver's own libraries
            env["LD_LIBRARY_PATH"] = str(lib)
        extra = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []} if account else {}
        return subprocess.run(args, env=env, cwd=self.folder, capture_output=True, text=True, check=False,
                              timeout=120, **extra, **kwargs)

    def start(self) -> Cluster:
        account = _runner_account()
        pwfile = self.folder / "pwfile"
        pwfile.write_text(self.password + "\n")
        if account is not None:
            for path in (self.folder, pwfile):
                os.chown(path, account.pw_uid, account.pw_gid)
        initdb = self._run([str(self.bindir / "initdb"), "-D", str(self.data), "-U", SUPERUSER,
                            f"--pwfile={pwfile}", "--auth-host=scram-sha-256", "--auth-local=trust",
                            "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
        pwfile.unlink()
        if initdb.returncode != 0:
            raise RuntimeError(f"initdb failed: {initdb.stderr or initdb.stdout}")
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories={self.folder} "
                   "-c max_connections=80 -c shared_buffers=128MB")
        if not self.durable:  # a test server's data need not survive a crash
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        started = self._run([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
                             "-t", "60", "-o", options, "start"])
        if started.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {started.stderr}\n{self.log_text()}")
        self.started = True
        return self

    def stop(self, mode: str = "fast") -> None:
        if self.started:
            self._run([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"])
            self.started = False

    def restart(self) -> None:
        """Stop and start again on the same port (a server that went away and came back)."""
        self.stop()
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories={self.folder} "
                   "-c fsync=off -c max_connections=80")
        self._run([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-o", options,
                   "start"])
        self.started = True

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    # --- administration, as the superuser (the SQL a DBA runs) ------------------------------------
    def admin(self, sql: str, database: str = "postgres", autocommit: bool = True) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.url(database, password=self.password), autocommit=autocommit) as conn:
            cursor = conn.execute(sql)
            return cursor.fetchall() if cursor.description else []

    def create_database(self, name: str, owner: str = SUPERUSER) -> str:
        self.admin(f'CREATE DATABASE "{name}" OWNER "{owner}"')
        return name

    def create_role(self, name: str, password: str) -> None:
        self.admin(f"CREATE ROLE \"{name}\" LOGIN PASSWORD '{password}'")

    def has_vector(self) -> bool:
        return bool(self.admin("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"))

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.admin("SELECT 1")
                return
            except Exception:  # noqa: BLE001 - still starting
                time.sleep(0.2)
        raise RuntimeError(f"the server did not come up: {self.log_text()}")
