"""The citation check's event: the final answer's citations and claims, each with its status.

A feature's own events live in its package (agent/events.py has the loop's); they are `Event`s of the
one bus, so renderers, persistence and hooks receive them as any other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from astro_cli.agent.events import Event


@dataclass
class CitationsChecked(Event):
    """The identifiers and author-year citations of the turn's final answer, each with its status.

    `citations` holds dicts with id, kind (bibcode | arxiv | doi | author-year), status
    (verified | resolved | unverified), title and paper; `nudged` says whether the model was
    asked once to verify or remove the unverified ones; `notes` say what could not be checked;
    `claims` holds each claim with status (supported | unsupported | unverified | uncited | not_read), the
    handles it cites and the passage it was checked against.
    """

    type = "citations"
    session_id: str
    turn: int
    citations: list[dict[str, Any]]
    nudged: bool = False
    notes: list[str] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)  # the claim ledger (citations/grounding.py)
    evidence_read: bool = True  # whether any passage was shown in the session ("no evidence retrieved")
