"""Reaching the group's PostgreSQL server: the URL, the password, and one sentence when it fails.

The URL names the server (`postgresql://alice@db.example.org/astro`). The password comes from
where PostgreSQL's own tools look (PGPASSWORD, ~/.pgpass or PGPASSFILE: libpq reads them), then
from astro's key store (the key named `library` in ASTRO_HOME/keys.yaml). A password written into
the URL is accepted from the user's own config or the environment, never from a workspace's
config (that file may come from anyone). Wherever a URL is shown, its password is replaced by
`[REDACTED:url password]` (security/secrets.py, the one redaction; `?password=` too); the password
itself is given to the redactor, so no log, error or stored text holds it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from astro_cli.research.library.storage.shapes import LibraryUnavailable

if TYPE_CHECKING:
    import psycopg

    from astro_cli.keystore import KeyStore

KEY_NAME = "library"  # the key store entry that holds the group library's password
SCHEMES = ("postgresql://", "postgres://")
CONNECT_TIMEOUT = 10


class LibraryUrlError(LibraryUnavailable):
    """A `library.database_url` astro cannot use; one sentence."""


@dataclass(frozen=True)
class ServerAddress:
    """A PostgreSQL URL taken apart: what to connect to, and how to name it without the password."""

    url: str
    host: str
    port: str
    dbname: str
    user: str
    password: str | None

    @property
    def shown(self) -> str:
        """postgresql://user@host:port/db, never with the password."""
        who = f"{self.user}@" if self.user else ""
        return f"postgresql://{who}{self.host}:{self.port}/{self.dbname}"


def is_postgres_url(text: str | None) -> bool:
    return bool(text) and str(text).strip().lower().startswith(SCHEMES)


def redact_url(text: str) -> str:
    """The URL (or any text holding one) with every password in it redacted (userinfo or parameter)."""
    from astro_cli.security.secrets import redact_shapes

    return redact_shapes(text)


def parse_address(url: str) -> ServerAddress:
    from psycopg.conninfo import conninfo_to_dict

    text = url.strip()
    if not is_postgres_url(text):
        raise LibraryUrlError(f"'{redact_url(text)}' is not a PostgreSQL URL; write postgresql://USER@HOST/DATABASE.")
    try:
        parts = conninfo_to_dict(text)
    except Exception as exc:  # noqa: BLE001 - psycopg raises ProgrammingError with libpq's words
        raise LibraryUrlError(f"'{redact_url(text)}' is not a PostgreSQL URL astro can read ({_first_line(exc)}).") from None
    host = str(parts.get("host") or os.environ.get("PGHOST") or "localhost")
    return ServerAddress(
        url=text, host=host, port=str(parts.get("port") or os.environ.get("PGPORT") or "5432"),
        dbname=str(parts.get("dbname") or os.environ.get("PGDATABASE") or parts.get("user") or _login()),
        user=str(parts.get("user") or os.environ.get("PGUSER") or _login()),
        password=str(parts["password"]) if parts.get("password") else None,
    )


def _login() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "astro"


def key_store_password(keys: KeyStore) -> str | None:
    """The password kept in astro's key store under `library` (`astro keys set library`), if any;
    a broken keys.yaml is one sentence naming it. `keys`: the app's one reader of keys.yaml."""
    from astro_cli.keystore import KeyStoreError

    try:
        return keys.get(KEY_NAME)
    except KeyStoreError as exc:
        raise LibraryUnavailable(f"The group library's password could not be read from the key store: {exc}") from None


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().split("\n")[0]


def explain(address: ServerAddress, exc: BaseException, lost: bool = False) -> LibraryUnavailable:
    """One sentence for a failed connection: where, and why in a person's words."""
    text = " ".join(str(exc).split())
    lower = text.lower()
    where = f"the group library at {address.shown}"
    if "password authentication failed" in lower or "no password supplied" in lower:
        how = "a password" if "no password supplied" in lower else "the password given"
        reason = (f"refused the login of {address.user}: it needs {how} that it accepts (set PGPASSWORD, "
                  f"add it to ~/.pgpass, or keep it in astro's key store as '{KEY_NAME}')")
    elif "role" in lower and "does not exist" in lower:
        reason = f"refused the login: there is no role {address.user} on that server"
    elif "database" in lower and "does not exist" in lower:
        reason = f"has no database {address.dbname} (the server's administrator creates it; see docs/group-library.md)"
    elif "pg_hba.conf" in lower:
        reason = "refused the login: the server's pg_hba.conf does not let this machine or user in"
    elif "connection refused" in lower:
        reason = "is not reachable: the connection was refused (is the server running and listening there?)"
    elif "timeout" in lower or "timed out" in lower:
        reason = "is not reachable: the connection timed out"
    elif "resolve host" in lower or "name or service not known" in lower or "translate host name" in lower:
        reason = f"is not reachable: the host name {address.host} is not known"
    elif lost:
        reason = f"was lost and could not be reached again ({_reason_tail(text)})"
    else:
        reason = f"could not be used ({_reason_tail(text)})"
    sentence = f"{where[0].upper()}{where[1:]} {reason}."
    return LibraryUnavailable(redact_url(sentence))


def _reason_tail(text: str) -> str:
    """libpq's message without its 'connection to server at ... failed:' preamble."""
    tail = re.sub(r'^.*?failed:\s*', "", text)
    tail = re.sub(r"^(FATAL|ERROR):\s*", "", tail)
    return tail[:200] or "no reason given"


def connect(address: ServerAddress, fallback_password: Callable[[], str | None]) -> psycopg.Connection[Any]:
    """A connection in autocommit mode with rows as dicts; LibraryUnavailable with one sentence.
    `fallback_password` (the key store) is asked only when PGPASSWORD and ~/.pgpass gave nothing."""
    import psycopg
    from psycopg.rows import dict_row

    options: dict[str, Any] = {"autocommit": True, "row_factory": dict_row, "application_name": "astro"}
    if "connect_timeout" not in address.url:
        options["connect_timeout"] = CONNECT_TIMEOUT
    try:
        return psycopg.connect(address.url, **options)
    except psycopg.OperationalError as exc:
        needs_password = any(s in str(exc).lower() for s in ("password authentication failed", "no password supplied"))
        password = fallback_password() if needs_password and not address.password else None
        if not password:
            raise explain(address, exc) from None
    try:  # PGPASSWORD and ~/.pgpass gave nothing that works: the key store's password
        return psycopg.connect(address.url, password=password, **options)
    except psycopg.OperationalError as exc:
        raise explain(address, exc) from None
