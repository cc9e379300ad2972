"""What the skills feature remembers about one session (found with `session.state(SkillsState)`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

MAX_TOUCHED = 500


@dataclass
class SkillsState:
    # Conditional skills activated in this session: listed in the prompt from now on.
    active: set[str] = field(default_factory=set)
    # Files touched, oldest first (at most MAX_TOUCHED), to activate skills that appear later.
    touched: dict[Path, bool] = field(default_factory=dict)
    # name -> rendered body of each skill loaded in this session; compaction restores them.
    loaded: dict[str, str] = field(default_factory=dict)

    def touch(self, path: Path) -> None:
        self.touched.pop(path, None)
        self.touched[path] = True
        while len(self.touched) > MAX_TOUCHED:
            self.touched.pop(next(iter(self.touched)))
