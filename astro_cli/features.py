"""The features astro is built from, each a module with `install(app)`.

This module is the list only; `AppContext.install_features` imports each and calls its `install`.
A feature registers its tools (app.tools), prompt sections (app.prompt), loop extensions
(agent/extensions.loop_extensions) and services (`app.service(Kind, make)`, found by class). Order
matters only for tools of the same name: a later registration replaces an earlier one, so plugins
come last.
"""

from __future__ import annotations

FEATURES = [
    "astro_cli.tools.files",
    "astro_cli.tools.bash",
    "astro_cli.skills.feature",
    "astro_cli.tasks.feature",
    "astro_cli.compact.feature",
    "astro_cli.memory.feature",
    "astro_cli.hooks.feature",
    "astro_cli.delegation.feature",
    "astro_cli.research.feature",
    "astro_cli.research.library.feature",
    "astro_cli.citations.feature",
    "astro_cli.plots.feature",
    "astro_cli.catalog.feature",
    "astro_cli.mcp.feature",
    # Plugins install last: a plugin tool may replace any built-in of the same name.
    "astro_cli.hooks.plugins",
]

