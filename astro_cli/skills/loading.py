"""What loading a skill does, the same for load_skill (the model) and /NAME (the researcher):
the body wrapped for the model and the recorded use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.prompt.tags import escape_tags

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.skills.skill import Skill

def wrap(skill: Skill, body: str) -> str:
    """What the model receives: the <command-name> tag (so it is not loaded twice), the folder, the body."""
    folder = escape_tags(str(skill.directory))
    header = f"<command-name>{skill.name}</command-name>\nBase directory for this skill: {folder}"
    return f"{header}\n\n{escape_tags(body)}"


def record_use(app: AppContext, name: str, session_id: str | None, source: str) -> None:
    """A use feeds the ranking; a database problem must never fail the load itself."""
    import sqlite3

    from astro_cli.skills.usage import UsageStore

    try:
        UsageStore(app.db).record(name, session_id, source)
    except (sqlite3.Error, OSError) as exc:
        app.warn(f"the use of skill '{name}' could not be recorded ({exc}).")
