"""`astro keys set|list|remove|path`: API keys kept in ASTRO_HOME/keys.yaml (mode 0600), as `llm keys` does.

A key is read with hidden input on a terminal, or from stdin when piped (`pass show ads | astro keys
set ads`), never from the command line where the shell history would keep it. Keys are never
printed: `list` shows the provider, where its key comes from and a masked form.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING

import typer

from astro_cli.bootstrap import EXIT_FAILED, UserError, build_app, user_errors
from astro_cli.commands.defaults import command_group

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.keystore import KeyStore

app = command_group("list")  # `astro keys` alone: `astro keys list`


def _store(ctx: AppContext) -> KeyStore:
    return ctx.keys  # the app's one reader of keys.yaml


def _read_key(provider: str, variable: str) -> str:
    if sys.stdin is not None and not sys.stdin.isatty():
        return sys.stdin.readline().strip()
    import getpass

    print(f"Paste the {provider} key (input is hidden; {variable} in the environment would win over it).",
          file=sys.stderr)
    try:
        return getpass.getpass("key: ").strip()
    except EOFError:
        return ""


@app.command("set")
def set_key(provider: str = typer.Argument(..., help="anthropic, openai, gemini, openrouter, mistral, deepseek, ads, ...")) -> None:
    """Store a provider's key in ASTRO_HOME/keys.yaml (hidden input, or stdin when piped)."""
    from astro_cli.keystore import KeyStoreError, check_provider, env_vars

    with user_errors():
        ctx = build_app()
        store = _store(ctx)
        try:
            name = check_provider(provider)
            key = _read_key(name, env_vars(name)[0])
            if not key:
                raise UserError("No key was given; nothing was saved.")
            store.set(name, key)
        except KeyStoreError as exc:
            raise UserError(str(exc)) from None
        typer.echo(f"Saved the {name} key in {store.path}.")
        variable = env_vars(name)[0]
        if os.environ.get(variable):
            typer.echo(f"Note: {variable} is set in the environment and wins over keys.yaml.")


@app.command("list")
def list_keys(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """The providers with a key: where it comes from (environment or keys.yaml) and a masked form."""
    from astro_cli.keystore import PROVIDER_ENV, KeyStoreError, credential, env_vars, mask

    with user_errors():
        ctx = build_app()
        store = _store(ctx)
        try:
            stored = store.load()
        except KeyStoreError as exc:
            raise UserError(str(exc)) from None
        rows = []
        for provider in sorted(set(PROVIDER_ENV) | set(stored)):
            found = credential(provider, os.environ, store)
            if found is None:
                continue
            also = " (keys.yaml has one too, unused)" if provider in stored and not found.from_store else ""
            rows.append({"provider": provider, "variable": env_vars(provider)[0],
                         "source": found.source + also, "key": mask(found.value)})
        if as_json:
            typer.echo(json.dumps(rows, indent=2))
            return
        if not rows:
            typer.echo(f"No keys yet: none in the environment, none in {store.path}. "
                       "`astro keys set PROVIDER` adds one.")
            return
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        table = Table(box=None, header_style="bold", pad_edge=False)
        for column in ("provider", "variable", "from", "key"):
            table.add_column(column, no_wrap=column != "from")
        for row in rows:
            table.add_row(*(Text(row[k]) for k in ("provider", "variable", "source", "key")))
        Console(highlight=False).print(table)
        if store.too_open():
            typer.echo(f"warning: {store.path} can be read by other users; run `chmod 600 {store.path}`.", err=True)


@app.command("remove")
def remove_key(provider: str = typer.Argument(..., help="The provider whose stored key to forget.")) -> None:
    """Remove a provider's key from keys.yaml (environment variables are left alone)."""
    from astro_cli.keystore import KeyStoreError, check_provider, env_vars

    with user_errors():
        ctx = build_app()
        store = _store(ctx)
        try:
            name = check_provider(provider)
            removed = store.remove(name)
        except KeyStoreError as exc:
            raise UserError(str(exc)) from None
        if not removed:
            raise UserError(f"keys.yaml has no {name} key; `astro keys list` shows the keys.", EXIT_FAILED)
        typer.echo(f"Removed the {name} key from {store.path}.")
        variable = env_vars(name)[0]
        if os.environ.get(variable):
            typer.echo(f"Note: {variable} is still set in the environment, so astro keeps using that key.")


@app.command("path")
def path() -> None:
    """Print where the keys are kept."""
    with user_errors():
        typer.echo(str(_store(build_app()).path))
