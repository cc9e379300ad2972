"""Where things live: the workspace (a research folder) and ASTRO_HOME (the user's settings).

Nothing here creates folders on import or construction; folders appear on first write, so
running `astro --help` in any folder leaves no trace.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Workspace:
    """A research folder: skills/, memory/, papers/, notes/ and .astro/ (database, local config)."""

    root: Path

    @classmethod
    def at(cls, path: Path | str | None = None) -> Workspace:
        return cls(Path(path or os.getcwd()).resolve())

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
