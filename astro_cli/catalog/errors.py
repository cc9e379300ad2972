"""The one failure the catalogue code raises: its message is one sentence for the model and the user."""

from __future__ import annotations


class CatalogError(Exception):
    """A catalogue query could not be made or read; the message says why and what to do."""


class QueryRejected(CatalogError):
    """The service refused the ADQL (its own message): the model may correct it and retry once."""
