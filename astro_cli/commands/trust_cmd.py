"""`astro trust`: trust a folder's risky project settings, take trust back, or list trusted folders."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from astro_cli.bootstrap import build_app, user_errors


def trust_command(
    folder: Optional[Path] = typer.Argument(None, help="The folder (default: the current one)."),
    revoke: bool = typer.Option(False, "--revoke", help="Stop trusting the folder."),
    list_: bool = typer.Option(False, "--list", help="List the trusted folders."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Trust without asking (a terminal asks after showing them)."),
) -> None:
    """Trust this folder: its hooks, permissions, endpoints, MCP servers and skill tools then apply."""
    from rich.console import Console
    from rich.text import Text

    from astro_cli.security.trust import TrustStore
    from astro_cli.ui.trust_prompt import show_items

    console = Console(highlight=False)
    with user_errors():
        app = build_app(workspace=folder)
        try:
            store = TrustStore(app.home.root)
            state = app.trust
            if list_:
                folders = store.folders()
                if not folders:
                    console.print("No folder is trusted yet.")
                for path, entry in folders.items():
                    trusted = len(entry.get("trusted") or {})
                    declined = len(entry.get("declined") or {})
                    when = entry.get("trusted_at") or "never trusted"
                    extra = f", {declined} declined" if declined else ""
                    console.print(Text(f"{path}  ({trusted} setting(s) trusted{extra}; {when})"))
                return
            if revoke:
                if store.revoke(state.folder):
                    console.print(Text(f"{state.folder} is no longer trusted; its risky settings are ignored."))
                else:
                    console.print(Text(f"{state.folder} was not trusted; nothing changed."))
                return
            if state.items and sys.stdin.isatty() and not yes:
                console.print(Text(f"{state.folder} asks for these settings:"))
                show_items(console, state.items)
                try:
                    answer = input("Trust this folder and apply them? [y/N] ")
                except (EOFError, KeyboardInterrupt):
                    answer = ""
                if answer.strip().lower() not in ("y", "yes"):
                    console.print(Text("Not trusted; nothing changed."))
                    return
                store.trust(state.folder, state.items)
                console.print(Text(f"Trusted {state.folder}."))
            elif state.items:
                store.trust(state.folder, state.items)
                console.print(Text(f"Trusted {state.folder}; these settings now apply:"))
                show_items(console, state.items)
            else:
                store.trust(state.folder, state.items)
                console.print(Text(f"Trusted {state.folder} (it has no risky settings now)."))
            console.print(Text("Settings that appear or change later are asked about again.", style="dim"))
        finally:
            app.close()
