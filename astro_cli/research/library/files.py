"""Where a paper's files live, and the only folders they are ever read from.

A row's path comes from a database other people write (a group library, a shipped .astro/astro.db),
so it is never trusted to name a file: it must lead into the paper folders (the workspace's papers/
and `library.files_path`) and never into a key store or astro's own state.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.config import Settings
    from astro_cli.research.records import Paper
    from astro_cli.security.paths import Confinement
    from astro_cli.workspace import Workspace

log = logging.getLogger(__name__)

FILE_KEYS = ("pdf_path", "source_path")


class PaperFiles:
    """The paper folders of one workspace, and the checks every stored path goes through."""

    def __init__(self, settings: Settings, workspace: Workspace, confinement: Callable[[], Confinement]) -> None:
        self.settings = settings
        self.workspace = workspace
        self._confinement = confinement  # built by the app on first use (it reads allowed_paths, hooks)

    @property
    def confinement(self) -> Confinement:
        return self._confinement()

    @property
    def papers_dir(self) -> Path:
        """Where the papers' files are kept: `library.files_path` (a folder the group shares, say), else papers/."""
        configured = self.settings.typed["library.files_path"]
        return Path(configured).expanduser().resolve() if configured else self.workspace.papers_dir

    def folder(self) -> Path:
        """The papers' folder, made ready for writing (papers/ is refused when a link leads it elsewhere)."""
        if self.settings.typed["library.files_path"]:
            folder = self.papers_dir
        else:
            folder = self.confinement.folder(self.workspace.papers_dir, "The papers")
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def stored_path(self, raw: str | Path) -> str:
        """Paths inside the workspace are stored relative to it, so a moved workspace keeps working."""
        path = Path(raw)
        if not path.is_absolute():
            return str(path)  # already relative to the workspace (a row copied from another library)
        try:
            return str(path.resolve().relative_to(self.workspace.root.resolve()))
        except ValueError:
            return str(path)

    def roots(self) -> tuple[Path, ...]:
        """The only folders a paper's files are read from (resolved): the workspace's papers/ and
        `library.files_path`. A local file the user adds is copied into them (local_add.py)."""
        roots = (self.workspace.papers_dir.resolve(), self.papers_dir)
        return tuple(dict.fromkeys(roots))

    def confined(self, path: Path) -> Path | None:
        """`path` resolved (links followed), or None when it lies outside the paper folders or in a key store."""
        resolved = path.resolve()
        if not any(resolved == root or resolved.is_relative_to(root) for root in self.roots()):
            return None
        guard = self.confinement  # key stores and astro's own state, even inside a paper folder
        return None if guard.is_secret(resolved) or guard.is_protected(resolved) else resolved

    def resolve(self, stored: str | None) -> Path | None:
        """The real path of a stored pdf_path / source_path, or None when it names no file astro may read.

        In a shared library the row may name another member's file: the same name in this member's
        papers folder (or `library.files_path`) is the same paper's file. Either way the path must
        lead into the paper folders (see `confined`); a row naming anything else is logged and ignored.
        """
        if not stored:
            return None
        path = Path(stored)
        nominal = path if path.is_absolute() else self.workspace.root / path
        candidates = [self.confined(nominal), self.confined(self.papers_dir / path.name)]
        if candidates[0] is None:
            log.warning("paper file %r lies outside the paper folders; it is not read", stored)
        found = next((c for c in candidates if c is not None and c.exists()), None)
        return found or next((c for c in candidates if c is not None), None)

    def of(self, paper: Paper) -> list[Path]:
        """The paper's files that live under papers/ (files elsewhere are the user's and stay)."""
        root = self.papers_dir.resolve()
        found: list[Path] = []
        for stored in (paper.pdf_path, paper.source_path):
            path = self.resolve(stored)
            if path is None or not path.exists():
                continue
            resolved = path.resolve()
            if resolved != root and resolved.is_relative_to(root):
                found.append(resolved)
        return found

    def present(self, paper: Paper) -> bool:
        """Is the paper's PDF or source on this machine? (In a shared library, often not: the text is.)"""
        return any((p := self.resolve(stored)) is not None and p.exists()
                   for stored in (paper.pdf_path, paper.source_path))
