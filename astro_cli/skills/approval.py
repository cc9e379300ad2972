"""When a skill's `allowed-tools` may pre-approve tools for the rest of the turn.

Only for a skill from astro itself, the user's own folder (ASTRO_HOME/skills) or a project folder
the user trusts: a project skill the user invokes (`/NAME`) in an untrusted folder pre-approves
nothing, since its name alone says nothing about what its file asks for. Never for a skill whose
file was created or changed after the session started (the model may have written it, with file_write or a shell
command). Everything else still loads; its tools simply ask for permission as usual.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.skills.skill import Skill

def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


@dataclass(frozen=True)
class SkillBaseline:
    """The skill files as they were when the session started."""

    signatures: dict[Path, tuple[int, int, int] | None] = field(default_factory=dict)

    @classmethod
    def take(cls, paths: list[Path]) -> SkillBaseline:
        return cls({path.resolve(): _signature(path) for path in paths})

    def changed(self, path: Path) -> bool:
        real = path.resolve()
        return real not in self.signatures or self.signatures[real] != _signature(real)


def take_baseline(app: AppContext) -> SkillBaseline:
    """Once per process, when the first session starts: subagents and later sessions share it."""
    from astro_cli.skills.registry import get_registry, skill_files, skill_layers

    get_registry(app).ensure_loaded()
    return app.service(SkillBaseline, lambda: SkillBaseline.take([path for _, path in skill_files(skill_layers(app))]))


def pre_approval(app: AppContext, skill: Skill, baseline: SkillBaseline | None, by_user: bool) -> str | None:
    """None when the skill's allowed-tools may be pre-approved; otherwise the reason they are not."""
    if baseline is None or baseline.changed(skill.path):
        return "its SKILL.md was created or changed during this session"
    if skill.layer in ("bundled", "user"):
        return None
    if app.trust.skill_tools_trusted(skill.path):
        return None
    invoked = ", even when you invoke them" if by_user else ""
    return f"project skills pre-approve tools only in a folder you trust (`astro trust`){invoked}"


def refusal_note(skill: Skill, reason: str) -> str:
    from astro_cli.prompt.tags import escape_tags

    tools = escape_tags(", ".join(skill.allowed_tools))  # the entries come from the skill's file
    return f"[allowed-tools not pre-approved ({tools}): {reason}; these tools ask for permission as usual]"
