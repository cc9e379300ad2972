"""Compaction's events: a layer is about to run, a layer ran (hooks map them to PreCompact / PostCompact).

A feature's own events live in its package (agent/events.py has the loop's); they are `Event`s of the
one bus, so renderers, persistence and hooks receive them as any other."""

from __future__ import annotations

from dataclasses import dataclass

from astro_cli.agent.events import Event


@dataclass
class CompactionStarted(Event):
    """A compaction layer is about to change what is sent (hooks map it to PreCompact)."""

    type = "compaction_started"
    layer: str  # snip | micro | summary | aggressive
    messages_before: int
    tokens_before: int
    trigger: str  # auto | manual | tool


@dataclass
class Compacted(Event):
    """A compaction layer ran (hooks map it to PostCompact); counts are of the messages sent."""

    type = "compacted"
    layer: str
    messages_before: int
    messages_after: int
    tokens_before: int
    tokens_after: int
    trigger: str = "auto"  # auto | manual | tool
