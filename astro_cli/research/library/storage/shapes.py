"""What the library's store hands back and raises, apart from the store: the service and the
commands name these without reaching into a database's statements."""

from __future__ import annotations

from dataclasses import dataclass

from astro_cli.research.records import Paper


@dataclass(frozen=True)
class Replaced:
    """What indexing a paper wrote: the paper's row as it now stands, and its chunks' ids in order."""

    paper: Paper
    chunk_ids: list[int]


class LibraryUnavailable(Exception):
    """The library's database cannot be reached or refused us; one sentence naming where and why."""


@dataclass(frozen=True)
class NoteScope:
    """Whose notes folder a sync may change: in a shared library, a member's notes of one workspace."""

    added_by: str
    workspace: str
