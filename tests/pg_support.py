"""Fixtures for the group-library tests: a real PostgreSQL server the suite starts and stops itself.

`pg_server` is the system's PostgreSQL (Debian's postgresql-15 here; `.ci/run` installs it when it
is missing), which has no pgvector. `pgvector_server` is the pgserver wheel's PostgreSQL 16 with
pgvector. Each test gets a database of its own, owned by an ordinary role (`astro_member`), as a
DBA would set it up (docs/group-library.md); `vector=True` runs the DBA's CREATE EXTENSION first.
Import the fixtures into a test module to use them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from astro_cli.app import AppContext
from tests.library_support import make_app
from tests.pg_cluster import Cluster, pgserver_bindir, system_bindir

MEMBER = "astro_member"
MEMBER_PASSWORD = "member-pass-3c9e1f"


def _start(bindir: Path | None, what: str) -> Iterator[Cluster]:
    if bindir is None:
        if os.environ.get("CI"):
            pytest.fail(f"{what} is missing on CI (.ci/run installs postgresql)")
        pytest.skip(f"{what} is not installed here")
    cluster = Cluster(bindir).start()
    try:
        cluster.create_role(MEMBER, MEMBER_PASSWORD)
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Cluster]:
    yield from _start(system_bindir(), "PostgreSQL (apt-get install postgresql)")


@pytest.fixture(scope="session")
def pgvector_server() -> Iterator[Cluster]:
    yield from _start(pgserver_bindir(), "pgserver (PostgreSQL with pgvector, a dev dependency)")


def new_database(cluster: Cluster, vector: bool = False) -> str:
    """A fresh database owned by the member role; with the pgvector extension when asked."""
    name = f"astro_{uuid.uuid4().hex[:10]}"
    cluster.create_database(name, owner=MEMBER)
    if vector:
        cluster.admin("CREATE EXTENSION vector", database=name)
    return name


def member_url(cluster: Cluster, database: str, with_password: bool = True) -> str:
    return cluster.url(database, user=MEMBER, password=MEMBER_PASSWORD if with_password else None)


@pytest.fixture
def pg_url(pg_server: Cluster) -> Iterator[str]:
    """A URL (with the member's password, as a user's own config may hold it) to a new empty database."""
    name = new_database(pg_server)
    yield member_url(pg_server, name)
    pg_server.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pg_app(root: Path, url: str, **settings: Any) -> AppContext:
    return make_app(root, **{"library.database_url": url, **settings})
