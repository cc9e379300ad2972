"""A plugin's `astro` commands: its entry point's `register_commands(cli)` (as llm's hook of that name).

The command line is read before any app exists, so this is the one plugin point that runs without one:
the entry point (group `astro.plugins`, hooks/plugins.py) names a module or object; when it has
`register_commands`, that is called with a CliCommands (extensions.py) to add groups and commands. It is
only asked when the command line's first word is none of astro's own commands (argv.py), so
`astro run` and the other built-ins never load a plugin. A plugin that fails, or names a command that is
taken, is said in one sentence on stderr and skipped.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

    from astro_cli.extensions import CliCommands, CommandFunction

GROUP = "astro.plugins"
log = logging.getLogger(__name__)


class PluginCommands:
    """What a plugin's register_commands(cli) gets: the point's two calls, its additions marked as its own."""

    def __init__(self, cli: CliCommands, plugin: str) -> None:
        self._cli = cli
        self.plugin = plugin

    def add_group(self, name: str, help: str, load: Callable[[], typer.Typer]) -> None:
        self._cli.add_group(name, help, load, origin=f"the plugin {self.plugin}")

    def add_command(self, name: str, help: str, load: Callable[[], CommandFunction]) -> None:
        self._cli.add_command(name, help, load, origin=f"the plugin {self.plugin}")


def _entry_points() -> list[Any]:
    from importlib.metadata import entry_points

    return list(entry_points(group=GROUP))


def add_plugin_commands(cli: CliCommands) -> None:
    """Every installed plugin's commands, added to `cli` (plugins in name order)."""
    try:
        points = _entry_points()
    except Exception as exc:  # noqa: BLE001 - broken package metadata must not stop astro
        log.debug("plugins could not be listed", exc_info=True)
        sys.stderr.write(f"warning: plugins could not be listed ({type(exc).__name__}: {exc})\n")
        return
    for point in sorted(points, key=lambda p: p.name):
        try:
            register = getattr(point.load(), "register_commands", None)
            if callable(register):
                register(PluginCommands(cli, point.name))
        except Exception as exc:  # noqa: BLE001 - one broken plugin must not stop the command line
            log.debug("the commands of plugin %s failed", point.name, exc_info=True)
            sys.stderr.write(f"warning: the commands of plugin {point.name} were skipped: {type(exc).__name__}: {exc}\n")
