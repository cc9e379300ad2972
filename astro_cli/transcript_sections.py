"""What features add to a stored session as people read it (`astro sessions show/export`).

A feature registers a section from `install(app)`:
`transcript_sections(app).append(TranscriptSection("Tasks", tasks_section))`. `ui/transcript.py`
renders every section whose function returns Markdown for the session (None: nothing to show).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.app import AppContext

SessionRow = dict[str, Any]


@dataclass(frozen=True)
class TranscriptSection:
    title: str
    # (app, the session's row) -> the section's Markdown, or None when it has nothing for this session.
    render: Callable[[AppContext, SessionRow], str | None]


def transcript_sections(app: AppContext) -> list[TranscriptSection]:
    """The app's one list of sections, in the order features registered them."""
    return app.service("transcript_sections", list)


def render_sections(app: AppContext, row: SessionRow) -> list[tuple[str, str]]:
    """(title, markdown) of each registered section that has something for this session."""
    return [(section.title, text) for section in transcript_sections(app) if (text := section.render(app, row))]
