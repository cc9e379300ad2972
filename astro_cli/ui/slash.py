"""The slash-command table of the REPL.

Features add their own commands (`/skills`, `/memory`, `/tasks`, `/bg`, `/compact`, `/sources`...)
from their `install(app)` with `register_slash(app, SlashCommand(...))`; the REPL completes,
lists and dispatches them. A handler gets a SlashContext and the text after the command name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from astro_cli.agent.loop import AgentSession
    from astro_cli.app import AppContext


@dataclass
class SlashContext:
    """What a slash command may use: the app, the console, the current session, and REPL actions."""

    app: AppContext
    console: Console
    session: AgentSession | None
    # Set by the REPL: actions a command may request.
    # Send text to the model as the next turn; `shown` is what the REPL echoes (default: the text).
    queue_prompt: Callable[..., None] = lambda text, shown=None: None
    new_session: Callable[[], None] = lambda: None
    switch_session: Callable[[str], None] = lambda session_id: None
    exit: Callable[[], None] = lambda: None
    state: dict[str, Any] = field(default_factory=dict)  # REPL state: last turn's events, etc.


Handler = Callable[[SlashContext, str], None]


@dataclass
class SlashCommand:
    name: str  # without the slash
    help: str
    handler: Handler
    usage: str = ""


def slash_table(app: AppContext) -> dict[str, SlashCommand]:
    return app.services.setdefault("slash_commands", {})


def register_slash(app: AppContext, command: SlashCommand) -> None:
    slash_table(app)[command.name] = command


def register_names(app: AppContext, names: Callable[[], dict[str, str]]) -> None:
    """More `/name`s to complete (name -> one line of help), asked for at each completion: a feature
    whose names come and go (the skills, through its fallback) keeps Tab in step with them."""
    app.services.setdefault("slash_names", []).append(names)


def slash_completions(app: AppContext) -> dict[str, str]:
    """Every `/name` Tab completes, with its help: the commands, then the features' names."""
    found = {name: command.help for name, command in slash_table(app).items()}
    for names in app.services.get("slash_names", []):
        for name, help_text in names().items():
            found.setdefault(name, help_text)
    return found
