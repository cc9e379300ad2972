"""Where the paper library is kept: the workspace's SQLite file, or a group's PostgreSQL server.

`library_store(app)` is the one store of the process (`app.service`), chosen by
`library.database_url` (unset: the workspace's own file). Everything else in research/ reaches the
database through it (base.py lists what it offers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.research.library.storage.base import (
    ChunkRow,
    LibraryStore,
    LibraryUnavailable,
    NoteScope,
    VectorsUnavailable,
)

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.research.library.storage.pg_store import PostgresStore

__all__ = ["ChunkRow", "LibraryStore", "LibraryUnavailable", "NoteScope", "VectorsUnavailable", "library_store",
           "is_shared", "has_library", "member_name", "note_scope", "open_postgres"]

def library_store(app: AppContext) -> LibraryStore:
    """The library's store for this process, opened on first use."""
    return app.service(LibraryStore, lambda: _open(app))


def _open(app: AppContext) -> LibraryStore:
    url = app.settings.get("library.database_url")
    if not url:
        from astro_cli.research.library.storage.sqlite_store import SqliteStore

        return SqliteStore(app.db)
    return open_postgres(app, url, source=app.settings.source("library.database_url"))


def open_postgres(app: AppContext, url: str, source: str = "command line") -> PostgresStore:
    """A store on a PostgreSQL server (connected on first use); a password is never taken from a
    workspace's config file."""
    from astro_cli.research.library.storage.pg_connect import (
        LibraryUrlError,
        key_store_password,
        parse_address,
    )
    from astro_cli.research.library.storage.pg_store import PostgresStore

    address = parse_address(url)
    if address.password:
        if source == str(app.workspace.config_path):
            raise LibraryUrlError(
                f"{source} writes a password into library.database_url; astro takes it from PGPASSWORD, "
                "~/.pgpass or its key store (`library`), never from a workspace's config.")
        app.redactor.add("library.database_url password", address.password)
    store = PostgresStore(address, lambda: key_store_password(app.home.root))
    app.on_close(store.close)
    return store


def is_shared(app: AppContext) -> bool:
    """Is the library on a group's server (other people's astro writes to it too)?"""
    return bool(app.settings.get("library.database_url"))


def has_library(app: AppContext) -> bool:
    """Can there be papers at all? (a workspace without a database has none; reading it would create one)"""
    return is_shared(app) or app.workspace.db_path.exists()


def member_name(app: AppContext) -> str:
    """Who is adding: `library.member`, else the login name."""
    configured = app.settings.get("library.member")
    if configured:
        return str(configured)
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def note_scope(app: AppContext) -> NoteScope:
    """The notes a sync of this workspace may change: this member's, of this folder, on this machine."""
    import socket

    return NoteScope(member_name(app), f"{socket.gethostname()}:{app.workspace.root}")
