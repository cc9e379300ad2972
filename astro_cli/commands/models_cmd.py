"""`astro models`: the short names `-m` and `/model` take, the model each stands for, and which have a key.

As `llm models` lists what `-m` accepts. The model in use is marked; any litellm string works too.
"""

from __future__ import annotations

import os

import typer

from astro_cli.bootstrap import build_app, user_errors
from astro_cli.security.visible import visible, visible_json


def models_command(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the model aliases (`-m sonnet`), the model each is, whether its provider has a key, and the one in use."""
    from astro_cli.agent.model_aliases import ALIASES
    from astro_cli.agent.model_choice import key_store, model_choice
    from astro_cli.keystore import credential, provider_of

    with user_errors():
        app = build_app()
        try:
            choice = model_choice(app)
            store = key_store(app)
            rows = []
            for alias, model in ALIASES.items():
                provider = provider_of(model)
                found = credential(provider, os.environ, store) if provider else None
                rows.append({"alias": alias, "model": model, "key": found.source if found else None,
                             "in_use": choice is not None and choice.model == model})
        finally:
            app.close()
    if as_json:
        typer.echo(visible_json({"in_use": choice.model if choice else None, "aliases": rows}, indent=2))
        return
    width = max(len(alias) for alias in ALIASES)
    for row in rows:
        key = f"key: {row['key']}" if row["key"] else "no key"
        mark = "  ← in use" if row["in_use"] else ""
        typer.echo(visible(f"{row['alias']:<{width}}  {row['model']:<32} {key}{mark}"))
    used = f"{choice.model} ({choice.origin})" if choice else "none configured"
    typer.echo(f"\nin use: {visible(used)}. `-m ALIAS` or `/model ALIAS` picks one; any litellm model string works too.")
