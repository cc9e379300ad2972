"""The memory service: one store and one catalog per workspace, and the cached memory block.

The block is cached by (question, catalog generation, turn time): the question is the user's
message of the turn, the generation changes only when a memory file does, and the turn time is
frozen when the turn starts (see feature.MemoryTurn), so asking twice in a turn costs nothing.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astro_cli.memory.format import Clock, Memory, format_time, utc_now
from astro_cli.memory.reminder import age_days, render_block
from astro_cli.memory.select import WATCH_FROM_FILES, MemoryCatalog, Scored
from astro_cli.memory.store import MemoryStore

if TYPE_CHECKING:
    from astro_cli.app import AppContext

CACHE_SIZE = 16


class MemoryService:
    def __init__(
        self,
        root: Path,
        inject: int = 5,
        half_life_days: float = 30.0,
        clock: Clock = utc_now,
        warn: Callable[[str], None] | None = None,
        watch: bool = False,
        watch_from: int = WATCH_FROM_FILES,
        guard: Callable[[], None] | None = None,
    ) -> None:
        self.root = root
        self.guard = guard
        self.inject = inject
        self.half_life_days = half_life_days
        self.clock = clock
        self._report = warn or (lambda text: None)
        self._unshown: list[str] = []  # warnings a running session has not shown yet
        self.watch = watch
        self.watch_from = watch_from
        self.store = MemoryStore(root, clock, self.warn, after_change=self._store_changed, guard=guard)
        self._catalog: MemoryCatalog | None = None
        self._cache: OrderedDict[tuple[Any, ...], str | None] = OrderedDict()
        self.last_selection: list[Scored] = []

    @classmethod
    def for_app(cls, app: AppContext, clock: Clock = utc_now, watch: bool | None = None) -> MemoryService:
        """The settings were checked when they were loaded (config.validate): no negative count, no zero half-life.

        `watch` (default: config 'memory.watch') is for long-lived sessions; one-off commands pass False.
        """
        inject = app.settings.typed["memory.inject"]
        half_life = float(app.settings.typed["memory.half_life_days"])
        watch = bool(app.settings.typed["memory.watch"]) if watch is None else watch
        memory_dir = app.workspace.memory_dir

        def guard() -> None:
            # A memory/ that links out of the workspace (and allowed_paths) is read, never written.
            app.confinement.folder(memory_dir, "The memory")

        return cls(memory_dir, inject, half_life, clock, app.warn, watch, guard=guard)

    def warn(self, text: str) -> None:
        self._report(text)
        if text not in self._unshown:
            self._unshown.append(text)

    def take_warnings(self) -> list[str]:
        """Warnings (broken files) found since the last call, for a session to show as they happen."""
        taken, self._unshown = self._unshown, []
        return taken

    @property
    def catalog(self) -> MemoryCatalog:
        """Built on first use, so installing the feature scans nothing."""
        if self._catalog is None:
            self._catalog = MemoryCatalog(self.root, self.warn, watch=self.watch, watch_from=self.watch_from,
                                          guard=self.guard)
        return self._catalog

    def _store_changed(self) -> None:
        """After a save or forget: re-read the changed files and rewrite MEMORY.md from the catalog."""
        catalog = self.catalog
        catalog.mark_changed()
        if not catalog.refresh():
            # A fresh catalog of a folder astro just emptied (the last memory forgotten) sees no
            # change, but MEMORY.md still lists what was there.
            catalog.sync_index()

    def close(self) -> None:
        if self._catalog is not None:
            self._catalog.close()

    def select(self, question: str, now: datetime | None = None) -> list[Scored]:
        catalog = self.catalog
        catalog.refresh()
        return catalog.select(question, now or self.clock(), self.half_life_days, self.inject)

    def context_block(self, question: str, now: datetime | None = None) -> str | None:
        """The `<project-memory-context>` block for this question at this (turn) time; None when no
        memory is selected (none saved, or `memory.inject: 0`)."""
        if self.inject <= 0:
            return None
        now = now or self.clock()
        catalog = self.catalog
        catalog.refresh()
        key = (question, catalog.generation, now)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        self.last_selection = catalog.select(question, now, self.half_life_days, self.inject)
        text = render_block(self.last_selection, now) if self.last_selection else None
        self._cache[key] = text
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return text


def memory_row(memory: Memory, now: datetime) -> dict[str, Any]:
    """One memory as plain data, for `astro memory list --json` and the listings."""
    return {
        "slug": memory.slug,
        "type": memory.type,
        "description": memory.description,
        "created": format_time(memory.created),
        "updated": format_time(memory.updated),
        "age_days": age_days(memory.updated, now),
        "superseded_by": memory.superseded_by,
        "mark": memory.mark,
        "version": memory.is_version,
        "path": str(memory.path) if memory.path else None,
    }


def sorted_memories(memories: list[Memory], include_history: bool = False) -> list[Memory]:
    """Newest first; versions (`_vN`) only when asked for."""
    chosen = [m for m in memories if include_history or not m.is_version]
    return sorted(chosen, key=lambda m: (m.updated, m.slug), reverse=True)
