"""What features add to a stored session as people read it (`astro sessions show/export`).

A feature registers a section from `install(app)`:
`transcript_sections(app).add(TranscriptSection("Tasks", tasks_section))`. `ui/transcript.py`
renders every section whose function returns Markdown for the session (None: nothing to show).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
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


class TranscriptSections:
    """The app's sections, in the order features registered them."""

    def __init__(self) -> None:
        self._sections: list[TranscriptSection] = []

    def add(self, section: TranscriptSection) -> None:
        self._sections.append(section)

    def __iter__(self) -> Iterator[TranscriptSection]:
        return iter(list(self._sections))


def transcript_sections(app: AppContext) -> TranscriptSections:
    """The app's one set of sections (app.py knows nothing of it: no import goes back)."""
    return app.service(TranscriptSections)


def render_sections(app: AppContext, row: SessionRow) -> list[tuple[str, str]]:
    """(title, markdown) of each registered section that has something for this session."""
    return [(section.title, text) for section in transcript_sections(app) if (text := section.render(app, row))]
