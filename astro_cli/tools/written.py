"""The files astro's tools wrote in this session: the rule for replacing a workspace file.

A name taken by a file in this record (a table queried again, a figure drawn again) may be written
over without asking; a name taken by anything else (the researcher's own file, another session's,
a link a project shipped) is someone else's, and replacing it needs the researcher's permission, as
file_write does. Tools that write without asking (query_catalog, plot_table, save_note) keep to it:
they write beside such a file under a fresh name instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class SessionWrites:
    """One session's written files (real paths); held in the session's feature state."""

    paths: set[Path] = field(default_factory=set)

    def add(self, path: Path) -> None:
        self.paths.add(path.resolve())

    def may_replace(self, path: Path) -> bool:
        """Did this session write the file now at `path` (so writing over it needs no question)?"""
        return path.resolve() in self.paths
