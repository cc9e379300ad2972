"""Project skills whose `allowed-tools` would pre-approve tools: what the trust check must ask about.

Here, not in security/trust.py, so that the trust check reads pairs (file, tools) and never parses
SKILL.md itself: security/ sits below the features and knows no skill format.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from astro_cli.skills.skill import SKILL_FILE, SkillError, parse_skill
from astro_cli.workspace import bundled_skills_dir


def pre_approving_skills(skill_dirs: Iterable[Path]) -> list[tuple[Path, tuple[str, ...]]]:
    """Each SKILL.md under `skill_dirs` that names allowed-tools, with those tools (astro's bundled
    skills are its own code, trusted as such)."""
    skipped = {bundled_skills_dir().resolve()}
    found: list[tuple[Path, tuple[str, ...]]] = []
    seen: set[Path] = set()
    for directory in skill_dirs:
        try:
            real = directory.resolve()
            if real in skipped or real in seen or not real.is_dir():
                continue
            seen.add(real)
            candidates = sorted(real.glob(f"*/{SKILL_FILE}"))
        except OSError:
            continue
        for path in candidates:
            try:
                skill = parse_skill(path)
            except SkillError:
                continue  # a broken skill is not loaded, so it pre-approves nothing
            if skill.allowed_tools:
                found.append((path, tuple(skill.allowed_tools)))
    return found
