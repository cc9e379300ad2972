"""astro's own commands and command groups, registered through the point a plugin uses (extensions.CliCommands).

Declaring them imports nothing: each names its module and object, loaded when cli.py builds the command
line; argv.py reads the names from here to tell a command from a question.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any

from astro_cli.extensions import CliCommands

if TYPE_CHECKING:
    import typer

COMMANDS = (  # (name, module in astro_cli.commands, function, help)
    ("init", "init_cmd", "init_command", "Lay out this folder as an astro workspace (skills, memory, papers, notes)."),
    ("run", "run_cmd", "run_command", "Answer one question and exit (answer on stdout, progress on stderr)."),
    ("trust", "trust_cmd", "trust_command",
     "Trust this folder's risky settings (hooks, permissions, endpoints), or --revoke / --list."),
    ("doctor", "doctor_cmd", "doctor_command", "Check that everything is in place (keys, model, database, library, "
     "worker, MCP, trust), with the fix for each problem."),
    ("models", "models_cmd", "models_command", "The short model names -m takes (sonnet, opus, gpt-4.1 and more), "
     "the model each is, and which have a key."),
    ("search", "search_cmd", "search", "Search NASA ADS and arXiv for papers (no model needed)."),
    ("target", "search_cmd", "target", "Look up an object in SIMBAD, or list the objects around a position."),
)
GROUPS = (  # (name, module in astro_cli.commands whose `app` is the group, help)
    ("catalog", "catalog_cmd", "Catalogue queries over the Virtual Observatory (Gaia, VizieR, IRSA, NED, MAST, "
     "SIMBAD): ADQL, cone searches, tables; results to data/."),
    ("papers", "papers_cmd", "A paper's citation trail: refs, cited-by, similar (NASA ADS)."),
    ("sessions", "sessions_cmd", "List, show and export stored sessions."),
    ("config", "config_cmd", "Show the resolved settings and where each came from."),
    ("library", "library_cmd", "Your paper library: search, list, add, export, remove."),
    ("prompt", "prompt_cmd", "Show exactly what the model sees, with token counts."),
    ("memory", "memory_cmd", "Project memory: list, show, add, edit and forget memories."),
    ("skills", "skills_cmd", "Skills: list, show, write and validate SKILL.md files."),
    ("hooks", "hooks_cmd", "Lifecycle hooks: list what is configured and what cannot start."),
    ("keys", "keys_cmd", "API keys kept in ASTRO_HOME/keys.yaml: set, list, remove."),
    ("worker", "worker_cmd", "The warm worker that makes `astro run` start fast: status, start, stop."),
    ("mcp", "mcp_cmd", "MCP servers: list them with status and tools, add or remove one."),
)


def _loader(module: str, name: str) -> Callable[[], Any]:
    return lambda: getattr(import_module(f"astro_cli.commands.{module}"), name)


def _group(module: str) -> Callable[[], typer.Typer]:
    load: Callable[[], typer.Typer] = _loader(module, "app")
    return load


def register_commands(cli: CliCommands) -> None:
    """astro's commands, then its command groups (the order `astro --help` lists them)."""
    for name, module, function, help_text in COMMANDS:
        cli.add_command(name, help_text, _loader(module, function))
    for name, module, help_text in GROUPS:
        cli.add_group(name, help_text, _group(module))


def builtin_commands() -> CliCommands:
    cli = CliCommands()
    register_commands(cli)
    return cli
