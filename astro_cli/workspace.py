"""Where things live: the workspace (a research folder) and ASTRO_HOME (the user's settings).

Nothing here creates folders on import or construction; folders appear on first write, so
running `astro --help` in any folder leaves no trace.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MCP_FILE = ".mcp.json"  # a project's MCP servers, in Claude Code's shape (mcp/servers.py)


@dataclass(frozen=True)
class Workspace:
    """A research folder: skills/, memory/, papers/, notes/ and .astro/ (database, local config)."""

    root: Path

    @classmethod
    def at(cls, path: Path | str | None = None) -> Workspace:
        """The workspace at `path` when given (ASTRO_WORKSPACE, `astro init`); else the one the current
        folder is in, found as git finds a repository (`find_root`)."""
        if path:
            return cls(Path(path).resolve())
        return cls(find_root(Path(os.getcwd()).resolve()))

    @property
    def astro_dir(self) -> Path:
        return self.root / ".astro"

    @property
    def db_path(self) -> Path:
        return self.astro_dir / "astro.db"

    @property
    def config_path(self) -> Path:
        return self.astro_dir / "config.yaml"

    @property
    def skills_dirs(self) -> list[Path]:
        return [self.root / "skills", self.root / ".claude" / "skills"]

    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def papers_dir(self) -> Path:
        return self.root / "papers"

    @property
    def notes_dir(self) -> Path:
        return self.root / "notes"

    @property
    def agents_dir(self) -> Path:
        return self.astro_dir / "agents"

    @property
    def team_dir(self) -> Path:
        return self.astro_dir / "team"


def find_root(start: Path, user_home: Path | None = None) -> Path:
    """The nearest folder at or above `start` that holds `.astro/`; `start` itself when none does.

    The walk stops below the user's home folder and the filesystem's root (neither is ever found as a
    workspace: a `~/.astro` left by one run in $HOME would otherwise merge the sessions, library and
    files of every project under it) and where another filesystem begins (a mount), as git stops at
    GIT_CEILING_DIRECTORIES and filesystem boundaries: running astro in notes/ of a workspace uses the
    workspace, never a new notes/.astro/.
    """
    home = (user_home or Path(os.path.expanduser("~"))).resolve()
    try:
        device = start.stat().st_dev
    except OSError:
        return start
    folder = start
    while True:
        if folder != start and is_ceiling(folder, home):
            return start
        if (folder / ".astro").is_dir():
            return folder
        parent = folder.parent
        if parent == folder:
            return start
        try:
            if parent.stat().st_dev != device:
                return start
        except OSError:
            return start
        folder = parent


def is_ceiling(folder: Path, home: Path) -> bool:
    """$HOME and / hold every project: never a workspace found from a folder below them."""
    return folder == home or folder.parent == folder


def found_above(root: Path, cwd: Path | None = None) -> bool:
    """True when the workspace is a folder above the current one (worth saying: its sessions are shared)."""
    here = (cwd or Path(os.getcwd())).resolve()
    return root != here and root in here.parents


@dataclass(frozen=True)
class AstroHome:
    """The user's folder: config.yaml, user skills and agents, REPL history."""

    root: Path

    @classmethod
    def default(cls, env: dict[str, str] | None = None) -> AstroHome:
        env = dict(os.environ) if env is None else env
        if env.get("ASTRO_HOME"):
            return cls(Path(env["ASTRO_HOME"]).expanduser().resolve())
        from platformdirs import user_config_dir

        return cls(Path(user_config_dir("astro")))

    @property
    def config_path(self) -> Path:
        return self.root / "config.yaml"

    @property
    def skills_dir(self) -> Path:
        return self.root / "skills"

    @property
    def agents_dir(self) -> Path:
        return self.root / "agents"

    @property
    def history_path(self) -> Path:
        return self.root / "history"


def bundled_skills_dir() -> Path:
    """Skills shipped with astro: inside the wheel, or the repository's skills/ in a checkout."""
    here = Path(__file__).resolve().parent
    packaged = here / "bundled_skills"
    return packaged if packaged.is_dir() else here.parent / "skills"
