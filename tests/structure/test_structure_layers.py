"""The layer table, held: no module imports one in a higher layer unless ALLOWED names the pair.

Layers, low to high (a room is a folder or a top-level module of astro_cli; the imports are
tests/structure/test_structure.py's, those under `if TYPE_CHECKING:` included, since a type is a dependency
too). A module named `__main__` is an entry point and sits at the top whatever its folder.
ALLOWED lists today's arrows that run back up, each with its reason; an entry that no longer
matches fails too, so the list can only shrink (as tests/structure/test_structure_writer.py's).
benchmarks/import_layers.py counts with this same table.
"""

from __future__ import annotations

from tests.structure import test_structure

LAYERS: list[tuple[str, ...]] = [
    (),  # 0: every top-level module not named below: basics that import (almost) nothing of astro
    # Storage, the safe primitives, and the top-level services built on the safe writer and the
    # redactor (keys, the user's config, local server records, the --debug log).
    ("store", "security", "keystore", "user_config", "local_servers", "debuglog"),
    ("prompt", "tools", "app", "local_model"),  # local_model/: the model astro downloads and serves itself
    ("agent", "worker", "litellm_model"),  # litellm_model/: the Model port's adapter, beside the loop
    ("skills", "memory", "tasks", "compact", "delegation", "research", "citations", "mcp", "hooks", "plots",
     "catalog", "attachments", "extensions", "plugin_commands"),  # attachments.py: `@file` mentions read PDFs,
    # LaTeX and tables, as a feature; extensions.py: the points features and plugins join through (readers, paper
    # sources, CLI commands), used by them; plugin_commands.py: a plugin's CLI commands through that point
    ("ui", "commands", "bootstrap", "doctor"),  # doctor/: the checks of the `astro doctor` command
    ("cli", "main", "__main__", "argv"),  # argv.py: the command line read before typer, by main and cli alone
]
TOP = len(LAYERS) - 1

# (importer, imported) -> why it may, for now. Only ever remove entries.
ALLOWED: dict[tuple[str, str], str] = {
    ("astro_cli.app", "astro_cli.agent.model_choice"): "{{model}} in a shown prompt: the app asks which model "
                                                        "would run (a model port at app level would end it)",
    ("astro_cli.prompt.environment", "astro_cli.agent.extensions"): "the environment message reads each loop "
                                                                    "extension's facts (types only)",
    ("astro_cli.security.sandbox", "astro_cli.app"): "the sandbox is made per app and reads its settings",
    ("astro_cli.security.sandbox", "astro_cli.worker.paths"): "the sandbox lets the worker's run folder through",
    ("astro_cli.slash", "astro_cli.agent.loop"): "the slash-command table types its handlers with the session",
    ("astro_cli.slash", "astro_cli.agent.model_activity"): "/model's handler reads what the model is doing",
    ("astro_cli.slash", "astro_cli.app"): "the slash-command table types its handlers with the app",
    ("astro_cli.transcript_sections", "astro_cli.app"): "transcript sections are registered per app",
    ("astro_cli.worker.warm_search", "astro_cli.research.search.embedding_choice"): "the worker preloads the "
                                                                                     "library's embedder",
    ("astro_cli.worker.warm_search", "astro_cli.research.search.local_embed"): "the worker preloads the "
                                                                                "library's embedder",
}


def room(module: str) -> str:
    """The folder or top-level module a module belongs to (astro_cli.research.library.x -> research)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layer(module: str) -> int:
    if module.rpartition(".")[2] == "__main__":
        return TOP
    name = room(module)
    return next((level for level, names in enumerate(LAYERS) if name in names), 0)


def upward_imports() -> list[tuple[str, str]]:
    graph = test_structure.import_graph(types_too=True)
    return sorted((a, b) for a, targets in graph.items() for b in targets if layer(a) < layer(b))


def test_no_import_runs_back_up_a_layer_unless_allowed() -> None:
    new = [f"{a} -> {b}" for a, b in upward_imports() if (a, b) not in ALLOWED]
    assert not new, ("these imports run from a lower layer up to a higher one; hand the dependency in, "
                     "or move the code down:\n" + "\n".join(new))


def test_the_allowed_list_only_shrinks() -> None:
    found = set(upward_imports())
    stale = [f"{a} -> {b}" for a, b in ALLOWED if (a, b) not in found]
    assert not stale, "these allowed arrows are gone; remove them from ALLOWED:\n" + "\n".join(stale)


def test_the_named_back_arrows_stay_mended() -> None:
    """Issue 45's cheap ones: the top catches UserError (no agent import), tools warn through their
    host (no agent events), the trust check reads (file, tools) pairs (no SKILL.md parser), the
    worker is handed the command line by its entry point."""
    graph = test_structure.import_graph(types_too=True)
    assert "astro_cli.agent.factory" not in graph["astro_cli.bootstrap"]
    assert "astro_cli.agent.events" not in graph["astro_cli.tools.bash"]
    assert not {m for m in graph["astro_cli.security.trust"] if room(m) == "skills"}
    assert "astro_cli.main" not in graph["astro_cli.worker.child"]


def test_the_table_places_entry_points_at_the_top_and_services_with_security() -> None:
    assert layer("astro_cli.security.paths") < layer("astro_cli.agent.loop")
    assert layer("astro_cli.worker.__main__") == TOP
    assert layer("astro_cli.keystore") == 1 and layer("astro_cli.features") == 0
