"""Where the paper library is kept: the workspace's SQLite file, or a group's PostgreSQL server.

`open_store` opens the one store of the process (the `Library` service keeps it), chosen by
`library.database_url` (unset: the workspace's own file). Everything else in research/ reaches the
database through the library (base.py lists what a store offers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from astro_cli.research.library.storage.base import LibraryStore
from astro_cli.research.library.storage.shapes import LibraryUnavailable, NoteScope

if TYPE_CHECKING:
    from astro_cli.config import Settings
    from astro_cli.keystore import KeyStore
    from astro_cli.research.library.storage.pg_store import PostgresStore
    from astro_cli.security.secrets import Redactor
    from astro_cli.store.db import Database
    from astro_cli.workspace import Workspace

__all__ = ["LibraryStore", "LibraryUnavailable", "NoteScope", "open_store",
           "has_library", "member_name", "open_postgres"]


def open_store(settings: Settings, workspace: Workspace, keys: KeyStore, db: Callable[[], Database],
               redactor: Callable[[], Redactor], on_close: Callable[[Callable[[], None]], None]) -> LibraryStore:
    """The store `library.database_url` names (unset: the workspace's own file, `db`)."""
    url = settings.typed["library.database_url"]
    if not url:
        from astro_cli.research.library.storage.sqlite_store import SqliteStore

        return SqliteStore(db())
    return open_postgres(url, workspace, keys, redactor(), on_close, source=settings.source("library.database_url"))


def open_postgres(url: str, workspace: Workspace, keys: KeyStore, redactor: Redactor,
                  on_close: Callable[[Callable[[], None]], None], source: str = "command line") -> PostgresStore:
    """A store on a PostgreSQL server (connected on first use); a password is never taken from a
    workspace's config file. `keys`: the app's one reader of keys.yaml (the `library` key)."""
    from astro_cli.research.library.storage.pg_connect import (
        LibraryUrlError,
        key_store_password,
        parse_address,
    )
    from astro_cli.research.library.storage.pg_store import PostgresStore

    address = parse_address(url)
    if address.password:
        if source == str(workspace.config_path):
            raise LibraryUrlError(
                f"{source} writes a password into library.database_url; astro takes it from PGPASSWORD, "
                "~/.pgpass or its key store (`library`), never from a workspace's config.")
        redactor.add("library.database_url password", address.password)
    store = PostgresStore(address, lambda: key_store_password(keys))
    on_close(store.close)
    return store


def has_library(settings: Settings, workspace: Workspace) -> bool:
    """Can there be papers at all? (a workspace without a database has none; reading it would create one)"""
    return bool(settings.typed["library.database_url"]) or workspace.db_path.exists()


def member_name(settings: Settings) -> str:
    """Who is adding: `library.member`, else the login name."""
    configured = settings.typed["library.member"]
    if configured:
        return str(configured)
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
