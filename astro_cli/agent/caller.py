"""What a delegating tool may know of the agent that called it.

The subagent, team and background tools start work on the caller's behalf: they need its model,
its permissions (a subagent inherits them, narrowed), its cancel event (interrupting the caller
stops its subagent) and whether it is itself delegated (no recursion). The session stores its
`Caller` in its states once (its LLM follows /model: agent/current_model.py), so these tools read
a typed record, never the session.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.agent.model import Model
    from astro_cli.agent.permissions import PermissionPolicy

SUBAGENT = "subagent"
TEAMMATE = "teammate"


@dataclass(frozen=True)
class Caller:
    session_id: str
    agent: str
    llm: Model
    permissions: PermissionPolicy
    cancel: threading.Event
    max_steps: int
    only_tools: frozenset[str] | None = None
    role: str | None = None  # SUBAGENT or TEAMMATE for a delegated agent; None for one the user opened

    @property
    def delegated(self) -> bool:
        return self.role is not None
