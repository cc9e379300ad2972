"""The debug log: `astro --debug ...` or ASTRO_DEBUG=1 writes astro's records to ASTRO_HOME/logs/astro.log.

What it holds: the `astro_cli` loggers at DEBUG level (each tool call and the start of its result,
model requests, the warm worker's decisions, and every exception astro handles without stopping,
with its traceback). The file is rotated (MAX_BYTES, BACKUPS old files kept) and readable by its
owner only. Every record passes through the Redactor of security/secrets.py on its way to the file:
keys in the environment and in ASTRO_HOME/keys.yaml, and secret variables set later in the session,
appear as [REDACTED:NAME]. Nothing is global beyond the logging module's own handler on the
`astro_cli` logger; with the log off, no handler is made and records are dropped cheaply.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.security.secrets import Redactor

ON = frozenset({"1", "true", "yes", "on"})
LOGGER = "astro_cli"
FILE_NAME = "astro.log"
MAX_BYTES = 2 << 20
BACKUPS = 3


def wanted(env: Mapping[str, str]) -> bool:
    return (env.get("ASTRO_DEBUG") or "").strip().lower() in ON


def enable_from_environment(env: Mapping[str, str]) -> Path | None:
    """Turn the log on when ASTRO_DEBUG asks for it (`--debug` sets it); the log's path, or None."""
    if not wanted(env):
        return None
    from astro_cli.workspace import AstroHome

    return enable(AstroHome.default(dict(env)).root)


def enable(home: Path) -> Path | None:
    """One rotating, redacting handler on the `astro_cli` logger (once per process); None if the
    folder cannot be written (the command goes on without a log)."""
    from logging.handlers import RotatingFileHandler

    from astro_cli.keystore import KeyStore
    from astro_cli.security.secrets import Redactor

    logger = logging.getLogger(LOGGER)
    path = home / "logs" / FILE_NAME
    for handler in logger.handlers:
        if isinstance(handler, RotatingFileHandler) and handler.baseFilename == str(path.absolute()):
            return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
        os.chmod(path, 0o600)
    except OSError:
        return None
    # Before any app exists: a KeyStore of its own (the one read of keys.yaml that is not the app's).
    handler.setFormatter(RedactingFormatter(Redactor.from_environment(os.environ, KeyStore.at(home).secrets())))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    return path


class RedactingFormatter(logging.Formatter):
    """Formats a record (message, arguments, traceback) and replaces every known secret in the result."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__("%(asctime)s pid %(process)d %(threadName)s %(name)s %(levelname)s %(message)s")
        self.redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        self._learn_new_secrets()
        return self.redactor.redact(super().format(record))

    def _learn_new_secrets(self) -> None:
        """A key set during the session (typed at the first run, for example) is redacted from then on."""
        from astro_cli.security.secrets import secret_environment_names

        for name in secret_environment_names(os.environ):
            value = os.environ[name]
            if not self.redactor.contains_secret(value):
                self.redactor.add(name, value)
