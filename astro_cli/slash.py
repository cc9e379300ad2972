"""Slash commands as data: features describe them, the REPL (`ui/`) completes, lists and runs them.

A feature registers its commands from `install(app)` with
`slash_commands(app).register(SlashCommand(...))`.
A handler gets a SlashContext (the app, an output to print on, the current session and the REPL's
actions) and the text after the command name; it never imports the terminal UI. A plugin's handler
gets the narrower SlashView (no app), through PluginAPI.add_slash_command.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from astro_cli.agent.loop import AgentSession
    from astro_cli.agent.model_activity import ModelActivity
    from astro_cli.app import AppContext
    from astro_cli.config import Settings


class Output(Protocol):
    """Where a command prints: the REPL's rich Console (text, tables, markup)."""

    def print(self, *objects: Any, **kwargs: Any) -> None: ...


@dataclass
class SlashContext:
    """What a slash command may use: the app, the output, the current session, and REPL actions."""

    app: AppContext
    console: Output
    session: AgentSession | None
    # Set by the REPL: actions a command may request.
    # Send text to the model as the next turn; `shown` is what the REPL echoes (default: the text).
    queue_prompt: Callable[..., None] = lambda text, shown=None: None
    new_session: Callable[[], None] = lambda: None
    switch_session: Callable[[str], None] = lambda session_id: None
    exit: Callable[[], None] = lambda: None
    state: dict[str, Any] = field(default_factory=dict)  # REPL state: last turn's events, etc.
    activity: ModelActivity | None = None  # the last request's prompt figures and steps (/status)


@dataclass(frozen=True)
class SlashView:
    """What a plugin's slash command gets (PluginAPI.add_slash_command): where to print, the settings to
    read, the session's id, and a way to ask the model; never the app."""

    console: Output
    settings: Settings
    session_id: str | None
    queue_prompt: Callable[[str], None]

    @classmethod
    def of(cls, ctx: SlashContext) -> SlashView:
        return cls(console=ctx.console, settings=ctx.app.settings,
                   session_id=ctx.session.session_id if ctx.session is not None else None,
                   queue_prompt=lambda text: ctx.queue_prompt(text))


Handler = Callable[[SlashContext, str], None]
ViewHandler = Callable[[SlashView, str], None]  # a plugin's handler
# `/NAME args` that no command claims: True if the fallback handled it (a skill of that name).
Fallback = Callable[[SlashContext, str, str], bool]


@dataclass
class SlashCommand:
    name: str  # without the slash
    help: str
    handler: Handler
    usage: str = ""


class SlashTable:
    """The app's slash commands, the extra names Tab completes, and the fallbacks for other `/NAME`s."""

    def __init__(self) -> None:
        self._commands: dict[str, SlashCommand] = {}
        self._names: list[Callable[[], dict[str, str]]] = []
        self._fallbacks: list[Fallback] = []

    def register(self, command: SlashCommand) -> None:
        """Add a command; a later one of the same name replaces the earlier."""
        self._commands[command.name] = command

    def register_default(self, command: SlashCommand) -> None:
        """Add a command unless a feature already took its name (the REPL's built-ins)."""
        self._commands.setdefault(command.name, command)

    def add_names(self, names: Callable[[], dict[str, str]]) -> None:
        """More `/name`s to complete (name -> one line of help), asked for at each completion: a feature
        whose names come and go (the skills) keeps Tab in step with them."""
        self._names.append(names)

    def add_fallback(self, fallback: Fallback) -> None:
        """Asked, in the order added, for a `/NAME` that is no command."""
        self._fallbacks.append(fallback)

    def get(self, name: str) -> SlashCommand | None:
        return self._commands.get(name)

    def __getitem__(self, name: str) -> SlashCommand:
        return self._commands[name]

    def __contains__(self, name: object) -> bool:
        return name in self._commands

    def __iter__(self) -> Iterator[str]:
        return iter(self._commands)

    def items(self) -> list[tuple[str, SlashCommand]]:
        return list(self._commands.items())

    def fallback(self, ctx: SlashContext, name: str, args: str) -> bool:
        return any(fallback(ctx, name, args) for fallback in self._fallbacks)

    def completions(self) -> dict[str, str]:
        """Every `/name` Tab completes, with its help: the commands, then the features' names."""
        found = {name: command.help for name, command in self._commands.items()}
        for names in self._names:
            for name, help_text in names().items():
                found.setdefault(name, help_text)
        return found


def slash_commands(app: AppContext) -> SlashTable:
    """The app's one table of slash commands (app.py knows nothing of it: no import goes back)."""
    return app.service(SlashTable)
