"""What a session runs on, handed in: settings, tools, prompt, redactor, history, workspace.

The loop (agent/loop.py) takes these parts and never the app, so it cannot reach a service it was not
given; agent/factory.py's `session_parts` is the one place that reads them off the app. The tools'
context is made by `tool_context`, which the factory binds to the app's services, so a tool still
reaches what it needs while the loop itself holds no app.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from astro_cli.agent.history_store import HistoryStore
    from astro_cli.by_kind import SessionStates
    from astro_cli.config import Settings
    from astro_cli.prompt.registry import PromptRegistry
    from astro_cli.security.secrets import Redactor
    from astro_cli.tools.context import ToolContext, ToolHost
    from astro_cli.tools.registry import ToolRegistry


class ToolContextMaker(Protocol):
    """Makes the context of one tool call (tools/context.py) from what the loop knows of it."""

    def __call__(self, *, session_id: str, turn: int, call_id: str, agent: str, cancel: threading.Event,
                 emit: Callable[[Any], None], states: SessionStates, host: ToolHost) -> ToolContext: ...


@dataclass(frozen=True)
class LoopParts:
    """The parts of one session; a subagent's differ only in `history` (its own store, or the sessions table)."""

    settings: Settings
    tools: ToolRegistry
    prompt: PromptRegistry
    redactor: Redactor
    history: HistoryStore
    workspace: Path  # the workspace's root ({{cwd}} of the environment message)
    tool_context: ToolContextMaker
